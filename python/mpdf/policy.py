"""A policy exported as safetensors, run in pure Python.

``mpdf train`` writes ``policy.safetensors`` beside its checkpoints, and
``mpdf export CKPT --safetensors policy.safetensors`` exports any checkpoint:
the network as ``layers.{i}.weight`` [out, in] and ``layers.{i}.bias``
float32 tensors (the layout of a stack of ``torch.nn.Linear``), and in the
metadata the hidden activation and the feature layout the policy reads
(``feature_version``: ``mpdf-features/v1``, ``v2`` or ``peers-v1``).

An attention policy (``mpdf train --arch attention``; metadata ``arch:
attention``, ``attn_dim: d``, feature_version ``mpdf-features/peers-v1``)
adds ``attn.q.weight`` [d, 26], ``attn.k.weight`` and ``attn.v.weight``
[d, 12] and their biases: the agent's own features attend to its peers'
slots, and the MLP (``layers.0.weight`` [h1, 26 + d]) reads the own
features and the attention's context (:class:`AttentionPolicy`). A file
without ``arch`` is an MLP.

:func:`load` reads such a file with the standard library, and
:meth:`Policy.decide` decides a deliberation as ``mpdf serve`` does for the
same request, featurized with the layout the file records::

    from mpdf import agent, policy
    p = policy.load("runs/pivotal-v2/policy.safetensors")   # any layout, MLP or attention
    p.decide([agent("42", 0.9), agent("41"), agent("42")], round=2, rounds=3,
             history=[["42", "41", ""], ["42", "41", "42"]])
    # one (action, {"persist": p, "refine": p, "concede": p}) per agent

The probabilities agree with the server's within 1e-6 (tests/test_policy.py;
the differences seen are ~1e-7): the features are rounded to float32 as the
server rounds them, then the network runs in float64 here and in float32
there. A v1 policy ignores the history (after checking it, as the server
does); a v2 policy without one sees the past as unknown.

Confidence: a policy trained on a replay with the text critic (``mpdf train
--env 'replay:...,critic=on'``; :attr:`Policy.confidence_source` is
``"text-critic"``, from the ``mpdf.confidence_source`` metadata) learned
from the confidence the Go answer reader's critic reads from each answer's
text (``answer.Critic``: the share of the reasoning's equations that hold).
This package cannot read texts, so it cannot compute that confidence: pass
it in each agent (``agent(answer, confidence)``), or send the raw texts to
``mpdf serve --critic``, which fills it with the same reader the training
used. Given nothing, the policy sees the confidence as missing, which it
saw in training only where the critic had nothing to check: the decisions
drift from those it was trained to make. ``"none"`` (a replay without the
critic) means the policy never saw a confidence: leave it out;
``"given"`` means the simulator's confidence signal.

In PyTorch, ``mpdf.torch.load(path)`` builds the ``torch.nn.Module`` of
the same file (:mod:`mpdf.torch`); :meth:`Policy.state_dict` (or
``safetensors.torch.load_file``) is its state_dict.

A training run's ``policy.safetensors`` holds the weights of its
``best.mpdf`` (the file ``mpdf serve --policy`` serves) and records that
file's name and SHA-256 (``mpdf.checkpoint``, ``mpdf.checkpoint_sha256``)
and its step (``mpdf.step``); :func:`load` checks the SHA-256 when the
checkpoint lies beside the file.

Decoupled agents: a run trained with ``--agent-policy slot`` or ``model``
has a network per agent position or per backbone model. Its file holds
``nets.{k}.layers.*`` (one network each) and ``fallback.layers.*`` (the
supervised policy every network started from), the keys in the
``mpdf.networks`` metadata (``slot:0``, ``model:llama``, ...);
:func:`load` returns a :class:`DecoupledPolicy`, whose :meth:`decide` runs
each agent's network on that agent's own features: by its index (slot), or
by the ``model`` of its :func:`mpdf.agent` (model); an agent no network is
named for, and under model an agent that names no model, gets the
fallback. ``mpdf serve`` decides the same way.
"""

import array
import hashlib
import json
import math
import os
import struct

from . import features

ACTIONS = ("persist", "refine", "concede")

