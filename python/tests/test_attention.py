"""The attention policy (``arch: attention``, mpdf-features/peers-v1;
ATTENTION.md §2-§3) in pure Python and as a torch module: a forward
worked out by hand, invariance to the order of the peer slots, the two
implementations on one safetensors file, and the file's checks.

Its comparison with ``mpdf serve`` is in test_policy.py (MatchesServe).
"""

import json
import math
import os
import random
import struct
import unittest

import support
from mpdf import agent, features, policy
from test_policy import corpus

try:
    import torch
    import mpdf.torch as mtorch
except ImportError:
    torch = mtorch = None

OWN, PEER, SLOTS = features.FEATURE_WIDTH, features.PEER_WIDTH, features.PEER_SLOTS


def hand_policy():
    """d = 2, a one-layer MLP. q = (has_answer, has_answer); k_j = 2·conf_j
    in both coordinates, so q·k_j/sqrt(2) = 4·conf_j/sqrt(2) for an agent with
    an answer; v_j = (agrees_j, 0.5). Logits: persist = c_0 + c_1, refine =
    has_answer, concede = 0."""
    zeros = lambda n: [0.0] * n  # noqa: E731

    def row(n, at, v):
        r = zeros(n)
        r[at] = v
        return r

    attn = {
        "q": ([row(OWN, 0, 1.0), row(OWN, 0, 1.0)], [0.0, 0.0]),
        "k": ([row(PEER, 5, 2.0), row(PEER, 5, 2.0)], [0.0, 0.0]),
        "v": ([row(PEER, 2, 1.0), zeros(PEER)], [0.0, 0.5]),
    }
    persist = zeros(OWN + 2)
    persist[OWN] = persist[OWN + 1] = 1.0
    w = [persist, row(OWN + 2, 0, 1.0), zeros(OWN + 2)]
    return policy.AttentionPolicy(attn, [w], [[0.0, 0.0, 0.0]], feature_version=features.FEATURE_VERSION_PEERS)


def softmax3(z):
    e = [math.exp(v) for v in z]
    return [v / sum(e) for v in e]


def permute_slots(x, perm):
    """x with peer slot j moved to slot perm[j]."""
    y = list(x)
    for j, to in enumerate(perm):
        y[OWN + PEER * to:OWN + PEER * (to + 1)] = x[OWN + PEER * j:OWN + PEER * (j + 1)]
    return y


def rows(seed, count=120):
    """Feature rows of random deliberations of 2 to 8 agents."""
    rng = random.Random(seed)
    out = []
    for d in corpus(seed, count):
        n = len(d["agents"])
        agents = d["agents"] + [agent(rng.choice(["", "1", "2"]), rng.random()) for _ in range(rng.randrange(2) * (8 - n))]
        flat = policy._check(agents, d["round"], d["rounds"], None)
        for i in range(len(flat)):
            out.append(features.featurize_peers(flat, i, d["round"], d["rounds"]))
    return out


