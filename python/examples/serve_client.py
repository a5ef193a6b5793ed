#!/usr/bin/env python3
"""Ask a served mpdf policy who persists, refines or concedes.

    mpdf serve --policy runs/quick/best.mpdf --addr 127.0.0.1:8080 &
    python3 python/examples/serve_client.py --url http://127.0.0.1:8080

An agent is its normalised answer (or the raw text of its last response,
read by the server's answer reader), with an optional confidence (absent =
missing, not zero). A policy on mpdf-features/v2 also reads the history:
every agent's answer in each round so far, the last row the current ones.
Standard library only.
"""

import argparse
import json
import sys

from mpdf import Client, MpdfError, agent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8080", help="mpdf serve's address")
    args = ap.parse_args(argv)
    c = Client(args.url)
    info = c.policy()
    print("serving %s (step %s, %s)" % (info["feature_version"], info.get("step"), info.get("confidence_source")))
    r = c.decide([agent("42", 0.9), agent("41"), agent(text="6 times 7 is \\boxed{42}", completion_tokens=12)],
                 round=2, rounds=3, kind="gsm", history=[["42", "41", "7"], ["42", "41", "42"]])
    print("team answer", r["team_answer"])
    for i, a in enumerate(r["agents"]):
        print("agent %d: %-8s %s" % (i, a["action"], json.dumps(a["probs"], sort_keys=True)))


if __name__ == "__main__":
    try:
        main()
    except MpdfError as e:
        sys.exit("serve_client: %s" % e)