# A header larger than this is refused before it is read (the Go reader's
# limit, checkpoints.maxSafetensorsHeader).
MAX_HEADER = 100 << 20

# The longest agent model name a request may give (serve.MaxModelBytes).
MAX_MODEL_BYTES = 256


def _version_of_width(width):
    for v, (w, _) in features.FEATURIZERS.items():
        if w == width:
            return v
    raise ValueError("mpdf.policy: a network reading %d features matches no known layout (%s); give feature_version"
                     % (width, ", ".join("%s: %d" % (v, w) for v, (w, _) in sorted(features.FEATURIZERS.items()))))


def _greedy(probs):
    """The most probable action of probs ({action: probability}), the
    first of persist, refine, concede on a tie (as ``mpdf serve``)."""
    best = ACTIONS[0]
    for a in ACTIONS[1:]:
        if probs[a] > probs[best]:
            best = a
    return best


def _layout(where, width, feature_version, metadata):
    """The feature version a network of input width reads (feature_version,
    else metadata's, else the layout of that width) and its featurizer; a
    width that is not the version's is a ValueError naming where."""
    version = feature_version or metadata.get("feature_version") or _version_of_width(width)
    want, featurize = features.featurizer_for(version)
    if width != want:
        raise ValueError("%s: network reads %d features, %s has %d" % (where, width, version, want))
    return version, featurize


class _Provenance:
    """What a policy file's metadata says of where the weights come from;
    shared by :class:`Policy` and :class:`mpdf.torch.Policy`, which keep
    the file's metadata in ``self.metadata``."""

    @property
    def confidence_source(self):
        """Where the confidence of the policy's training states came from,
        as the file's ``mpdf.confidence_source`` metadata records it
        (``mpdf export``, ``mpdf train``'s policy.safetensors):
        ``"text-critic"`` (pass the critic's confidence, or use ``mpdf serve
        --critic``), ``"none"``, ``"given"``, or ``"unknown"`` when the file
        does not say. ``GET /v1/policy`` reports the same."""
        v = self.metadata.get("mpdf.confidence_source")
        return v if v in ("text-critic", "none", "given") else "unknown"

    @property
    def step(self):
        """The training step of the checkpoint the weights come from
        (``mpdf.step`` metadata), or None when the file does not say."""
        v = self.metadata.get("mpdf.step")
        return int(v) if v is not None and v.isdigit() else None


