#!/usr/bin/env python3
"""Run a trained mpdf policy in PyTorch, and check it against mpdf serve.

    mpdf train --out runs/quick --iterations 4 --features mpdf-features/v2
    python3 python/examples/pytorch_policy.py runs/quick/policy.safetensors

loads the run's policy.safetensors (best.mpdf's weights; an `mpdf export`
file works too) as a torch.nn.Module in one call, prints what it is, and
decides the deliberations below. With --server URL (an `mpdf serve --policy
runs/quick/best.mpdf`), asks the server the same and prints the largest
difference in probability (the two run one policy: ~1e-7).

Needs torch (pip install './python[torch]', or Debian's python3-torch).
"""

import argparse
import sys

import torch

import mpdf.torch
from mpdf import Client, agent

# Round 2 of 3 of a three-agent debate on a gsm question: answers,
# optional confidences and profiles, and (read by mpdf-features/v2
# policies) every agent's answer in rounds 0 and 1, the last row the
# current answers.
DELIBERATIONS = [
    {"round": 2, "rounds": 3,
     "agents": [agent("42", 0.9, profile={"steps": 4, "tokens": 310}), agent("41"), agent("42", 0.4)],
     "history": [["42", "41", "7"], ["42", "41", "42"]]},
    {"round": 1, "rounds": 3,
     "agents": [agent("18"), agent("18"), agent("")],
     "history": [["18", "18", ""]]},
    {"round": 3, "rounds": 3,
     "agents": [agent("B", 0.7), agent("C", 0.2), agent("B"), agent("D")]},
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("policy", help="policy.safetensors of a run, or an mpdf export")
    ap.add_argument("--server", help="URL of mpdf serve running the same policy, e.g. http://127.0.0.1:8080")
    args = ap.parse_args(argv)

    net = mpdf.torch.load(args.policy)       # a torch.nn.Module, in eval mode
    print("%s: %s, sizes %s, %s, step %s, confidence %s"
          % (args.policy, net.feature_version, net.sizes, net.activation, net.step, net.confidence_source))

    client = Client(args.server) if args.server else None
    worst = 0.0
    for d in DELIBERATIONS:
        x = net.features(d["agents"], d["round"], d["rounds"], d.get("history"))  # [agents, width] float32
        with torch.no_grad():
            probs = net.probs(x)                                                    # [agents, 3]
        served = client.decide(d["agents"], d["round"], d["rounds"], history=d.get("history")) if client else None
        print("round %d of %d:" % (d["round"], d["rounds"]))
        for i, row in enumerate(probs.tolist()):
            action = mpdf.torch.ACTIONS[max(range(3), key=lambda k: (row[k], -k))]
            line = "  agent %d %-8s %s" % (i, action, " ".join("%s %.4f" % (a[0], p) for a, p in zip(mpdf.torch.ACTIONS, row)))
            if served:
                theirs = served["agents"][i]
                diff = max(abs(p - theirs["probs"][a]) for a, p in zip(mpdf.torch.ACTIONS, row))
                worst = max(worst, diff)
                line += "   serve: %-8s |dp| %.1e" % (theirs["action"], diff)
            print(line)
    if client:
        print("max |dp| PyTorch vs mpdf serve: %.2e" % worst)
        if worst > 1e-5:
            print("the server runs another policy than %s" % args.policy, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