class ByHand(unittest.TestCase):
    def test_two_peers(self):
        p = hand_policy()
        # Agent 0 ("1", readable): peer 1 agrees at confidence 0.5, peer 2
        # does not, at confidence 0: scores 4·0.5/sqrt(2) = sqrt(2) and 0.
        agents = [agent("1", 0.9), agent("1", 0.5), agent("2", 0.0)]
        a1 = math.exp(math.sqrt(2)) / (math.exp(math.sqrt(2)) + 1)
        c = (a1 * 1 + (1 - a1) * 0, 0.5)  # the five absent slots weigh nothing
        want = softmax3([c[0] + c[1], 1.0, 0.0])
        _, got = p.decide(agents, 1, 2)[0]
        for a, w in zip(policy.ACTIONS, want):
            self.assertAlmostEqual(got[a], w, places=12, msg=a)
        x = p.features(agents, 0, 1, 2)
        xs, ctx = p.context(x)
        self.assertEqual(xs, x[:OWN])
        self.assertAlmostEqual(ctx[0], a1, places=12)
        self.assertAlmostEqual(ctx[1], 0.5, places=12)
        # Without an answer q = 0: the present peers weigh equally (1/2
        # each), and neither agrees with an unreadable answer.
        _, got = p.decide([agent("", 0.9), agent("1", 0.5), agent("2", 0.0)], 1, 2)[0]
        want = softmax3([0.0 + 0.5, 0.0, 0.0])
        for a, w in zip(policy.ACTIONS, want):
            self.assertAlmostEqual(got[a], w, places=12, msg=a)

    def test_one_peer_and_none(self):
        p = hand_policy()
        # One peer: it weighs 1 whatever its score.
        _, got = p.decide([agent("3", 0.2), agent("3", 0.7)], 1, 2)[0]
        want = softmax3([1.0 + 0.5, 1.0, 0.0])
        for a, w in zip(policy.ACTIONS, want):
            self.assertAlmostEqual(got[a], w, places=12, msg=a)
        # No slot present (a row the featurizer never writes): c = 0.
        x = [0.0] * 110
        x[0] = 1.0
        self.assertEqual(p.context(x)[1], [0.0, 0.0])
        self.assertEqual(p.logits(x), [0.0, 1.0, 0.0])

    @unittest.skipIf(torch is None, "no torch")
    def test_module_by_hand(self):
        net = mtorch.from_policy(hand_policy()).double()
        agents = [agent("1", 0.9), agent("1", 0.5), agent("2", 0.0)]
        a1 = math.exp(math.sqrt(2)) / (math.exp(math.sqrt(2)) + 1)
        want = softmax3([a1 + 0.5, 1.0, 0.0])
        with torch.no_grad():
            got = net.probs(net.features(agents, 1, 2))[0].tolist()
            # A row without peers is finite, its context 0.
            x = torch.zeros(1, 110, dtype=torch.float64)
            x[0, 0] = 1
            self.assertEqual(net(x)[0].tolist(), [0.0, 1.0, 0.0])
        for g, w in zip(got, want):
            self.assertAlmostEqual(g, w, places=12)


class Invariance(unittest.TestCase):
    """The output does not depend on which slot holds which peer, nor on
    where the absent (all-zero) slots lie among them."""

    def test_pure(self):
        p = policy.random_attention_policy((16,), 8, seed=11, scale=3.0)
        rng = random.Random(12)
        moved = 0
        for x in rows(13, 60):
            perm = list(range(SLOTS))
            rng.shuffle(perm)
            y = permute_slots(x, perm)
            moved += y != x
            px, py = p.probs(x), p.probs(y)
            for a in policy.ACTIONS:
                self.assertAlmostEqual(px[a], py[a], delta=1e-12)
        self.assertGreater(moved, 100)

    @unittest.skipIf(torch is None, "no torch")
    def test_module(self):
        net = mtorch.from_policy(policy.random_attention_policy((16,), 8, seed=14, scale=3.0))
        rng = random.Random(15)
        xs = rows(16, 60)
        x = torch.tensor(xs, dtype=torch.float32)
        y = torch.tensor([permute_slots(r, rng.sample(range(SLOTS), SLOTS)) for r in xs], dtype=torch.float32)
        with torch.no_grad():
            self.assertLess((net.probs(x) - net.probs(y)).abs().max().item(), 1e-6)

    def test_peers_matter(self):
        # The invariance is not that of a network ignoring its peers:
        # changing one peer's confidence moves the output.
        p = policy.random_attention_policy((16,), 8, seed=11, scale=3.0)
        x = features.featurize_peers([{"answer": "1"}, {"answer": "2", "confidence": 0.1},
                                      {"answer": "1", "confidence": 0.9}], 0, 1, 2)
        y = list(x)
        y[OWN + PEER + 5] = 0.2
        self.assertGreater(abs(p.probs(x)["persist"] - p.probs(y)["persist"]), 1e-4)


