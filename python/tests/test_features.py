"""The pure-Python featurizer against Go's metapolicy.Featurize."""

import json
import os
import unittest

import support  # noqa: F401  (refuses an mpdf that is not the installed one)
from mpdf import features

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "features_v1.json")
GOLDEN_V2 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "features_v2.json")
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


if __name__ == "__main__":
    unittest.main()