class Policy(_Provenance):
    """An MLP over one feature layout: ``weights[i]`` is a list of rows
    ([out][in]), ``biases[i]`` a list; tanh (or relu) between layers, none
    after the last; 3 outputs, the logits of persist, refine, concede.

    ``feature_version`` is the layout the network reads; by default
    ``metadata["feature_version"]``, else the layout of the network's input
    width. A version this package does not know, or a width that is not the
    layout's, is a ValueError.
    """

    def __init__(self, weights, biases, activation="tanh", metadata=None, feature_version=None):
        self.weights, self.biases = weights, biases
        self.activation = activation
        self.metadata = dict(metadata or {})
        if activation not in ("tanh", "relu"):
            raise ValueError("mpdf.policy: activation %r, want tanh or relu" % (activation,))
        if not weights or len(weights) != len(biases):
            raise ValueError("mpdf.policy: %d weight matrices, %d bias vectors" % (len(weights), len(biases)))
        self.feature_version, self._featurize = _layout("mpdf.policy", self._feature_width(), feature_version, self.metadata)
        if len(weights[-1]) != len(ACTIONS):
            raise ValueError("mpdf.policy: network has %d outputs, want %d actions" % (len(weights[-1]), len(ACTIONS)))

    @property
    def sizes(self):
        """Layer widths, input first (as ``GET /v1/policy`` reports them)."""
        return [len(self.weights[0][0])] + [len(w) for w in self.weights]

    arch = "mlp"

    def _feature_width(self):
        # The MLP reads the features as they are.
        return len(self.weights[0][0])

    def logits(self, x):
        """The network's outputs for a feature vector x. x is rounded to
        float32 first, as the server feeds its float32 network."""
        return self._mlp(list(array.array("f", x)))

    def _mlp(self, h):
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            h = [bo + sum(wk * hk for wk, hk in zip(row, h)) for row, bo in zip(w, b)]
            if i < last:
                h = [math.tanh(v) for v in h] if self.activation == "tanh" else [max(v, 0.0) for v in h]
        return h

    def probs(self, x):
        """pi(.|x) for a feature vector x, as a dict action -> probability."""
        z = self.logits(x)
        m = max(z)
        e = [math.exp(v - m) for v in z]
        s = sum(e)
        return dict(zip(ACTIONS, (v / s for v in e)))

    def features(self, agents, self_index, round, rounds, history=None):
        """Agent ``self_index``'s feature vector in this policy's layout
        (:func:`mpdf.features.featurize` or :func:`~mpdf.features.featurize_v2`),
        for arguments as :meth:`decide` takes them: what to feed the same
        network in PyTorch."""
        flat = _check(agents, round, rounds, history, self.feature_version)
        if not 0 <= self_index < len(flat):
            raise ValueError("self_index: %r outside [0, %d)" % (self_index, len(flat)))
        return self._featurize(flat, self_index, round, rounds, history)

    def decide(self, agents, round, rounds, history=None):
        """Greedy decisions for every agent of a deliberation, as ``mpdf
        serve`` answers the same request: a list of (action, probs), the
        most probable action (the first of persist, refine, concede on a
        tie) and the dict action -> probability.

        Arguments are :meth:`mpdf.Client.decide`'s: ``agents`` are
        :func:`mpdf.agent` dicts (``answer``, ``confidence``, ``profile``;
        flat mappings with the profile's keys beside ``answer`` work too;
        raw ``text`` needs the server's answer reader and is refused, and
        so does the text critic's confidence of a ``"text-critic"`` policy:
        give it as ``confidence``);
        ``round`` (1-based) of ``rounds``; ``history`` (optional) is
        ``history[r][i]``, agent i's answer in round r, rounds 0 to
        round-1, round 0 first, the last row the agents' current answers.
        Bad input is a ValueError naming the field as the server does
        (``agents[2].confidence: 1.4 outside [0,1]``).
        """
        flat = _check(agents, round, rounds, history, self.feature_version)
        out = []
        for i in range(len(flat)):
            p = self.probs(self._featurize(flat, i, round, rounds, history))
            out.append((_greedy(p), p))
        return out

    def state_dict(self):
        """The tensors by name as nested lists (``layers.{i}.weight``,
        ``layers.{i}.bias``): ``torch.tensor`` of each is the state_dict of
        a ``torch.nn.ModuleList`` of ``nn.Linear`` named ``layers``."""
        d = {}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            d["layers.%d.weight" % i] = [list(row) for row in w]
            d["layers.%d.bias" % i] = list(b)
        return d


