"""The example scripts (python/examples), run as a user runs them: a
separate Python process on the installed package, from another directory,
against a real run and a real server."""

import os
import re
import subprocess
import sys
import unittest

import support
from support import Served
from mpdf import features


def run_example(name, *args):
    p = subprocess.run([sys.executable, os.path.join(support.EXAMPLES, name), *args], cwd=support.tmpdir(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


class Examples(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support.mpdf_bin()
        cls.rundir = support.trained_run(features.FEATURE_VERSION_V2, "--iterations", "3", "--best-metric", "-sft_loss")
        cls.served = Served(os.path.join(cls.rundir, "best.mpdf"))

    @classmethod
    def tearDownClass(cls):
        code = cls.served.stop()
        assert code == 0, "mpdf serve exited with %d after SIGTERM" % code

    def test_serve_client(self):
        code, out, err = run_example("serve_client.py", "--url", self.served.url)
        self.assertEqual(code, 0, err)
        self.assertIn("serving mpdf-features/v2 (step 0, given)", out)
        self.assertIn("team answer 42", out)
        self.assertEqual(len(re.findall(r"^agent \d: (persist|refine|concede) ", out, re.M)), 3, out)

    def test_pytorch_policy(self):
        try:
            import torch  # noqa: F401
        except ImportError:
            support.skip("no torch")
        weights = os.path.join(self.rundir, "policy.safetensors")
        code, out, err = run_example("pytorch_policy.py", weights, "--server", self.served.url)
        self.assertEqual(code, 0, err)
        self.assertIn("%s: mpdf-features/v2, sizes [40, 32, 32, 3], tanh, step 0, confidence given" % weights, out)
        m = re.search(r"max \|dp\| PyTorch vs mpdf serve: (\S+)", out)
        self.assertIsNotNone(m, out)
        self.assertLessEqual(float(m.group(1)), 1e-5)
        self.assertEqual(len(re.findall(r"serve: (?:persist|refine|concede) ", out)), 10, out)  # 3 + 3 + 4 agents

        # Against a server of another policy (the last step's), it says so.
        last = sorted(f for f in os.listdir(self.rundir) if f.startswith("ckpt-"))[-1]
        other = Served(os.path.join(self.rundir, last))
        try:
            code, out, err = run_example("pytorch_policy.py", weights, "--server", other.url)
        finally:
            self.assertEqual(other.stop(), 0)
        self.assertEqual(code, 1, out)
        self.assertIn("the server runs another policy", err)


if __name__ == "__main__":
    unittest.main()
