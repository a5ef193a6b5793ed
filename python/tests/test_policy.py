"""mpdf.policy against ``mpdf serve``: a policy file of either feature
layout decides in pure Python as the server decides the same requests.

The v2 policies are one trained and exported by the Go CLI (``mpdf train
--features mpdf-features/v2``, ``mpdf export``) and one random network
written by mpdf.policy.save; each is served, and the probabilities of
hundreds of random deliberations, with and without a history, are compared.
"""

import os
import random
import unittest

import support
from support import Served
from mpdf import MpdfError, agent, features, policy

# Probabilities of the server (float32 network) and of mpdf.policy (float64
# network on the same float32-rounded features) agree within this.
TOL = 1e-6

POOL = ["", "1", "2", "3", "A"]


def random_deliberation(rng, history):
    """A request deliberation of the shapes serve's tests draw
    (serve/helpers_test.go randomDeliberation): 2-7 agents, answers from a
    small pool ("" = none), confidences missing, tied at 0.5 or uniform,
    profiles for two agents in three; with a random history consistent with
    the agents (its last row their answers) when asked."""
    n = 2 + rng.randrange(6)
    rounds = 1 + rng.randrange(4)
    rnd = 1 + rng.randrange(rounds)
    agents = []
    for _ in range(n):
        k = rng.randrange(4)
        conf = None if k == 0 else 0.5 if k == 1 else rng.random()
        prof = None
        if rng.randrange(3) > 0:
            prof = {"steps": rng.randrange(20), "tokens": rng.randrange(3000), "hedges": rng.randrange(5)}
            if rng.randrange(2) == 0:
                prof["self_confidence"] = rng.random()
        agents.append(agent(rng.choice(POOL), conf, profile=prof))
    d = {"round": rnd, "rounds": rounds, "agents": agents}
    if history:
        rows = [[rng.choice(POOL) for _ in range(n)] for _ in range(rnd - 1)]
        d["history"] = rows + [[a["answer"] for a in agents]]
    return d


def corpus(seed, count=300):
    """count random deliberations, two in three with a history."""
    rng = random.Random(seed)
    return [random_deliberation(rng, i % 3 > 0) for i in range(count)]