class AttentionPolicy(Policy):
    """The attention policy (``mpdf train --arch attention``) over the
    mpdf-features/peers-v1 layout: the agent's own 26 features x_s attend to
    the present peer slots p_j (12 features each, p_j[0] = 1 when a peer
    fills the slot)::

        q = Wq x_s + bq,  k_j = Wk p_j + bk,  v_j = Wv p_j + bv
        alpha = softmax over present j of (q . k_j) / sqrt(d)
        c = sum_j alpha_j v_j            (0 when no slot is present)
        logits = MLP(concat(x_s, c))

    ``attn`` maps ``"q"``, ``"k"``, ``"v"`` to (weight rows [d][in], bias
    [d]); ``weights`` and ``biases`` are the MLP's, its first layer reading
    26 + d inputs. The output does not depend on the order of the present
    peers, nor on how many absent slots follow them."""

    arch = "attention"

    def __init__(self, attn, weights, biases, activation="tanh", metadata=None, feature_version=None):
        if set(attn) != {"q", "k", "v"}:
            raise ValueError("mpdf.policy: attention projections %s, want q, k and v" % sorted(attn))
        d = len(attn["q"][1])
        for name, want in (("q", features.FEATURE_WIDTH), ("k", features.PEER_WIDTH), ("v", features.PEER_WIDTH)):
            w, b = attn[name]
            if len(w) != d or len(b) != d or any(len(row) != want for row in w):
                raise ValueError("mpdf.policy: attention %s: want weight [%d, %d] and bias [%d]" % (name, d, want, d))
        if not weights or len(weights[0][0]) != features.FEATURE_WIDTH + d:
            raise ValueError("mpdf.policy: attention of width %d: the first layer must read %d inputs (26 + d)"
                             % (d, features.FEATURE_WIDTH + d))
        self.attn = attn
        super().__init__(weights, biases, activation, metadata, feature_version)

    def _feature_width(self):
        return features.FEATURE_WIDTH + features.PEER_SLOTS * features.PEER_WIDTH

    @property
    def attn_dim(self):
        """The attention width d."""
        return len(self.attn["q"][1])

    def context(self, x):
        """(x_s, c): the agent's own features and the attention's context
        vector, for a float32-rounded row x."""
        own, peer = features.FEATURE_WIDTH, features.PEER_WIDTH

        def lin(name, v):
            w, b = self.attn[name]
            return [bo + sum(wk * vk for wk, vk in zip(row, v)) for row, bo in zip(w, b)]

        xs = x[:own]
        q = lin("q", xs)
        scale = 1.0 / math.sqrt(len(q))
        scores, values = [], []
        for j in range(features.PEER_SLOTS):
            p = x[own + peer * j:own + peer * (j + 1)]
            if p[0] == 0:  # absent: weighs exactly nothing
                continue
            scores.append(sum(a * b for a, b in zip(q, lin("k", p))) * scale)
            values.append(lin("v", p))
        c = [0.0] * len(q)
        if scores:
            m = max(scores)
            e = [math.exp(s - m) for s in scores]
            total = sum(e)
            for ej, v in zip(e, values):
                c = [ck + ej / total * vk for ck, vk in zip(c, v)]
        return xs, c

    def logits(self, x):
        xs, c = self.context(list(array.array("f", x)))
        return self._mlp(xs + c)

    def state_dict(self):
        """``attn.{q,k,v}.weight|bias`` and ``layers.{i}.*``, as nested lists."""
        d = {}
        for name in ("q", "k", "v"):
            w, b = self.attn[name]
            d["attn.%s.weight" % name] = [list(row) for row in w]
            d["attn.%s.bias" % name] = list(b)
        d.update(super().state_dict())
        return d


