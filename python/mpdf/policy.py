"""A policy exported as safetensors, run in pure Python.

``mpdf export CKPT --safetensors policy.safetensors`` (or ``mpdf train``)
writes the network as ``layers.{i}.weight`` [out, in] and ``layers.{i}.bias``
float32 tensors, the layout of a stack of ``torch.nn.Linear``, with the
activation and feature version in the metadata. :func:`load` reads it with
the standard library; :meth:`Policy.probs` computes pi(.|features) as
``mpdf serve`` does (in float64 here, float32 there: they agree to ~1e-6).
The same weights load into PyTorch with ``safetensors.torch.load_file``.
"""

import json
import math
import struct

from . import features

ACTIONS = ("persist", "refine", "concede")


class Policy:
    """An MLP: ``weights[i]`` is a list of rows ([out][in]), ``biases[i]`` a
    list; tanh (or relu) between layers, none after the last."""

    def __init__(self, weights, biases, activation="tanh", metadata=None):
        self.weights, self.biases = weights, biases
        self.activation = activation
        self.metadata = dict(metadata or {})

    def logits(self, x):
        h = list(x)
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

    def decide(self, agents, round, rounds):
        """Greedy decisions for every agent of a deliberation (see
        :func:`mpdf.features.featurize` for the agent mappings): a list of
        (action, probs)."""
        out = []
        for i in range(len(agents)):
            p = self.probs(features.featurize(agents, i, round, rounds))
            best = max(ACTIONS, key=lambda a: (p[a], -ACTIONS.index(a)))
            out.append((best, p))
        return out


def _layers(header):
    n = 0
    while "layers.%d.weight" % n in header:
        n += 1
    if n == 0:
        raise ValueError("safetensors: no layers.0.weight tensor")
    return n


def load(path):
    """Read a policy from a safetensors file."""
    with open(path, "rb") as f:
        data = f.read()
    (hlen,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + hlen])
    meta = header.pop("__metadata__", {})
    fv = meta.get("feature_version", features.FEATURE_VERSION)
    if fv != features.FEATURE_VERSION:
        raise ValueError("safetensors: feature_version %r, this client knows %r" % (fv, features.FEATURE_VERSION))
    body = data[8 + hlen:]

    def tensor(name):
        t = header[name]
        if t["dtype"] != "F32":
            raise ValueError("safetensors: %s: dtype %s, want F32" % (name, t["dtype"]))
        lo, hi = t["data_offsets"]
        vals = list(struct.unpack("<%df" % ((hi - lo) // 4), body[lo:hi]))
        return t["shape"], vals

    weights, biases = [], []
    for i in range(_layers(header)):
        (out, inp), w = tensor("layers.%d.weight" % i)
        _, b = tensor("layers.%d.bias" % i)
        weights.append([w[r * inp:(r + 1) * inp] for r in range(out)])
        biases.append(b)
    return Policy(weights, biases, meta.get("activation", "tanh"), meta)


def save(path, policy):
    """Write a policy as safetensors (the layout ``mpdf serve`` reads)."""
    tensors = {}
    for i, (w, b) in enumerate(zip(policy.weights, policy.biases)):
        tensors["layers.%d.weight" % i] = ([len(w), len(w[0])], [v for row in w for v in row])
        tensors["layers.%d.bias" % i] = ([len(b)], list(b))
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        shape, vals = tensors[name]
        blob = struct.pack("<%df" % len(vals), *vals)
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [off, off + len(blob)]}
        blobs.append(blob)
        off += len(blob)
    meta = {"feature_version": features.FEATURE_VERSION, "activation": policy.activation, "format": "pt"}
    meta.update(policy.metadata)
    header["__metadata__"] = meta
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def random_policy(sizes, seed=0, scale=2.0, activation="tanh"):
    """A random MLP of the given sizes (e.g. [26, 32, 3]), for tests."""
    import random
    rng = random.Random(seed)
    weights, biases = [], []
    for fan_in, fan_out in zip(sizes, sizes[1:]):
        bound = scale / math.sqrt(fan_in)
        # Round through float32 so that the file holds exactly these values.
        f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]  # noqa: E731
        weights.append([[f32(rng.uniform(-bound, bound)) for _ in range(fan_in)] for _ in range(fan_out)])
        biases.append([f32(rng.uniform(-bound, bound)) for _ in range(fan_out)])
    return Policy(weights, biases, activation)