class MatchesServe(unittest.TestCase):
    """Each test serves one policy file and compares mpdf.policy's
    decisions on a corpus with the server's."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = support.tmpdir()
        support.mpdf_bin()

    def served(self, path):
        s = Served(path)
        self.addCleanup(lambda: self.assertEqual(s.stop(), 0, "mpdf serve exit status after SIGTERM"))
        return s

    def assert_matches(self, path, deliberations):
        """mpdf.policy.load(path) decides every deliberation as the server
        serving path does; returns the largest probability difference."""
        p = policy.load(path)
        s = self.served(path)
        self.assertEqual(s.client.policy()["feature_version"], p.feature_version)
        resp = s.client.decide_batch(deliberations)
        self.assertEqual(resp["feature_version"], p.feature_version)
        worst, decisions = 0.0, 0
        for di, (d, res) in enumerate(zip(deliberations, resp["results"])):
            mine = p.decide(d["agents"], d["round"], d["rounds"], history=d.get("history"))
            self.assertEqual(len(mine), len(res["agents"]))
            for i, ((action, probs), theirs) in enumerate(zip(mine, res["agents"])):
                where = "deliberation %d agent %d (history %s)" % (di, i, "history" in d)
                for a in policy.ACTIONS:
                    diff = abs(probs[a] - theirs["probs"][a])
                    worst = max(worst, diff)
                    self.assertLessEqual(diff, TOL, "%s %s: python %r, serve %r" % (where, a, probs[a], theirs["probs"][a]))
                # Equal greedy actions, unless the server's top two are
                # within TOL of each other (then float32 may pick either).
                top = sorted(theirs["probs"].values())
                if top[-1] - top[-2] > TOL:
                    self.assertEqual(action, theirs["action"], where)
                decisions += 1
        self.assertGreater(decisions, 3 * len(deliberations))
        return p, worst

    def test_trained_v2(self):
        # What a user has: a v2 run of the Go CLI, exported.
        run = os.path.join(self.tmp, "run-v2")
        support.run_mpdf("train", "-q", "--out", run, "--seed", "3", "--features", features.FEATURE_VERSION_V2,
                         "--hidden", "32,32", "--sft-epochs", "2", "--tasks-per-iter", "6", "--episodes-per-task", "3",
                         "--batch-size", "32", "--update-epochs", "2", "--eval-tasks", "0", "--iterations", "2")
        path = os.path.join(self.tmp, "trained-v2.safetensors")
        support.run_mpdf("export", os.path.join(run, "best.mpdf"), "--safetensors", path)
        p, _ = self.assert_matches(path, corpus(1))
        self.assertEqual((p.feature_version, p.sizes), (features.FEATURE_VERSION_V2, [40, 32, 32, 3]))
        self.assertIn("mpdf.step", p.metadata)
        self.assertEqual(p.confidence_source, "given")  # trained on the simulator

    def test_random_v2_reads_history(self):
        # A random network with large weights: decisive probabilities that
        # depend on every feature, the history ones among them.
        pol = policy.random_policy([features.FEATURE_WIDTH_V2, 32, 32, 3], seed=15, scale=3.0)
        self.assertEqual(pol.feature_version, features.FEATURE_VERSION_V2)
        path = os.path.join(self.tmp, "random-v2.safetensors")
        policy.save(path, pol)
        ds = corpus(2)
        p, _ = self.assert_matches(path, ds)
        # Without the history, the same deliberations decide otherwise
        # somewhere: the history reaches the network.
        bare = [{k: v for k, v in d.items() if k != "history"} for d in ds]
        moved = 0
        for d, b in zip(ds, bare):
            if "history" not in d:
                continue
            with_h = p.decide(d["agents"], d["round"], d["rounds"], history=d["history"])
            without = p.decide(b["agents"], b["round"], b["rounds"])
            moved += sum(abs(x[1]["persist"] - y[1]["persist"]) > 1e-3 for x, y in zip(with_h, without))
        self.assertGreater(moved, 50)
        self.assert_matches(path, bare)

    def test_random_v1(self):
        # A v1 file decides as before, history given or not.
        path = os.path.join(self.tmp, "random-v1.safetensors")
        policy.save(path, policy.random_policy([features.FEATURE_WIDTH, 16, 3], seed=4, scale=3.0, activation="relu"))
        p, _ = self.assert_matches(path, corpus(3, count=150))
        self.assertEqual((p.feature_version, p.activation), (features.FEATURE_VERSION, "relu"))


def with_eight(ds, seed):
    """ds and, for every third deliberation, a copy grown to 8 agents (the
    most peers-v1 holds; random_deliberation draws up to 7), its history
    dropped."""
    rng = random.Random(seed)
    out = list(ds)
    for d in ds[::3]:
        agents = list(d["agents"])
        while len(agents) < 8:
            agents.append(agent(rng.choice(POOL), rng.choice([None, 0.5, rng.random()])))
        out.append({"round": d["round"], "rounds": d["rounds"], "agents": agents})
    return out


class AttentionMatchesServe(unittest.TestCase):
    """The attention policy (arch attention, mpdf-features/peers-v1) decides
    in pure Python as ``mpdf serve`` decides: a random one written by
    mpdf.policy.save, and one trained and exported by the Go CLI."""

    setUpClass = MatchesServe.__dict__["setUpClass"]
    served = MatchesServe.served
    assert_matches = MatchesServe.assert_matches

    def test_random_attention(self):
        pol = policy.random_attention_policy((32, 16), 16, seed=31, scale=3.0)
        path = os.path.join(self.tmp, "random-attention.safetensors")
        policy.save(path, pol)
        p, _ = self.assert_matches(path, with_eight(corpus(31, count=200), 32))
        self.assertIsInstance(p, policy.AttentionPolicy)
        # Nine agents: both refuse, the layout holds at most eight.
        nine = [agent(str(i % 2)) for i in range(9)]
        with self.assertRaises(ValueError) as mine:
            p.decide(nine, 1, 2)
        s = self.served(path)
        info = s.client.policy()
        self.assertEqual((info["sizes"], info["attn_dim"]), (p.sizes, p.attn_dim))
        with self.assertRaises(MpdfError) as theirs:
            s.client.decide(nine, round=1, rounds=2)
        self.assertEqual((theirs.exception.status, theirs.exception.field), (400, "agents"))
        want = "agents: 9 agents: the policy reads mpdf-features/peers-v1, which holds at most 8"
        self.assertEqual((str(mine.exception), str(theirs.exception)), (want, want))

    def test_mlp_over_peers(self):
        # An MLP may read peers-v1 too (a file without arch): every one of
        # the 110 features reaches it as the server computes them.
        path = os.path.join(self.tmp, "mlp-peers.safetensors")
        policy.save(path, policy.random_policy([features.FEATURE_WIDTH_PEERS, 16, 3], seed=5, scale=3.0))
        p, _ = self.assert_matches(path, with_eight(corpus(35, count=100), 36))
        self.assertEqual((type(p), p.feature_version, p.arch), (policy.Policy, features.FEATURE_VERSION_PEERS, "mlp"))

    def test_trained_attention(self):
        run = support.trained_run(features.FEATURE_VERSION_PEERS, "--arch", "attention", "--iterations", "2")
        path = os.path.join(self.tmp, "trained-attention.safetensors")
        support.run_mpdf("export", os.path.join(run, "best.mpdf"), "--safetensors", path)
        p, _ = self.assert_matches(path, with_eight(corpus(33, count=150), 34))
        self.assertIsInstance(p, policy.AttentionPolicy)
        self.assertEqual((p.feature_version, p.metadata["arch"], p.sizes[1:]),
                         (features.FEATURE_VERSION_PEERS, "attention", [32, 32, 3]))
        self.assertEqual(p.sizes[0], features.FEATURE_WIDTH + p.attn_dim)


class LoadRefuses(unittest.TestCase):
    def setUp(self):
        self.dir = support.tmpdir()

    def write(self, name, pol, **meta):
        path = os.path.join(self.dir, name)
        policy.save(path, pol)
        if meta:
            # Rewrite the metadata as another writer might have.
            import json
            import struct
            with open(path, "rb") as f:
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
            with open(path, "wb") as f:
                f.write(struct.pack("<Q", len(hb)) + hb + data[8 + n:])
        return path

    def assert_refused(self, path, *parts):
        with self.assertRaises(ValueError) as e:
            policy.load(path)
        for s in (path,) + parts:
            self.assertIn(s, str(e.exception))

    def test_feature_version(self):
        v2 = policy.random_policy([40, 8, 3], seed=1)
        self.assert_refused(self.write("v9.safetensors", v2, feature_version="mpdf-features/v9"),
                            "__metadata__.feature_version", "'mpdf-features/v9'", "mpdf-features/v2")
        self.assert_refused(self.write("none.safetensors", v2, feature_version=None),
                            "__metadata__.feature_version absent")
        # A v1-wide network labelled v2.
        self.assert_refused(self.write("wide.safetensors", policy.random_policy([26, 8, 3], seed=1),
                                       feature_version=features.FEATURE_VERSION_V2),
                            "layers.0.weight", "shape [8, 26]", "mpdf-features/v2 reads 40 features")

    def test_confidence_source(self):
        pol = policy.random_policy([26, 4, 3], seed=1)
        for v, want in (("text-critic", "text-critic"), ("none", "none"), (None, "unknown"), ("bogus", "unknown")):
            path = self.write("conf-%s.safetensors" % v, pol, **{"mpdf.confidence_source": v} if v else {})
            self.assertEqual(policy.load(path).confidence_source, want, v)

    def test_malformed(self):
        path = os.path.join(self.dir, "short.safetensors")
        with open(path, "wb") as f:
            f.write(b"\x10\x00\x00")
        self.assert_refused(path, "3 bytes")
        with open(path, "wb") as f:
            f.write(b"\xff" * 16)
        self.assert_refused(path, "offset 0: header of")
        good = self.write("good.safetensors", policy.random_policy([26, 4, 3], seed=2))
        with open(good, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[:-4])
        self.assert_refused(path, "layers.1.weight: data_offsets")

    def test_decide_names_the_field(self):
        p = policy.random_policy([40, 8, 3], seed=3)
        agents = [agent("1", 0.5), agent("2"), agent("2", 0.9)]
        for kwargs, field in [
            (dict(agents=[agent("1"), agent("2", 1.4)]), "agents[1].confidence: 1.4 outside [0,1]"),
            (dict(agents=[agent("1"), agent("2", float("nan"))]), "agents[1].confidence"),
            (dict(agents=[agent("1"), agent("2", profile={"steps": -1})]), "agents[1].profile.steps"),
            (dict(agents=[agent("1"), agent(text="\\boxed{2}")]), "agents[1].text"),
            (dict(agents=[agent("1")]), "agents: 1 agent(s)"),
            (dict(round=3), "round: 3 outside [1, rounds=2]"),
            (dict(history=[["1", "1", "2"]]), "history: 1 rounds, want round=2"),
            (dict(history=[["1", "1"], ["1", "2", "2"]]), "history[0]: 2 answers for 3 agents"),
            (dict(history=[["1", "1", "2"], ["1", "2", "3"]]), "history[1][2]: '3', but agents[2]'s answer is '2'"),
        ]:
            args = dict(agents=agents, round=2, rounds=2, history=None)
            args.update(kwargs)
            with self.assertRaises(ValueError, msg=field) as e:
                p.decide(args["agents"], args["round"], args["rounds"], history=args["history"])
            self.assertIn(field, str(e.exception))
        # Client-style and flat agents are the same input.
        flat = [{"answer": "1", "confidence": 0.5, "steps": 3}, {"answer": "2"}]
        nested = [agent("1", 0.5, profile={"steps": 3}), agent("2")]
        self.assertEqual(p.decide(flat, 1, 2), p.decide(nested, 1, 2))


if __name__ == "__main__":
    unittest.main()


class DecoupledMatchesServe(unittest.TestCase):
    """A run with a network per agent slot: its policy.safetensors loads
    as a DecoupledPolicy (and as a torch module) that decides every agent
    with its own network as the server does; the networks differ."""

    setUpClass = MatchesServe.__dict__["setUpClass"]
    served = MatchesServe.served
    assert_matches = MatchesServe.assert_matches

    def test_trained_slot(self):
        run = support.trained_run(features.FEATURE_VERSION, "--iterations", "2", "--agent-policy", "slot")
        path = os.path.join(run, "policy.safetensors")
        p, _ = self.assert_matches(path, corpus(5, count=150))
        self.assertIsInstance(p, policy.DecoupledPolicy)
        self.assertEqual((p.agent_policy, p.keys), ("slot", ["slot:0", "slot:1", "slot:2"]))
        self.assertNotEqual(p.nets[0].weights, p.nets[1].weights)
        # Agent 3 has no network: the fallback decides for it.
        d = corpus(6, count=40)
        four = [x for x in d if len(x["agents"]) >= 4][0]
        got = p.decide(four["agents"], four["round"], four["rounds"], four.get("history"))
        want = p.fallback.probs(p.features(four["agents"], 3, four["round"], four["rounds"], four.get("history")))
        self.assertEqual(got[3][1], want)
        try:
            import mpdf.torch as mtorch
        except ImportError:
            return
        net = mtorch.load(path)
        for x in d:
            for (a, pr), (b, pt) in zip(p.decide(x["agents"], x["round"], x["rounds"], x.get("history")),
                                        net.decide(x["agents"], x["round"], x["rounds"], x.get("history"))):
                for k in policy.ACTIONS:
                    self.assertLessEqual(abs(pr[k] - pt[k]), 1e-5)

    def test_trained_paper_recipe(self):
        # mpdf train --recipe paper: a network per slot, each an attention
        # network over peers-v1, trained with rank-match. Its
        # policy.safetensors and `mpdf export` of best.mpdf decide as the
        # server does, in pure Python and in torch, each agent by its own
        # network.
        run = support.trained_run(features.FEATURE_VERSION_PEERS, "--iterations", "2", "--recipe", "paper")
        exported = os.path.join(self.tmp, "paper-best.safetensors")
        support.run_mpdf("export", os.path.join(run, "best.mpdf"), "--safetensors", exported)
        d = corpus(8, count=120)
        for path in (os.path.join(run, "policy.safetensors"), exported):
            p, _ = self.assert_matches(path, d)
            self.assertIsInstance(p, policy.DecoupledPolicy)
            self.assertEqual((p.agent_policy, p.keys), ("slot", ["slot:0", "slot:1", "slot:2"]))
            self.assertTrue(all(isinstance(n, policy.AttentionPolicy) for n in p.nets + [p.fallback]))
            self.assertEqual(p.feature_version, features.FEATURE_VERSION_PEERS)
            # The networks differ, so each agent's row is its own network's.
            self.assertNotEqual(p.nets[0].attn, p.nets[1].attn)
            three = [x for x in d if len(x["agents"]) >= 3][0]
            got = p.decide(three["agents"], three["round"], three["rounds"], three.get("history"))
            for i in range(3):
                own = p.nets[i].probs(p.features(three["agents"], i, three["round"], three["rounds"], three.get("history")))
                self.assertEqual(got[i][1], own)
            try:
                import mpdf.torch as mtorch
            except ImportError:
                continue
            net = mtorch.load(path)
            self.assertIsInstance(net.nets[0], mtorch.AttentionPolicy)
            for x in d:
                for (a, pr), (b, pt) in zip(p.decide(x["agents"], x["round"], x["rounds"], x.get("history")),
                                            net.decide(x["agents"], x["round"], x["rounds"], x.get("history"))):
                    for k in policy.ACTIONS:
                        self.assertLessEqual(abs(pr[k] - pt[k]), 1e-5)

    def test_no_model_is_fallback(self):
        # By model, an agent naming no model gets the fallback, even beside
        # a network keyed "model:" (an old run's, of the agents of unknown
        # model), as mpdf serve and the Go trainer decide.
        nets = [policy.random_policy([features.FEATURE_WIDTH, 8, 3], seed=s, scale=3.0) for s in (1, 2)]
        fallback = policy.random_policy([features.FEATURE_WIDTH, 8, 3], seed=3, scale=3.0)
        p = policy.DecoupledPolicy("model", ["model:a", "model:"], nets, fallback)
        agents = [agent("1", 0.5, model="a"), agent("2"), agent("1", model="")]
        self.assertEqual([p.key(agents, i) for i in range(3)], ["model:a", None, None])
        got = p.decide(agents, 1, 2)
        for i, net in ((0, nets[0]), (1, fallback), (2, fallback)):
            self.assertEqual(got[i][1], net.probs(p.features(agents, i, 1, 2)), i)
        self.assertNotEqual(got[1][1], nets[1].probs(p.features(agents, 1, 1, 2)))
        try:
            import mpdf.torch as mtorch
        except ImportError:
            return
        self.assertEqual(mtorch.from_policy(p).network_index(agents), [0, 2, 2])

    def test_model_field_checked(self):
        p = policy.random_policy([features.FEATURE_WIDTH, 8, 3], seed=1)
        with self.assertRaisesRegex(ValueError, r"agents\[1\]\.model"):
            p.decide([agent("1"), agent("2", model="x" * 257)], round=1, rounds=2)