def _check(agents, round, rounds, history, version=None):
    """Validates a request as serve/validate.go does, for a policy reading
    layout version, and returns the agents as the flat mappings of
    mpdf.features."""

    def bad(field, msg):
        return ValueError("%s: %s" % (field, msg))

    def number(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    def unit(field, c):
        if c is None:
            return
        if not number(c) or not 0 <= c <= 1:  # NaN fails 0 <= c
            raise bad(field, "%r outside [0,1]" % (c,))

    if not isinstance(agents, (list, tuple)) or len(agents) < 2:
        raise bad("agents", "%s agent(s), want >= 2" % (len(agents) if isinstance(agents, (list, tuple)) else "no"))
    if version == features.FEATURE_VERSION_PEERS and len(agents) > features.PEER_SLOTS + 1:
        raise bad("agents", "%d agents: the policy reads %s, which holds at most %d"
                  % (len(agents), version, features.PEER_SLOTS + 1))
    if not (isinstance(rounds, int) and rounds >= 1):
        raise bad("rounds", "%r, want >= 1" % (rounds,))
    if not (isinstance(round, int) and 1 <= round <= rounds):
        raise bad("round", "%r outside [1, rounds=%d]" % (round, rounds))
    flat = []
    for i, a in enumerate(agents):
        path = "agents[%d]" % i
        if "text" in a:
            raise bad(path + ".text", "reading an answer from text needs mpdf serve's reader; give answer (and profile)")
        f = {k: v for k, v in a.items() if k != "profile"}
        prof = a.get("profile") or {}
        f.update(prof)
        pp = path + ".profile." if "profile" in a else path + "."
        unit(path + ".confidence", f.get("confidence"))
        unit(pp + "self_confidence", f.get("self_confidence"))
        for k in ("steps", "tokens", "hedges"):
            v = f.get(k, 0)
            if not (isinstance(v, int) and not isinstance(v, bool) and v >= 0):
                raise bad(pp + k, "%r, want an integer >= 0" % (v,))
        ans = f.get("answer")
        if ans is not None and not isinstance(ans, str):
            raise bad(path + ".answer", "%r, want a string" % (ans,))
        model = f.get("model")
        if model is not None and (not isinstance(model, str) or len(model.encode("utf-8")) > MAX_MODEL_BYTES):
            raise bad(path + ".model", "%r, want a string of at most %d bytes" % (model, MAX_MODEL_BYTES))
        flat.append(f)
    if history is not None:
        if len(history) != round:
            raise bad("history", "%d rounds, want round=%d (the answers of rounds 0 to round-1, round 0 first)"
                      % (len(history), round))
        for r, row in enumerate(history):
            if len(row) != len(flat):
                raise bad("history[%d]" % r, "%d answers for %d agents" % (len(row), len(flat)))
        for i, a in enumerate(history[-1]):
            now = flat[i].get("answer") or ""
            if a != now:
                raise bad("history[%d][%d]" % (round - 1, i),
                          "%r, but agents[%d]'s answer is %r (the last round holds the current answers)" % (a, i, now))
    return flat


def load(path, check_checkpoint=True):
    """Reads a policy from a safetensors file written by ``mpdf export``,
    ``mpdf train`` or :func:`save`. The file must record a known
    ``feature_version`` (as ``mpdf serve`` demands); errors name the file
    and the field or offset at fault. With ``check_checkpoint``, a file
    recording the SHA-256 of the checkpoint it was written from (a run's
    ``policy.safetensors``: ``best.mpdf``) must match that checkpoint when
    it lies beside the file."""

    def fail(msg):
        return ValueError("mpdf.policy: %s: %s" % (path, msg))

    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 8:
            raise fail("%d bytes, shorter than the 8-byte header length" % size)
        head = f.read(8)
        if head == b"MPDFCKPT":
            raise fail("an mpdf checkpoint, not safetensors: mpdf export %s --safetensors OUT writes its weights "
                       "(a run's policy.safetensors holds best.mpdf's)" % path)
        (hlen,) = struct.unpack("<Q", head)
        if hlen > MAX_HEADER or 8 + hlen > size:
            raise fail("offset 0: header of %d bytes in a file of %d" % (hlen, size))
        try:
            header = json.loads(f.read(hlen))
        except ValueError as e:
            raise fail("header (offset 8): %s" % e) from None
        if not isinstance(header, dict):
            raise fail("header (offset 8): not a JSON object")
        body = f.read()
    meta = header.pop("__metadata__", None) or {}
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise fail("__metadata__: %r, want an object of strings" % (meta,))
    if "feature_version" not in meta:
        raise fail("__metadata__.feature_version absent: the file does not say which features it reads")
    if check_checkpoint:
        _check_checkpoint(path, meta, fail)
    version = meta["feature_version"]
    try:
        width, _ = features.featurizer_for(version)
    except ValueError as e:
        raise fail("__metadata__.feature_version: %s" % e) from None

    def tensor(name, ndim):
        t = header.get(name)
        if not isinstance(t, dict):
            raise fail("%s: tensor missing" % name)
        if t.get("dtype") != "F32":
            raise fail("%s: dtype %s, want F32" % (name, t.get("dtype")))
        shape = t.get("shape")
        if not (isinstance(shape, list) and len(shape) == ndim and all(isinstance(d, int) and d > 0 for d in shape)):
            raise fail("%s: shape %r, want %d positive dimensions" % (name, shape, ndim))
        offs = t.get("data_offsets")
        n = math.prod(shape)
        if not (isinstance(offs, list) and len(offs) == 2 and all(isinstance(o, int) for o in offs)
                and 0 <= offs[0] and offs[1] == offs[0] + 4 * n and offs[1] <= len(body)):
            raise fail("%s: data_offsets %r, want %d bytes within the %d of data" % (name, offs, 4 * n, len(body)))
        lo = offs[0]
        vals = list(struct.unpack_from("<%df" % n, body, lo))
        if not all(math.isfinite(v) for v in vals):
            raise fail("%s: non-finite value" % name)
        return shape, vals

    activation = meta.get("activation", "tanh")
    if activation not in ("tanh", "relu"):
        raise fail("__metadata__.activation: %r, want tanh or relu" % (activation,))
    # An export without "arch" is an MLP: files older than the attention
    # policy load as they did.
    arch = meta.get("arch", "mlp")
    if arch not in ("mlp", "attention"):
        raise fail("__metadata__.arch: %r, want mlp or attention" % (arch,))
    if arch == "attention" and version != features.FEATURE_VERSION_PEERS:
        raise fail("__metadata__.arch: attention reads %s, but feature_version is %s"
                   % (features.FEATURE_VERSION_PEERS, version))
    used = set()

    def projections(prefix):
        """The attention's q, k, v of the tensors named prefix + attn.*."""
        attn = {}
        d = None
        for name, inp in (("q", features.FEATURE_WIDTH), ("k", features.PEER_WIDTH), ("v", features.PEER_WIDTH)):
            wn, bn = "%sattn.%s.weight" % (prefix, name), "%sattn.%s.bias" % (prefix, name)
            (out, got), w = tensor(wn, 2)
            if d is None:
                d = out
            if (out, got) != (d, inp):
                raise fail("%s: shape [%d, %d], want [%d, %d]" % (wn, out, got, d, inp))
            (bout,), b = tensor(bn, 1)
            if bout != d:
                raise fail("%s: shape [%d], want [%d]" % (bn, bout, d))
            attn[name] = ([w[r * inp:(r + 1) * inp] for r in range(d)], b)
            used.update((wn, bn))
        if "attn_dim" in meta and meta["attn_dim"] != str(d):
            raise fail("__metadata__.attn_dim: %r, but %sattn.q.weight has %d rows" % (meta["attn_dim"], prefix, d))
        return attn, d

    def net(prefix):
        """The network of the tensors named prefix + layers.{i}.* (and
        prefix + attn.* for an attention policy)."""
        attn = None
        head, what0 = width, "%s reads %d features" % (version, width)
        if arch == "attention":
            attn, d = projections(prefix)
            head = features.FEATURE_WIDTH + d
            what0 = "the attention of width %d gives the MLP 26 + %d inputs" % (d, d)
        layers = 0
        while "%slayers.%d.weight" % (prefix, layers) in header:
            layers += 1
        if layers == 0:
            raise fail("no %slayers.0.weight tensor" % prefix)
        weights, biases = [], []
        prev = head
        for i in range(layers):
            name = "%slayers.%d.weight" % (prefix, i)
            (out, inp), w = tensor(name, 2)
            if inp != prev:
                what = what0 if i == 0 else "layer %d has %d outputs" % (i - 1, prev)
                raise fail("%s: shape [%d, %d], but %s" % (name, out, inp, what))
            (bout,), b = tensor("%slayers.%d.bias" % (prefix, i), 1)
            if bout != out:
                raise fail("%slayers.%d.bias: shape [%d], want [%d]" % (prefix, i, bout, out))
            weights.append([w[r * inp:(r + 1) * inp] for r in range(out)])
            biases.append(b)
            used.update(("%slayers.%d.weight" % (prefix, i), "%slayers.%d.bias" % (prefix, i)))
            prev = out
        if prev != len(ACTIONS):
            raise fail("%slayers.%d.weight: %d outputs, want %d actions" % (prefix, layers - 1, prev, len(ACTIONS)))
        if attn is not None:
            return AttentionPolicy(attn, weights, biases, activation, meta, version)
        return Policy(weights, biases, activation, meta, version)

    def leftover(want):
        extra = sorted(k for k in header if k not in used)
        if extra:
            raise fail("tensor %s: not %s" % (extra[0], want))

    if "mpdf.networks" not in meta:
        p = net("")
        leftover("a layers.{i}.weight or .bias of layers 0..%d%s"
                 % (len(p.weights) - 1, " or an attn.{q,k,v} tensor" if arch == "attention" else ""))
        return p
    try:
        keys = json.loads(meta["mpdf.networks"])
    except ValueError:
        keys = None
    if not (isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys) and len(set(keys)) == len(keys)):
        raise fail("__metadata__.mpdf.networks: %r, want a JSON array of distinct network keys" % (meta["mpdf.networks"],))
    by = meta.get("mpdf.agent_policy")
    if by not in ("slot", "model") or not all(k.startswith(by + ":") for k in keys):
        raise fail("__metadata__.mpdf.agent_policy: %r, but the networks are %s" % (by, ", ".join(keys)))
    nets = [net("nets.%d." % k) for k in range(len(keys))]
    fallback = net("fallback.")
    if any(p.sizes != fallback.sizes for p in nets):
        raise fail("the networks differ in shape from the fallback's %r" % (fallback.sizes,))
    leftover("a tensor of nets.0..%d or the fallback" % (len(keys) - 1))
    return DecoupledPolicy(by, keys, nets, fallback)


