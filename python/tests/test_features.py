"""The pure-Python featurizer against Go's metapolicy.Featurize."""

import json
import os
import unittest

import support  # noqa: F401  (refuses an mpdf that is not the installed one)
from mpdf import features

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "features_v1.json")
GOLDEN_V2 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "features_v2.json")
GOLDEN_PEERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "features_peers_v1.json")
TOL = 1e-9


class FeaturesMatchGo(unittest.TestCase):
    def test_golden(self):
        with open(GOLDEN) as f:
            g = json.load(f)
        self.assertEqual(g["feature_version"], features.FEATURE_VERSION)
        self.assertEqual(g["width"], features.FEATURE_WIDTH)
        self.assertGreater(len(g["cases"]), 100)
        checked = 0
        for ci, case in enumerate(g["cases"]):
            for self_index, want in enumerate(case["features"]):
                got = features.featurize(case["agents"], self_index, case["round"], case["rounds"])
                for k, (x, y) in enumerate(zip(got, want)):
                    if abs(x - y) > TOL:
                        self.fail("case %d agent %d feature %d (%s): python %r, go %r"
                                  % (ci, self_index, k, features.FEATURE_NAMES[k], x, y))
                checked += 1
        self.assertGreater(checked, 500)

    def test_golden_v2(self):
        with open(GOLDEN_V2) as f:
            g = json.load(f)
        self.assertEqual(g["feature_version"], features.FEATURE_VERSION_V2)
        self.assertEqual(g["width"], features.FEATURE_WIDTH_V2)
        checked = with_history = 0
        for ci, case in enumerate(g["cases"]):
            history = case.get("history")
            for self_index, want in enumerate(case["features"]):
                got = features.featurize_v2(case["agents"], self_index, case["round"], case["rounds"], history)
                self.assertEqual(len(got), len(want))
                for k, (x, y) in enumerate(zip(got, want)):
                    if abs(x - y) > TOL:
                        self.fail("case %d agent %d feature %d (%s): python %r, go %r"
                                  % (ci, self_index, k, features.FEATURE_NAMES_V2[k], x, y))
                checked += 1
                with_history += history is not None
        self.assertGreater(checked, 500)
        self.assertGreater(with_history, 300)
        self.assertLess(with_history, checked)

    def test_golden_peers(self):
        with open(GOLDEN_PEERS) as f:
            g = json.load(f)
        self.assertEqual(g["feature_version"], features.FEATURE_VERSION_PEERS)
        self.assertEqual(g["width"], features.FEATURE_WIDTH_PEERS)
        checked, sizes = 0, set()
        for ci, case in enumerate(g["cases"]):
            sizes.add(len(case["agents"]))
            for self_index, want in enumerate(case["features"]):
                got = features.featurize_peers(case["agents"], self_index, case["round"], case["rounds"])
                self.assertEqual(len(got), len(want))
                for k, (x, y) in enumerate(zip(got, want)):
                    if abs(x - y) > TOL:
                        self.fail("case %d agent %d feature %d (%s): python %r, go %r"
                                  % (ci, self_index, k, features.FEATURE_NAMES_PEERS[k], x, y))
                checked += 1
        self.assertEqual(sizes, set(range(2, 9)))
        self.assertGreater(checked, 500)

    def test_consensus_rules(self):
        # Votes first, then summed confidence, then the lowest index.
        self.assertEqual(features.team_answer(["1", "2", "2"], [0.9, 0.1, 0.1]), "2")
        self.assertEqual(features.team_answer(["1", "2"], [0.4, 0.6]), "2")
        self.assertEqual(features.team_answer(["1", "2"], [None, None]), "1")
        self.assertEqual(features.team_answer(["", ""], None), "")
        # The concede target: summed confidence of the peers first.
        self.assertEqual(features.concede_target(["1", "2", "2", "3"], [0, 0.2, 0.2, 0.5], 0), "3")
        self.assertEqual(features.concede_target(["1", "2", "2", "3"], [0, 0.25, 0.25, 0.5], 0), "2")

    def test_rejects(self):
        with self.assertRaises(ValueError):
            features.featurize([{"answer": "1"}], 0, 1, 1)
        with self.assertRaises(ValueError):
            features.featurize([{}, {"confidence": 1.4}], 0, 1, 1)
        with self.assertRaises(ValueError):
            features.featurize([{}, {}], 0, 3, 2)


def slot(row, j):
    """Peer slot j of a peers-v1 row."""
    lo = features.FEATURE_WIDTH + features.PEER_WIDTH * j
    return row[lo:lo + features.PEER_WIDTH]


