"""mpdf.torch on real runs of the Go CLI: the run's policy.safetensors,
loaded in one call as a torch.nn.Module, decides as ``mpdf serve --policy
best.mpdf`` does, and so do the pure-Python policy and the PyTorch module
of ``mpdf export best.mpdf``: one set of weights, four ways to run it.

torch is optional for mpdf: without it these tests skip (fail under CI).
"""

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import unittest

import support
from support import Served
from mpdf import agent, features, policy
from test_policy import corpus

try:
    import torch
    import mpdf.torch as mtorch
except ImportError:
    torch = mtorch = None

# Served (float32 Go kernels), PyTorch (float32) and pure-Python (float64)
# probabilities of one policy agree within this.
TOL = 1e-5


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class OneSetOfWeights(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if torch is None:
            support.skip("no torch")
        support.mpdf_bin()

    def served(self, path):
        s = Served(path)
        self.addCleanup(lambda: self.assertEqual(s.stop(), 0, "mpdf serve exit status after SIGTERM"))
        return s

    def check_run(self, run, deliberations):
        """Holds a run's policy.safetensors (mpdf.torch.load), mpdf export
        best.mpdf (mpdf.policy and mpdf.torch) and mpdf serve --policy
        best.mpdf to each other on the deliberations; returns the largest
        probability difference of each pair with the server, and the
        module."""
        best = os.path.join(run, "best.mpdf")
        weights = os.path.join(run, "policy.safetensors")
        net = mtorch.load(weights)
        self.assertIsInstance(net, torch.nn.Module)
        self.assertFalse(net.training)
        self.assertEqual(net.metadata["mpdf.checkpoint"], "best.mpdf")
        self.assertEqual(net.metadata["mpdf.checkpoint_sha256"], sha256(best))
        self.assertEqual(net.metadata["mpdf.hidden"], "32,32")

        exported = os.path.join(support.tmpdir(), os.path.basename(run) + "-export.safetensors")
        support.run_mpdf("export", best, "--safetensors", exported)
        pure = policy.load(exported)
        enet = mtorch.load(exported)
        self.assertEqual((pure.step, pure.feature_version, pure.activation, pure.confidence_source),
                         (net.step, net.feature_version, net.activation, net.confidence_source))
        # The same float32 numbers, bit for bit.
        for i, layer in enumerate(net.layers):
            self.assertTrue(torch.equal(layer.weight, torch.tensor(pure.weights[i], dtype=torch.float32)), i)
            self.assertTrue(torch.equal(layer.bias, torch.tensor(pure.biases[i], dtype=torch.float32)), i)
            self.assertTrue(torch.equal(layer.weight, enet.layers[i].weight), i)

        s = self.served(best)
        info = s.client.policy()
        self.assertEqual((info["step"], info["feature_version"], info["sizes"]), (net.step, net.feature_version, net.sizes))
        resp = s.client.decide_batch(deliberations)
        worst = {"torch": 0.0, "pure": 0.0, "torch-export": 0.0}
        decisions = 0
        for di, (d, res) in enumerate(zip(deliberations, resp["results"])):
            args = (d["agents"], d["round"], d["rounds"])
            h = d.get("history")
            ways = {"torch": net.decide(*args, history=h), "pure": pure.decide(*args, history=h),
                    "torch-export": enet.decide(*args, history=h)}
            for way, got in ways.items():
                self.assertEqual(len(got), len(res["agents"]))
                for i, ((action, probs), theirs) in enumerate(zip(got, res["agents"])):
                    where = "%s: deliberation %d agent %d (history %s)" % (way, di, i, h is not None)
                    for a in policy.ACTIONS:
                        diff = abs(probs[a] - theirs["probs"][a])
                        worst[way] = max(worst[way], diff)
                        self.assertLessEqual(diff, TOL, "%s %s: %r, serve %r" % (where, a, probs[a], theirs["probs"][a]))
                    top = sorted(theirs["probs"].values())
                    if top[-1] - top[-2] > TOL:
                        self.assertEqual(action, theirs["action"], where)
                    decisions += 1
        self.assertGreater(decisions, 3 * 3 * len(deliberations))
        # The batched forward of features agrees with decide.
        d = deliberations[0]
        x = net.features(d["agents"], d["round"], d["rounds"], d.get("history"))
        width, _ = features.featurizer_for(net.feature_version)
        self.assertEqual((x.dtype, tuple(x.shape)), (torch.float32, (len(d["agents"]), width)))
        # The probabilities are for inference: no gradient, .numpy() as the
        # README shows it.
        p = net.probs(x)
        self.assertFalse(p.requires_grad)
        self.assertEqual(p.numpy().shape, (len(d["agents"]), 3))
        for row, (_, probs) in zip(p.tolist(), net.decide(d["agents"], d["round"], d["rounds"], d.get("history"))):
            self.assertEqual(row, [probs[a] for a in policy.ACTIONS])
        return worst, net

    def test_v2_best_is_not_the_last_step(self):
        # best.mpdf by the supervised loss is the step-0 checkpoint, and
        # the run goes on for 3 iterations: policy.safetensors must be
        # step 0's weights, not the last step's.
        run = support.trained_run(features.FEATURE_VERSION_V2, "--iterations", "3", "--best-metric", "-sft_loss")
        worst, net = self.check_run(run, corpus(21))
        self.assertEqual((net.step, net.feature_version), (0, features.FEATURE_VERSION_V2))
        last = sorted(glob.glob(os.path.join(run, "ckpt-*.mpdf")))[-1]
        out = os.path.join(support.tmpdir(), "last.safetensors")
        support.run_mpdf("export", last, "--safetensors", out)
        lastp = policy.load(out)
        self.assertGreater(lastp.step, 0)
        self.assertNotEqual(lastp.weights, [w.tolist() for w in (l.weight for l in net.layers)],
                            "the last step's weights equal best.mpdf's: the test cannot tell them apart")

    def test_v1_default_metric(self):
        run = support.trained_run(features.FEATURE_VERSION, "--iterations", "2")
        worst, net = self.check_run(run, corpus(22, count=150))
        self.assertEqual((net.feature_version, net.sizes[0], net.confidence_source),
                         (features.FEATURE_VERSION, features.FEATURE_WIDTH, "given"))
        self.assertGreater(net.step, 0)

    def test_attention_run(self):
        # An attention run (arch attention, peers-v1): its policy.safetensors,
        # its export and the server are one policy, the attention
        # projections bit for bit the same.
        run = support.trained_run(features.FEATURE_VERSION_PEERS, "--arch", "attention", "--iterations", "2")
        worst, net = self.check_run(run, corpus(25, count=100))
        self.assertIsInstance(net, mtorch.AttentionPolicy)
        self.assertEqual((net.feature_version, net.metadata["arch"]), (features.FEATURE_VERSION_PEERS, "attention"))
        exported = os.path.join(support.tmpdir(), os.path.basename(run) + "-export.safetensors")
        pure = policy.load(exported)
        for name in ("q", "k", "v"):
            w, b = pure.attn[name]
            self.assertTrue(torch.equal(getattr(net.attn, name).weight, torch.tensor(w, dtype=torch.float32)), name)
            self.assertTrue(torch.equal(getattr(net.attn, name).bias, torch.tensor(b, dtype=torch.float32)), name)

    def test_stale_weights_refused(self):
        # A run stopped between writing best.mpdf and policy.safetensors:
        # the recorded SHA-256 no longer matches, and load says so.
        src = support.trained_run(features.FEATURE_VERSION, "--iterations", "2")
        run = os.path.join(support.tmpdir(), "stale")
        shutil.copytree(src, run)
        last = sorted(glob.glob(os.path.join(run, "ckpt-*.mpdf")))[0]
        shutil.copyfile(last, os.path.join(run, "best.mpdf"))
        weights = os.path.join(run, "policy.safetensors")
        with self.assertRaises(ValueError) as e:
            mtorch.load(weights)
        for s in (weights, "best.mpdf", "SHA-256", "mpdf export"):
            self.assertIn(s, str(e.exception))
        self.assertEqual(mtorch.load(weights, check_checkpoint=False).sizes, [26, 32, 32, 3])
        with self.assertRaises(ValueError) as e:
            mtorch.load(os.path.join(run, "best.mpdf"))
        self.assertIn("an mpdf checkpoint, not safetensors", str(e.exception))

    def test_module_from_pure_policy(self):
        # from_policy, a hand-made v1 network, relu: the module computes
        # the pure policy's probabilities; features are checked as serve
        # checks them.
        p = policy.random_policy([features.FEATURE_WIDTH, 16, 3], seed=5, scale=3.0, activation="relu")
        net = mtorch.from_policy(p)
        for d in corpus(23, count=40):
            a = (d["agents"], d["round"], d["rounds"])
            for (x, px), (y, py) in zip(net.decide(*a, history=d.get("history")), p.decide(*a, history=d.get("history"))):
                for k in policy.ACTIONS:
                    self.assertLessEqual(abs(px[k] - py[k]), TOL)
        with self.assertRaises(ValueError) as e:
            net.features([agent("1"), agent("2", 1.4)], 1, 2)
        self.assertIn("agents[1].confidence", str(e.exception))


class Lazy(unittest.TestCase):
    def test_import_mpdf_does_not_import_torch(self):
        code = ("import sys, mpdf; mpdf.policy.random_policy([26, 4, 3]); mpdf.Client('http://127.0.0.1:1'); "
                "assert 'torch' not in sys.modules, 'torch imported'; print(mpdf.__file__)")
        p = subprocess.run([sys.executable, "-c", code], cwd=support.tmpdir(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_without_torch(self):
        # Where torch is missing (sys.modules["torch"] = None stands for
        # that), mpdf works and mpdf.torch says what to install.
        code = ("import sys; sys.modules['torch'] = None\n"
                "import mpdf; mpdf.policy.random_policy([26, 4, 3])\n"
                "try:\n    import mpdf.torch\nexcept ImportError as e:\n    print(e)\n")
        p = subprocess.run([sys.executable, "-c", code], cwd=support.tmpdir(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("mpdf.torch needs PyTorch (pip install 'mpdf[torch]'", p.stdout)


if __name__ == "__main__":
    unittest.main()