def network_key(agent_policy, agents, i):
    """The key of agent i's network under agent_policy: ``slot:I``, or
    ``model:`` and the agent's ``model``; None for an agent that names no
    model, which no network is named for: the fallback decides for it, in
    training and in ``mpdf serve`` alike (metapolicy.AgentPolicy.KeyOf)."""
    if agent_policy == "slot":
        return "slot:%d" % i
    a = agents[i]
    model = a.get("model") if isinstance(a, dict) else None
    return "model:" + model if model else None


class DecoupledPolicy(_Provenance):
    """A policy with a network per agent slot or model (``mpdf train
    --agent-policy slot|model``): ``nets[k]`` (a :class:`Policy`) is the
    network of ``keys[k]`` (``"slot:0"``, ``"model:llama"``), ``fallback``
    the network of an agent none is named for. Every network reads the
    same layout; each agent is decided by its own network on its own
    features, as ``mpdf serve`` decides it."""

    def __init__(self, agent_policy, keys, nets, fallback):
        if agent_policy not in ("slot", "model"):
            raise ValueError("mpdf.policy: agent policy %r, want slot or model" % (agent_policy,))
        if len(keys) != len(nets):
            raise ValueError("mpdf.policy: %d keys for %d networks" % (len(keys), len(nets)))
        self.agent_policy, self.keys, self.nets, self.fallback = agent_policy, list(keys), list(nets), fallback
        self.metadata = fallback.metadata
        self.feature_version, self.activation = fallback.feature_version, fallback.activation
        self._index = {k: i for i, k in enumerate(self.keys)}

    @property
    def sizes(self):
        """Layer widths of every network, input first."""
        return self.fallback.sizes

    def key(self, agents, i):
        """The key of agent i's network: ``slot:I``, or ``model:`` and its
        ``model`` (None when it has none: the fallback decides)."""
        return network_key(self.agent_policy, agents, i)

    def network(self, agents, i):
        """The :class:`Policy` deciding for agent i of agents."""
        k = self._index.get(self.key(agents, i))
        return self.fallback if k is None else self.nets[k]

    def features(self, agents, self_index, round, rounds, history=None):
        """Agent ``self_index``'s feature vector (the layout every network reads)."""
        return self.fallback.features(agents, self_index, round, rounds, history)

    def decide(self, agents, round, rounds, history=None):
        """Greedy decisions for every agent, each by its own network
        (:meth:`Policy.decide`'s arguments and checks)."""
        flat = _check(agents, round, rounds, history, self.feature_version)
        out = []
        for i in range(len(flat)):
            p = self.network(flat, i).probs(self.fallback._featurize(flat, i, round, rounds, history))
            out.append((_greedy(p), p))
        return out

    def state_dict(self):
        """The tensors by name as nested lists: ``nets.{k}.layers.*`` and
        ``fallback.layers.*``."""
        d = {}
        for k, p in enumerate(self.nets):
            d.update(("nets.%d.%s" % (k, n), v) for n, v in p.state_dict().items())
        d.update(("fallback." + n, v) for n, v in self.fallback.state_dict().items())
        return d