class PeersByHand(unittest.TestCase):
    """featurize_peers on teams worked out by hand (ATTENTION.md §1). A slot
    is present, has_answer, agrees, holds_team, holds_target, conf,
    conf_missing, self_conf, self_conf_missing, tokens, steps, hedges."""

    def assert_row(self, agents, self_index, want_slots, round=1, rounds=2):
        row = features.featurize_peers(agents, self_index, round, rounds)
        self.assertEqual(len(row), 110)
        # The first 26 are v1's own vector, unchanged.
        self.assertEqual(row[:26], features.featurize(agents, self_index, round, rounds))
        for j in range(7):
            want = want_slots[j] if j < len(want_slots) else [0.0] * 12
            got = slot(row, j)
            for k, (x, y) in enumerate(zip(got, want)):
                self.assertAlmostEqual(x, y, places=12, msg="self %d slot %d feature %s: %r, want %r"
                                       % (self_index, j, features.PEER_FEATURE_NAMES[k], x, y))
        return row

    def test_two_agents(self):
        # Team answer: one vote each, "42" has the larger summed confidence
        # (0.8 against a missing one). Agent 1 has no confidences at all.
        agents = [{"answer": "42", "confidence": 0.8, "self_confidence": 0.6, "tokens": 63, "steps": 3, "hedges": 1},
                  {"answer": "41"}]
        # Agent 0 sees agent 1: not agreeing, not the team's, but its only
        # peer's answer, so the concede target.
        self.assert_row(agents, 0, [[1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0]])
        # Agent 1 sees agent 0: the team answer and its target; tokens
        # log(64)/log(4096) = 1/2, steps log(4)/log(64) = 1/3, hedges
        # log(2)/log(16) = 1/4.
        self.assert_row(agents, 1, [[1, 1, 0, 1, 1, 0.8, 0, 0.6, 0, 1 / 2, 1 / 3, 1 / 4]])

    def test_three_agents_unreadable_and_missing(self):
        agents = [{"answer": "", "confidence": 0.3},
                  {"answer": "7", "confidence": 0.2},
                  {"answer": "7", "confidence": None, "self_confidence": None}]
        # Agent 0 has no readable answer: no peer agrees with it; "7" is
        # the team answer and its target.
        self.assert_row(agents, 0, [[1, 1, 0, 1, 1, 0.2, 0, 0, 1, 0, 0, 0],
                                    [1, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0]])
        # Agent 2's peers in order 0, 1: agent 0's unreadable answer holds
        # nothing (its confidence still shows); agent 1 agrees.
        self.assert_row(agents, 2, [[1, 0, 0, 0, 0, 0.3, 0, 0, 1, 0, 0, 0],
                                    [1, 1, 1, 1, 1, 0.2, 0, 0, 1, 0, 0, 0]], round=2)

    def test_no_readable_answer_holds_nothing(self):
        # Equal "" answers agree on nothing, and "" is neither the team
        # answer nor a target (both are "").
        agents = [{"answer": ""}, {"answer": "", "confidence": 0.5}]
        self.assert_row(agents, 0, [[1, 0, 0, 0, 0, 0.5, 0, 0, 1, 0, 0, 0]])

    def test_eight_agents_fill_every_slot_in_order(self):
        # Agent i has 2^i - 1 steps: its steps feature is i/6, which names
        # the agent in a slot. Votes: "1" 3 (confidence 0.3), "2" 3 (0.7),
        # "3" 1 (0.9): the team answer is "2" (tie on votes, more confidence).
        answers = ["1", "1", "1", "2", "2", "", "3", "2"]
        conf = [0.1, 0.1, 0.1, 0.5, None, 0.4, 0.9, 0.2]
        agents = [{"answer": a, "confidence": c, "steps": 2 ** i - 1} for i, (a, c) in enumerate(zip(answers, conf))]
        # Agent 5 (no answer): peers 6, 7, 0, 1, 2, 3, 4. Its target is the
        # answer with the largest summed peer confidence: "3" (0.9 > 0.7).
        want = []
        for i, team, target in ((6, 0, 1), (7, 1, 0), (0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 1, 0), (4, 1, 0)):
            c = conf[i]
            want.append([1, 1, 0, team, target, c or 0, c is None, 0, 1, 0, i / 6, 0])
        self.assert_row(agents, 5, want)
        # Agent 0 ("1"): peers 1..7; agents 1 and 2 agree; target "3" again
        # (peers' sums: "1" 0.2, "2" 0.7, "3" 0.9); agent 5 has no answer.
        row = features.featurize_peers(agents, 0, 1, 2)
        self.assertEqual([slot(row, j)[2] for j in range(7)], [1, 1, 0, 0, 0, 0, 0])
        self.assertEqual([slot(row, j)[1] for j in range(7)], [1, 1, 1, 1, 0, 1, 1])
        self.assertEqual([slot(row, j)[4] for j in range(7)], [0, 0, 0, 0, 0, 1, 0])
        self.assertEqual([round(slot(row, j)[10] * 6, 9) for j in range(7)], [1, 2, 3, 4, 5, 6, 7])

    def test_nine_agents_refused(self):
        with self.assertRaises(ValueError) as e:
            features.featurize_peers([{"answer": "1"}] * 9, 0, 1, 2)
        self.assertIn("mpdf-features/peers-v1 holds at most 8 agents, the team has 9", str(e.exception))
        # The version table picks this featurizer for the layout.
        width, fz = features.featurizer_for(features.FEATURE_VERSION_PEERS)
        self.assertEqual(width, 110)
        self.assertEqual(fz([{"answer": "1"}, {}], 0, 1, 1), features.featurize_peers([{"answer": "1"}, {}], 0, 1, 1))
        with self.assertRaises(ValueError):
            fz([{"answer": "1"}] * 9, 0, 1, 2)


if __name__ == "__main__":
    unittest.main()
