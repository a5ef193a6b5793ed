"""A policy file as a ``torch.nn.Module``, in one call.

    import mpdf.torch
    from mpdf import agent
    net = mpdf.torch.load("runs/quick/policy.safetensors")   # or an mpdf export
    agents = [agent("42", 0.9), agent("41"), agent("42")]
    history = [["42", "41", "7"], ["42", "41", "42"]]        # rounds 0 and 1 (v2 reads it)
    net.decide(agents, round=2, rounds=3, history=history)   # [(action, probs)] per agent
    x = net.features(agents, 2, 3, history)   # [agents, width] float32
    net(x)                                    # logits: persist, refine, concede
    net.probs(x)                              # their softmax

:func:`load` reads the file's metadata (feature layout, activation; the
hidden sizes are the tensors' shapes), builds the network (an
``nn.ModuleList`` of ``nn.Linear`` named ``layers``: the file's tensor names
are its ``state_dict`` keys) and fills it with the file's float32 weights,
in eval mode. A file whose metadata says ``arch: attention`` loads as an
:class:`AttentionPolicy`: ``attn`` (``nn.Linear`` ``q``, ``k``, ``v``:
keys ``attn.q.weight`` ...) before the same ``layers``.
:meth:`Policy.features` is the featurizer of the layout the
file records (:mod:`mpdf.features`, v1, v2 or peers-v1), with the request checks of
``mpdf serve``: the probabilities are the server's for the same
deliberation, within 1e-5 (``tests/test_torch.py``; ~1e-7 seen).

A run's ``policy.safetensors`` holds its ``best.mpdf``'s weights, the file
``mpdf serve --policy`` serves; its metadata records the step
(:attr:`Policy.step`) and the SHA-256 of ``best.mpdf``, which :func:`load`
checks when ``best.mpdf`` is beside it.

A run trained with ``--agent-policy slot`` or ``model`` (a network per
agent position or backbone model) loads as a :class:`DecoupledPolicy`:
``nets`` (a ``ModuleList`` of :class:`Policy`, its state_dict keys the
file's ``nets.{k}.layers.*``) and ``fallback``; ``forward(x, net)`` runs
row i by network ``net[i]`` (``len(nets)`` the fallback), and
:meth:`DecoupledPolicy.decide` picks each agent's network as ``mpdf
serve`` does.

torch is no dependency of mpdf: this module needs it (``pip install
'./python[torch]'``, or Debian's ``python3-torch``), the rest of the package
does not import it.
"""

try:
    import torch
except ImportError as e:  # pragma: no cover - depends on the machine
    raise ImportError("mpdf.torch needs PyTorch (pip install 'mpdf[torch]', or apt install python3-torch); "
                      "the rest of mpdf works without it") from e

from . import features as _features
from . import policy as _policy

ACTIONS = _policy.ACTIONS


class Policy(torch.nn.Module, _policy._Provenance):
    """An mpdf policy network: ``layers`` (``nn.Linear``, input first),
    tanh or relu between them, none after the last; the 3 outputs are the
    logits of persist, refine, concede. ``feature_version`` is the layout
    it reads, ``metadata`` the file's."""

    def __init__(self, sizes, activation="tanh", feature_version=None, metadata=None):
        super().__init__()
        if activation not in ("tanh", "relu"):
            raise ValueError("mpdf.torch: activation %r, want tanh or relu" % (activation,))
        if len(sizes) < 2 or sizes[-1] != len(ACTIONS):
            raise ValueError("mpdf.torch: sizes %r, want [features, hidden..., %d]" % (list(sizes), len(ACTIONS)))
        self.layers = torch.nn.ModuleList(torch.nn.Linear(i, o) for i, o in zip(sizes, sizes[1:]))
        self.activation = activation
        self.metadata = dict(metadata or {})
        self.feature_version, self._featurize = _policy._layout("mpdf.torch", self._feature_width(), feature_version,
                                                                self.metadata)

    arch = "mlp"

    def _feature_width(self):
        return self.layers[0].in_features

    @property
    def sizes(self):
        """Layer widths, input first (as ``GET /v1/policy`` reports them)."""
        return [self.layers[0].in_features] + [layer.out_features for layer in self.layers]

    def forward(self, x):
        """Logits [..., 3] of features x [..., width]."""
        return self._mlp(x)

    def _mlp(self, x):
        act = torch.tanh if self.activation == "tanh" else torch.relu
        for layer in self.layers[:-1]:
            x = act(layer(x))
        return self.layers[-1](x)

    def probs(self, x):
        """pi(.|x): the softmax of the logits, columns persist, refine,
        concede; for inference, without a gradient (``.numpy()`` works as
        is). Train through :meth:`forward`, the logits."""
        with torch.no_grad():
            return torch.softmax(self.forward(x), dim=-1)

    def features(self, agents, round, rounds, history=None):
        """Every agent's feature vector in this policy's layout, as a
        float32 tensor [agents, width] (the rounding ``mpdf serve``
        applies). Arguments are :meth:`mpdf.Client.decide`'s (answers,
        confidences, profiles; ``history`` for a v2 policy) and are checked
        as the server checks them: bad input is a ValueError naming the
        field."""
        flat = _policy._check(agents, round, rounds, history, self.feature_version)
        rows = [self._featurize(flat, i, round, rounds, history) for i in range(len(flat))]
        p = next(self.parameters())
        return torch.tensor(rows, dtype=torch.float32).to(device=p.device, dtype=p.dtype)

    def decide(self, agents, round, rounds, history=None):
        """Greedy decisions for every agent, as ``mpdf serve`` answers the
        same request: a list of (action, {action: probability}), the first
        of persist, refine, concede on a tie."""
        with torch.no_grad():
            rows = self.probs(self.features(agents, round, rounds, history)).tolist()
        out = []
        for row in rows:
            probs = dict(zip(ACTIONS, row))
            out.append((_policy._greedy(probs), probs))
        return out


