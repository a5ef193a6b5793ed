#!/usr/bin/env python3
"""An LLM-Debate-style deliberation steered by a served mpdf policy.

Every agent answers the question once (round 0). Then, each deliberation
round, mpdf is asked which agents persist (keep their answer, no LLM call),
refine (revise, shown the peers' answers: one LLM call) or concede (adopt the
peers' best-supported answer, no LLM call). The final answer is the team's
plurality answer, as mpdf reads it.

    mpdf serve --policy runs/mpdf/best.mpdf --addr 127.0.0.1:8080 &
    python3 python/examples/debate.py --llm-base-url http://127.0.0.1:8000/v1 \\
        --model local --question "What is 6 times 7?" --kind gsm

Works with any OpenAI-compatible chat-completions server (vLLM, llama.cpp,
Ollama, ...); the key, if any, comes from --api-key or OPENAI_API_KEY.
Standard library only.

A policy trained on mpdf-features/v2 also reads the deliberation's history,
every agent's answer in each round so far. The server reads answers from the
agents' text, and a history must end with the current answers, so for such a
policy each round first asks the server to read the new answers (a decide
call without history, no LLM call), then decides with the history.
"""

import argparse
import json
import os
import sys
import urllib.request

from mpdf import FEATURE_VERSION_V2, Client, agent

SOLVE = {
    "gsm": "Solve the following math problem step by step. Give the final answer as \\boxed{N}.\n\n%s",
    "mmlu": "Answer the following multiple-choice question. Explain briefly, then give the final answer as (X).\n\n%s",
}
REFINE = ("These are the solutions to the problem from other agents:\n\n%s\n\n"
          "Using the reasoning from other agents as additional advice, check your answer "
          "and give an updated solution. Give the final answer in the same format as before.")
CONCEDE = {"gsm": "I adopt my peers' answer: \\boxed{%s}", "mmlu": "I adopt my peers' answer: (%s)"}


class OpenAIChat:
    """A minimal chat-completions client: call(messages) -> (text, completion tokens)."""

    def __init__(self, base_url, model, api_key=None, temperature=0.7, max_tokens=1024, timeout=120):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key = model, api_key
        self.temperature, self.max_tokens, self.timeout = temperature, max_tokens, timeout

    def __call__(self, messages):
        body = {"model": self.model, "messages": messages,
                "temperature": self.temperature, "max_tokens": self.max_tokens}
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = "Bearer " + self.api_key
        req = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            out = json.loads(resp.read())
        text = out["choices"][0]["message"]["content"] or ""
        tokens = (out.get("usage") or {}).get("completion_tokens")
        return text, tokens


def run_debate(question, kind, llm, mpdf, agents=3, rounds=2, mode="greedy", seed=None, log=None, history=None):
    """Runs one deliberation and returns what happened: per round the
    actions, and the final answers and team answer. ``llm`` is a callable
    messages -> (text, completion tokens); ``mpdf`` a :class:`mpdf.Client`.
    ``history`` says whether to send the answers of the rounds so far; None
    sends them when the served policy reads them (v2; v1 and peers-v1 do not)."""
    log = log or (lambda *a: None)
    if history is None:
        history = mpdf.policy()["feature_version"] == FEATURE_VERSION_V2
    past = []  # past[r]: the agents' answers in round r, as the server read them
    chats = [[{"role": "user", "content": SOLVE[kind] % question}] for _ in range(agents)]
    states, calls = [], 0
    for i in range(agents):
        text, tokens = llm(chats[i])
        calls += 1
        chats[i].append({"role": "assistant", "content": text})
        states.append(agent(text=text, completion_tokens=tokens))
    played = []
    for r in range(1, rounds + 1):
        if history:
            read = mpdf.decide(states, round=r, rounds=rounds, kind=kind)
            past.append([d["answer"] for d in read["agents"]])
        resp = mpdf.decide(states, round=r, rounds=rounds, kind=kind, mode=mode,
                           seed=None if seed is None else seed + r, history=past if history else None)
        actions = [d["action"] for d in resp["agents"]]
        log("round %d: team answer %r, actions %s" % (r, resp["team_answer"], actions))
        played.append({"round": r, "team_answer": resp["team_answer"], "actions": actions,
                       "probs": [d["probs"] for d in resp["agents"]]})
        new = list(states)
        for i, d in enumerate(resp["agents"]):
            if d["action"] == "refine":
                peers = "\n\n".join("One agent solution: %s" % s.get("text", s.get("answer", ""))
                                    for j, s in enumerate(states) if j != i)
                chats[i].append({"role": "user", "content": REFINE % peers})
                text, tokens = llm(chats[i])
                calls += 1
                chats[i].append({"role": "assistant", "content": text})
                new[i] = agent(text=text, completion_tokens=tokens)
            elif d["action"] == "concede" and d["concede_target"]:
                text = CONCEDE[kind] % d["concede_target"]
                chats[i].append({"role": "assistant", "content": text})
                new[i] = agent(text=text, completion_tokens=0)
        states = new
    # The final state's answers and team answer, read by the server's reader
    # (the actions of this last call are not played).
    final = mpdf.decide(states, round=rounds, rounds=rounds, kind=kind)
    return {"question": question, "rounds": played, "llm_calls": calls, "history": past if history else None,
            "answers": [d["answer"] for d in final["agents"]], "final_answer": final["team_answer"]}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llm-base-url", required=True, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1")
    ap.add_argument("--model", required=True)
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY"))
    ap.add_argument("--mpdf-url", default="http://127.0.0.1:8080")
    ap.add_argument("--question", required=True)
    ap.add_argument("--kind", choices=sorted(SOLVE), default="gsm")
    ap.add_argument("--agents", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--mode", choices=["greedy", "sample"], default="greedy")
    ap.add_argument("--seed", type=int)
    args = ap.parse_args(argv)
    out = run_debate(args.question, args.kind, OpenAIChat(args.llm_base_url, args.model, args.api_key),
                     Client(args.mpdf_url), args.agents, args.rounds, args.mode, args.seed,
                     log=lambda *a: print(*a, file=sys.stderr))
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