class OneFile(unittest.TestCase):
    """A safetensors file of random weights in the §3 layout, written by
    mpdf.policy.save, read by mpdf.policy.load and mpdf.torch.load."""

    def setUp(self):
        self.path = os.path.join(support.tmpdir(), "attention-%s.safetensors" % self._testMethodName)
        self.pol = policy.random_attention_policy((32, 16), 16, seed=21, scale=3.0, activation="relu")
        policy.save(self.path, self.pol)

    def header(self):
        with open(self.path, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            return json.loads(f.read(n))

    def test_layout(self):
        h = self.header()
        meta = h.pop("__metadata__")
        self.assertEqual((meta["arch"], meta["attn_dim"], meta["feature_version"], meta["activation"]),
                         ("attention", "16", features.FEATURE_VERSION_PEERS, "relu"))
        self.assertEqual({k: v["shape"] for k, v in h.items()}, {
            "attn.q.weight": [16, 26], "attn.q.bias": [16],
            "attn.k.weight": [16, 12], "attn.k.bias": [16],
            "attn.v.weight": [16, 12], "attn.v.bias": [16],
            "layers.0.weight": [32, 42], "layers.0.bias": [32],
            "layers.1.weight": [16, 32], "layers.1.bias": [16],
            "layers.2.weight": [3, 16], "layers.2.bias": [3],
        })
        p = policy.load(self.path)
        self.assertIsInstance(p, policy.AttentionPolicy)
        self.assertEqual((p.arch, p.attn_dim, p.sizes), ("attention", 16, [42, 32, 16, 3]))
        self.assertEqual(p.state_dict(), self.pol.state_dict())

    @unittest.skipIf(torch is None, "no torch")
    def test_pure_and_module_agree(self):
        pure = policy.load(self.path)
        net = mtorch.load(self.path)
        self.assertIsInstance(net, mtorch.AttentionPolicy)
        self.assertFalse(net.training)
        # The module's state_dict keys are the file's tensor names, and a
        # fresh module loads the file's tensors by them.
        names = set(self.header()) - {"__metadata__"}
        self.assertEqual(set(net.state_dict()), names)
        fresh = mtorch.AttentionPolicy(net.sizes, net.attn_dim, "relu")
        fresh.load_state_dict({k: torch.tensor(v) for k, v in pure.state_dict().items()})
        for k, v in net.state_dict().items():
            self.assertTrue(torch.equal(v, fresh.state_dict()[k]), k)
        worst = 0.0
        ds = corpus(24, 150) + [{"agents": [agent(str(i % 3), 0.1 * i) for i in range(8)], "round": 1, "rounds": 2}]
        for d in ds:
            a = (d["agents"], d["round"], d["rounds"])
            for (x, px), (y, py) in zip(pure.decide(*a, history=d.get("history")), net.decide(*a, history=d.get("history"))):
                for k in policy.ACTIONS:
                    worst = max(worst, abs(px[k] - py[k]))
        self.assertLessEqual(worst, 1e-6)
        self.assertGreater(worst, 0)  # float32 against float64: not one computation twice

    def test_refused(self):
        def rewrite(name, **meta):
            with open(self.path, "rb") as f:
                data = f.read()
            (n,) = struct.unpack_from("<Q", data)
            h = json.loads(data[8:8 + n])
            for k, v in meta.items():
                if v is None:
                    h["__metadata__"].pop(k)
                else:
                    h["__metadata__"][k] = v
            hb = json.dumps(h).encode()
            hb += b" " * (-len(hb) % 8)
            path = os.path.join(support.tmpdir(), name)
            with open(path, "wb") as f:
                f.write(struct.pack("<Q", len(hb)) + hb + data[8 + n:])
            return path

        for path, parts in [
            (rewrite("arch.safetensors", arch="transformer"), ["__metadata__.arch", "'transformer'"]),
            (rewrite("dim.safetensors", attn_dim="8"), ["__metadata__.attn_dim", "'8'", "16 rows"]),
            (rewrite("v1.safetensors", feature_version=features.FEATURE_VERSION),
             ["__metadata__.arch", "attention reads mpdf-features/peers-v1"]),
            # Without arch, the file is an MLP, whose layers.0 cannot read
            # 110 features, and the attn tensors are left over.
            (rewrite("noarch.safetensors", arch=None, attn_dim=None), ["layers.0.weight", "shape [32, 42]"]),
        ]:
            with self.assertRaises(ValueError, msg=path) as e:
                policy.load(path)
            for s in [path] + parts:
                self.assertIn(s, str(e.exception))
        # Nine agents are refused by the layout, naming it.
        with self.assertRaises(ValueError) as e:
            self.pol.decide([agent("1")] * 9, 1, 2)
        self.assertIn("agents: 9 agents: the policy reads mpdf-features/peers-v1, which holds at most 8", str(e.exception))


if __name__ == "__main__":
    unittest.main()