class Attention(torch.nn.Module):
    """Self attending to the present peer slots of an mpdf-features/peers-v1
    row: ``q`` (``nn.Linear(26, d)``) of the agent's own features, ``k`` and
    ``v`` (``nn.Linear(12, d)``) of each peer slot; ``forward`` returns
    concat(x_s, c), c the softmax(q.k_j / sqrt(d))-weighted sum of the v_j
    over the present slots (0 when none is)."""

    def __init__(self, attn_dim):
        super().__init__()
        self.q = torch.nn.Linear(_features.FEATURE_WIDTH, attn_dim)
        self.k = torch.nn.Linear(_features.PEER_WIDTH, attn_dim)
        self.v = torch.nn.Linear(_features.PEER_WIDTH, attn_dim)

    def forward(self, x):
        own, slots, peer = _features.FEATURE_WIDTH, _features.PEER_SLOTS, _features.PEER_WIDTH
        xs = x[..., :own]
        p = x[..., own:own + slots * peer].reshape(*x.shape[:-1], slots, peer)
        present = p[..., 0] != 0
        q = self.q(xs)
        s = (self.k(p) @ q.unsqueeze(-1)).squeeze(-1) / q.shape[-1] ** 0.5
        # An absent slot's score is the lowest finite number: it weighs
        # exp(min - max) = 0 beside a present one, and a row without any
        # present slot gets a finite softmax that the mask then zeroes
        # (-inf would make it NaN, and its gradient too).
        s = s.masked_fill(~present, torch.finfo(s.dtype).min)
        alpha = torch.softmax(s, dim=-1) * present
        c = (alpha.unsqueeze(-1) * self.v(p)).sum(dim=-2)
        return torch.cat([xs, c], dim=-1)


class AttentionPolicy(Policy):
    """The attention policy (``mpdf train --arch attention``) over
    mpdf-features/peers-v1: ``attn`` (:class:`Attention`) then ``layers``
    (the MLP, its first layer reading 26 + attn_dim). Its ``state_dict()``
    keys are the file's: ``attn.{q,k,v}.weight|bias``, ``layers.{i}.*``."""

    arch = "attention"

    def __init__(self, sizes, attn_dim, activation="tanh", feature_version=None, metadata=None):
        if not sizes or sizes[0] != _features.FEATURE_WIDTH + attn_dim:
            raise ValueError("mpdf.torch: sizes %r: the MLP after an attention of width %d reads %d inputs"
                             % (list(sizes), attn_dim, _features.FEATURE_WIDTH + attn_dim))
        super().__init__(sizes, activation, feature_version, metadata)
        self.attn = Attention(attn_dim)

    def _feature_width(self):
        return _features.FEATURE_WIDTH + _features.PEER_SLOTS * _features.PEER_WIDTH

    @property
    def attn_dim(self):
        return self.attn.q.out_features

    def forward(self, x):
        """Logits [..., 3] of peers-v1 features x [..., 110]."""
        return self._mlp(self.attn(x))


