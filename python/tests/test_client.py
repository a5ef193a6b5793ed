"""The client and the debate example against a real ``mpdf serve`` process
on a loopback port, with a fake OpenAI-compatible LLM server.

The server binary is $MPDF_BIN, or built with ``go build ./cmd/mpdf`` from
the repository (support.py); without either the tests skip.
"""

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
import unittest

import support
from support import Served
import mpdf
from mpdf import MpdfError, agent, features, policy

debate = support.load_example("debate")

TMP = None


def setUpModule():
    global TMP
    support.mpdf_bin()
    TMP = support.tmpdir()


class FakeLLM:
    """A loopback OpenAI-compatible chat-completions server: first answers
    cycle through ANSWERS, every revision answers 42. It records the
    requests."""

    ANSWERS = ["Step 1: 6 times 7.\nSo \\boxed{42}", "Maybe it is \\boxed{41}", "I am not sure."]

    def __init__(self):
        self.requests = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                last = body["messages"][-1]["content"]
                if "other agents" in last:
                    text = "Checking the others: \\boxed{42}"
                else:
                    text = FakeLLM.ANSWERS[sum(1 for r in fake.requests if len(r["messages"]) == 1) % 3 - 1]
                out = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}],
                                  "usage": {"completion_tokens": len(text) // 4}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/v1" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.policy = policy.random_policy([features.FEATURE_WIDTH, 32, 32, 3], seed=7)
        cls.path = os.path.join(TMP, "policy.safetensors")
        policy.save(cls.path, cls.policy)
        cls.served = Served(cls.path)
        cls.c = cls.served.client

    @classmethod
    def tearDownClass(cls):
        code = cls.served.stop()
        assert code == 0, "mpdf serve exited with %d after SIGTERM" % code

    def test_decide_matches_reference(self):
        # The served decisions are those of the exported weights run on the
        # Python features: what a PyTorch user of policy.safetensors gets.
        agents = [agent("42", 0.9, profile={"steps": 4, "tokens": 300}), agent("41"),
                  agent("42", 0.2, profile={"hedges": 2, "self_confidence": 0.5}), agent("")]
        r = self.c.decide(agents, round=1, rounds=3)
        self.assertEqual(r["feature_version"], features.FEATURE_VERSION)
        self.assertEqual(r["team_answer"], "42")
        flat = [{"answer": a.get("answer", ""), "confidence": a.get("confidence"), **a.get("profile", {})}
                for a in agents]
        ref = self.policy.decide(flat, 1, 3)
        for i, (d, (action, probs)) in enumerate(zip(r["agents"], ref)):
            for k in probs:
                self.assertAlmostEqual(d["probs"][k], probs[k], delta=1e-5, msg="agent %d %s" % (i, k))
            self.assertEqual(d["action"], action, "agent %d" % i)
            self.assertEqual(d["concede_target"], features.concede_target(
                [a["answer"] for a in flat], [a["confidence"] for a in flat], i))

    def test_batch_and_seed(self):
        d = {"round": 2, "rounds": 3, "agents": [agent("1", 0.5), agent("2", 0.5), agent("2")]}
        a = self.c.decide_batch([d] * 50, mode="sample", seed=11)
        b = self.c.decide_batch([d] * 50, mode="sample", seed=11)
        self.assertEqual(a, b)
        self.assertEqual(len(a["results"]), 50)
        self.assertEqual(a["seed"], 11)

    def test_text_agents(self):
        r = self.c.decide([agent(text="6*7 = \\boxed{42}", completion_tokens=9), agent(text="The answer is 41.")],
                          round=1, rounds=2, kind="gsm")
        self.assertEqual([d["answer"] for d in r["agents"]], ["42", "41"])

    def test_errors_name_the_field(self):
        with self.assertRaises(MpdfError) as e:
            self.c.decide([agent("1"), agent("2"), agent("3", 1.4)], round=1, rounds=2)
        self.assertEqual((e.exception.status, e.exception.kind, e.exception.field), (400, "invalid", "agents[2].confidence"))
        self.assertIn("1.4 outside [0,1]", str(e.exception))
        with self.assertRaises(ValueError):  # NaN never leaves the client
            self.c.decide([agent("1", float("nan")), agent("2")], round=1, rounds=2)
        self.assertTrue(self.c.ready())

    def test_history(self):
        # A v1 policy ignores a valid history; a history of the wrong shape
        # is a 400 naming the field.
        agents = [agent("1", 0.5), agent("2"), agent("2", 0.9)]
        bare = self.c.decide(agents, round=2, rounds=3)
        r = self.c.decide(agents, round=2, rounds=3, history=[["1", "1", "2"], ["1", "2", "2"]])
        self.assertEqual(r["agents"], bare["agents"])
        with self.assertRaises(MpdfError) as e:
            self.c.decide(agents, round=2, rounds=3, history=[["1", "1", "2"]])
        self.assertEqual((e.exception.status, e.exception.field), (400, "history"))
        with self.assertRaises(MpdfError) as e:
            self.c.decide(agents, round=2, rounds=3, history=[["1", "1", "2"], ["1", "2", "3"]])
        self.assertEqual(e.exception.field, "history[1][2]")

    def test_policy_info(self):
        info = self.c.policy()
        self.assertEqual((info["format"], info["feature_version"], info["sizes"]),
                         ("safetensors", features.FEATURE_VERSION, [26, 32, 32, 3]))

    def test_critic_server(self):
        # mpdf serve --critic fills the confidence of agents given as text
        # with the Go critic's: 1 when every equation holds, 0 when the
        # answer is a failed equation's result, missing with none to check.
        # The same texts with those confidences given decide the same.
        s = Served(self.path, "--critic")
        try:
            info = s.client.policy()
            self.assertTrue(info["critic"])
            self.assertEqual(info["confidence_source"], "unknown")  # policy.save records none
            self.assertEqual(len(info["warnings"]), 1)
            texts = ["3 * 4 = 12. \\boxed{12}", "3 * 4 = 13. \\boxed{13}", "\\boxed{13}"]
            filled = s.client.decide([agent(text=t) for t in texts], round=1, rounds=2, kind="gsm")
            given = s.client.decide([agent(text=t, confidence=c) for t, c in zip(texts, (1.0, 0.0, None))],
                                    round=1, rounds=2, kind="gsm")
            plain = self.c.decide([agent(text=t) for t in texts], round=1, rounds=2, kind="gsm")
        finally:
            self.assertEqual(s.stop(), 0)
        self.assertEqual(filled["agents"], given["agents"])
        self.assertNotEqual(filled["agents"], plain["agents"])  # the server without --critic leaves them missing
        self.assertNotIn("warnings", self.c.policy())

    def plan(self, width):
        """A hand-made linear policy with a known plan: persist when holding
        the team answer, refine without a readable answer, else concede. A
        v2 plan (width 40) refines whenever the history is missing."""
        w = [[0.0] * width for _ in range(3)]
        w[0][2] = 12.0    # persist: own answer is the team answer
        w[1][0] = -8.0    # refine: unless the agent has an answer
        w[2][17] = 10.0   # concede: share of peers holding the target
        if width == features.FEATURE_WIDTH_V2:
            w[1][features.FEATURE_WIDTH] = 40.0  # refine: history_missing
        path = os.path.join(TMP, "plan-%d.safetensors" % width)
        policy.save(path, policy.Policy([w], [[-5.0, 8.0, -4.0]]))
        return path

    def debate(self, path, **kwargs):
        s = Served(path)
        llm = FakeLLM()
        try:
            out = debate.run_debate("What is 6 times 7?", "gsm", debate.OpenAIChat(llm.url, "fake"),
                                    s.client, agents=3, rounds=2, **kwargs)
        finally:
            llm.close()
            self.assertEqual(s.stop(), 0)
        return out, llm

    def assert_plan_played(self, out, llm):
        # Round 0 answers 42, 41 and nothing. Round 1: agent 0 holds the
        # team answer, agent 1 concedes to 42, agent 2 (no answer) refines
        # and the fake LLM revises to 42. Round 2: everyone holds 42.
        self.assertEqual([r["actions"] for r in out["rounds"]],
                         [["persist", "concede", "refine"], ["persist", "persist", "persist"]])
        self.assertEqual(out["rounds"][0]["team_answer"], "42")
        self.assertEqual(out["llm_calls"], 4)  # 3 answers + 1 refine; persist and concede are free
        self.assertEqual(len(llm.requests), 4)
        self.assertIn("One agent solution: Maybe it is \\boxed{41}", llm.requests[3]["messages"][-1]["content"])
        self.assertEqual((out["answers"], out["final_answer"]), (["42", "42", "42"], "42"))

    def test_debate_example(self):
        out, llm = self.debate(self.plan(features.FEATURE_WIDTH))
        self.assert_plan_played(out, llm)
        self.assertIsNone(out["history"])  # a v1 policy reads none

    def test_debate_example_v2_history(self):
        # The v2 plan plays the v1 plan only when it is given the history:
        # the example reads the answers of every round and sends them.
        path = self.plan(features.FEATURE_WIDTH_V2)
        out, llm = self.debate(path)
        self.assert_plan_played(out, llm)
        self.assertEqual(out["history"], [["42", "41", ""], ["42", "42", "42"]])
        # Without it, every agent refines every round.
        out, _ = self.debate(path, history=False)
        self.assertEqual([r["actions"] for r in out["rounds"]], [["refine"] * 3] * 2)
        self.assertEqual(out["llm_calls"], 9)


class ReloadTest(unittest.TestCase):
    def test_sighup_reloads_and_bad_file_keeps_serving(self):
        path = os.path.join(TMP, "reload.safetensors")
        policy.save(path, policy.random_policy([26, 16, 3], seed=1))
        s = Served(path, "--allow-reload")
        try:
            agents = [agent("1", 0.3), agent("2")]
            before = s.client.decide(agents, 1, 2)["agents"][0]["probs"]
            policy.save(path, policy.random_policy([26, 16, 3], seed=2))
            s.proc.send_signal(signal.SIGHUP)
            deadline = time.time() + 20
            while s.client.decide(agents, 1, 2)["agents"][0]["probs"] == before:
                self.assertLess(time.time(), deadline, "SIGHUP never reloaded the policy")
                time.sleep(0.05)
            after = s.client.decide(agents, 1, 2)
            with open(path, "wb") as f:
                f.write(b"garbage")
            with self.assertRaises(MpdfError) as e:
                s.client.reload()
            self.assertEqual((e.exception.status, e.exception.kind), (500, "reload"))
            self.assertEqual(s.client.decide(agents, 1, 2), after)
        finally:
            self.assertEqual(s.stop(), 0)

    def test_reload_over_http_is_opt_in(self):
        path = os.path.join(TMP, "reload-off.safetensors")
        policy.save(path, policy.random_policy([26, 16, 3], seed=1))
        s = Served(path)
        try:
            with self.assertRaises(MpdfError) as e:
                s.client.reload()
            self.assertEqual((e.exception.status, e.exception.kind), (403, "forbidden"))
            self.assertIn("--allow-reload", e.exception.message)
        finally:
            self.assertEqual(s.stop(), 0)


if __name__ == "__main__":
    unittest.main()


class UnreachableTest(unittest.TestCase):
    def test_refused_connection_is_one_sentence(self):
        # Nothing listens on port 1: the client says so in one sentence
        # (MpdfError, no chained socket traceback), and the example exits
        # with it instead of a traceback.
        with self.assertRaises(MpdfError) as e:
            mpdf.Client("http://127.0.0.1:1", retries=0).policy()
        self.assertEqual(e.exception.kind, "unreachable")
        self.assertIsNone(e.exception.__cause__)
        self.assertIn("cannot reach mpdf serve at http://127.0.0.1:1", str(e.exception))
        ex = os.path.join(os.path.dirname(__file__), "..", "examples", "serve_client.py")
        p = subprocess.run([sys.executable, ex, "--url", "http://127.0.0.1:1"], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..")))
        self.assertEqual(p.returncode, 1)
        self.assertNotIn("Traceback", p.stderr)
        self.assertIn("serve_client: cannot reach mpdf serve", p.stderr)