def _check_checkpoint(path, meta, fail):
    """Refuses a file whose recorded checkpoint (mpdf.checkpoint, a name in
    the file's directory) is beside it with other bytes than the recorded
    SHA-256 (mpdf.checkpoint_sha256)."""
    name, want = meta.get("mpdf.checkpoint"), meta.get("mpdf.checkpoint_sha256")
    if not name or not want:
        return
    if os.path.basename(name) != name or name in (".", ".."):
        raise fail("__metadata__.mpdf.checkpoint: %r, want a file name" % (name,))
    ck = os.path.join(os.path.dirname(os.path.abspath(path)), name)
    if not os.path.isfile(ck):
        return
    h = hashlib.sha256()
    with open(ck, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    if h.hexdigest() != want:
        raise fail("holds the weights of %s with SHA-256 %.12s..., but the %s beside it has %.12s...: "
                   "the run stopped between writing the two (resuming it rewrites this file), or one was "
                   "replaced; mpdf export %s --safetensors OUT exports the checkpoint's weights"
                   % (name, want, name, h.hexdigest(), ck))


def save(path, policy):
    """Writes a policy (a :class:`Policy` or :class:`AttentionPolicy`) as
    safetensors (the layout ``mpdf serve`` reads), recording its
    feature_version and activation (and an attention policy's arch and
    attn_dim)."""
    tensors = {}
    for name, v in policy.state_dict().items():
        if isinstance(v[0], list):
            tensors[name] = ([len(v), len(v[0])], [x for row in v for x in row])
        else:
            tensors[name] = ([len(v)], list(v))
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        shape, vals = tensors[name]
        blob = struct.pack("<%df" % len(vals), *vals)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [off, off + len(blob)]}
        blobs.append(blob)
        off += len(blob)
    # The checkpoint a loaded file recorded is no longer vouched for.
    meta = {k: v for k, v in policy.metadata.items()
            if k not in ("mpdf.checkpoint", "mpdf.checkpoint_sha256", "arch", "attn_dim")}
    meta.update({"feature_version": policy.feature_version, "activation": policy.activation, "format": "pt"})
    if policy.arch == "attention":
        meta.update({"arch": "attention", "attn_dim": str(policy.attn_dim)})
    header["__metadata__"] = dict(sorted(meta.items()))
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    # A temporary file renamed over path: a failed write never leaves a
    # half-written policy where a server may reload it.
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def random_policy(sizes, seed=0, scale=2.0, activation="tanh", feature_version=None):
    """A random MLP of the given sizes (e.g. [26, 32, 3] for v1, [40, 32, 3]
    for v2: the layout is that of sizes[0] unless feature_version says),
    for tests."""
    import random
    rng = random.Random(seed)
    weights, biases = [], []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        bound = scale / math.sqrt(fan_in)
        # Round through float32 so that the file holds exactly these values.
        f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]  # noqa: E731
        weights.append([[f32(rng.uniform(-bound, bound)) for _ in range(fan_in)] for _ in range(fan_out)])
        biases.append([f32(rng.uniform(-bound, bound)) for _ in range(fan_out)])
    return Policy(weights, biases, activation, feature_version=feature_version)


def random_attention_policy(hidden=(32,), attn_dim=16, seed=0, scale=2.0, activation="tanh"):
    """A random attention policy over mpdf-features/peers-v1 with attention
    width attn_dim and MLP hidden sizes hidden, for tests."""
    import random
    rng = random.Random(seed)
    f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]  # noqa: E731

    def linear(fan_in, fan_out):
        bound = scale / math.sqrt(fan_in)
        return ([[f32(rng.uniform(-bound, bound)) for _ in range(fan_in)] for _ in range(fan_out)],
                [f32(rng.uniform(-bound, bound)) for _ in range(fan_out)])

    attn = {"q": linear(features.FEATURE_WIDTH, attn_dim), "k": linear(features.PEER_WIDTH, attn_dim),
            "v": linear(features.PEER_WIDTH, attn_dim)}
    sizes = [features.FEATURE_WIDTH + attn_dim] + list(hidden) + [len(ACTIONS)]
    layers = [linear(i, o) for i, o in zip(sizes, sizes[1:])]
    return AttentionPolicy(attn, [w for w, _ in layers], [b for _, b in layers], activation,
                           feature_version=features.FEATURE_VERSION_PEERS)