class DecoupledPolicy(torch.nn.Module, _policy._Provenance):
    """Networks per agent slot or model: ``nets[k]`` is the network of
    ``keys[k]``, ``fallback`` that of an agent none is named for; all read
    the layout ``feature_version``."""

    def __init__(self, agent_policy, keys, nets, fallback):
        super().__init__()
        if len(keys) != len(nets):
            raise ValueError("mpdf.torch: %d keys for %d networks" % (len(keys), len(nets)))
        self.agent_policy, self.keys = agent_policy, list(keys)
        self.nets = torch.nn.ModuleList(nets)
        self.fallback = fallback
        self.metadata = fallback.metadata
        self.feature_version, self.activation = fallback.feature_version, fallback.activation
        self._index = {k: i for i, k in enumerate(self.keys)}

    @property
    def sizes(self):
        return self.fallback.sizes

    def network_index(self, agents):
        """The index of each agent's network (``len(nets)``: the fallback),
        by its position (slot) or its ``model`` (model; an agent naming
        none gets the fallback)."""
        out = []
        for i in range(len(agents)):
            out.append(self._index.get(_policy.network_key(self.agent_policy, agents, i), len(self.nets)))
        return out

    def forward(self, x, net):
        """Logits [B, 3] of features x [B, width], row i by network net[i]
        (``len(nets)``: the fallback)."""
        net = torch.as_tensor(net, device=x.device)
        out = torch.zeros(x.shape[0], len(ACTIONS), dtype=x.dtype, device=x.device)
        for k, m in enumerate(list(self.nets) + [self.fallback]):
            idx = (net == k).nonzero(as_tuple=True)[0]
            if idx.numel():
                out[idx] = m(x[idx])
        return out

    def probs(self, x, net):
        """As :meth:`Policy.probs`: for inference, without a gradient."""
        with torch.no_grad():
            return torch.softmax(self.forward(x, net), dim=-1)

    def features(self, agents, round, rounds, history=None):
        """Every agent's feature vector, [agents, width] float32."""
        return self.fallback.features(agents, round, rounds, history)

    def decide(self, agents, round, rounds, history=None):
        """Greedy decisions for every agent, each by its own network."""
        x = self.features(agents, round, rounds, history)
        with torch.no_grad():
            rows = self.probs(x, self.network_index(agents)).tolist()
        out = []
        for row in rows:
            probs = dict(zip(ACTIONS, row))
            out.append((_policy._greedy(probs), probs))
        return out


def from_policy(p):
    """The :class:`Policy` of an :class:`mpdf.policy.Policy` (its weights
    as float32 tensors), in eval mode; a :class:`DecoupledPolicy` of an
    :class:`mpdf.policy.DecoupledPolicy`."""
    if isinstance(p, _policy.DecoupledPolicy):
        return DecoupledPolicy(p.agent_policy, p.keys, [from_policy(n) for n in p.nets], from_policy(p.fallback)).eval()
    if isinstance(p, _policy.AttentionPolicy):
        net = AttentionPolicy(p.sizes, p.attn_dim, p.activation, p.feature_version, p.metadata)
        with torch.no_grad():
            for name in ("q", "k", "v"):
                w, b = p.attn[name]
                getattr(net.attn, name).weight.copy_(torch.tensor(w, dtype=torch.float32))
                getattr(net.attn, name).bias.copy_(torch.tensor(b, dtype=torch.float32))
    else:
        net = Policy(p.sizes, p.activation, p.feature_version, p.metadata)
    with torch.no_grad():
        for layer, w, b in zip(net.layers, p.weights, p.biases):
            layer.weight.copy_(torch.tensor(w, dtype=torch.float32))
            layer.bias.copy_(torch.tensor(b, dtype=torch.float32))
    return net.eval()


def load(path, check_checkpoint=True):
    """Reads a policy safetensors file (a run's ``policy.safetensors``, or
    ``mpdf export CKPT --safetensors OUT``) as a :class:`Policy`.

    The file is checked as :func:`mpdf.policy.load` checks it (a known
    ``feature_version``, shapes that chain, finite float32 values); with
    ``check_checkpoint``, a file that records the SHA-256 of its checkpoint
    (``mpdf.checkpoint``, e.g. best.mpdf) is checked against that file when
    it lies beside it. Errors are ValueErrors naming the file and field."""
    return from_policy(_policy.load(path, check_checkpoint=check_checkpoint))
