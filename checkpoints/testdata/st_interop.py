"""Runs the reference reader and writer of safetensors on a file.

usage: st_interop.py TORCH_REFERENCE_PY IN OUT [stand-in]

Loads read_safetensors and write_safetensors from torch_reference.py
(oracle/torch_reference.py in the repository), reads IN with the first and
prints {"torch": ..., "tensors": {name: {"shape": [...], "values": [...]}},
"meta": {...}} as JSON, then writes the same tensors and metadata to OUT with
the second. When PyTorch is not installed, a stand-in for the few torch calls
those two functions make (frombuffer, reshape, clone, detach, to, contiguous,
numpy, tobytes, shape) is installed first, so the reference code itself runs;
the argument "stand-in" forces it.

Under real PyTorch it also loads the tensors with load_state_dict(strict=True)
into a ModuleList of nn.Linear named "layers", and prints the logits of the
input x_j = (j mod 7)/7 - 1/2 under "logits".
"""
import array
import importlib.util
import json
import sys
import types


class _Tensor:
    def __init__(self, data, shape):
        self.data, self.shape = data, tuple(shape)

    def reshape(self, shape):
        return _Tensor(self.data, shape)

    def clone(self):
        return _Tensor(array.array("f", self.data), self.shape)

    def detach(self):
        return self

    def to(self, dtype):
        return self

    def contiguous(self):
        return self

    def numpy(self):
        return self

    def tobytes(self):
        d = array.array("f", self.data)
        if sys.byteorder == "big":
            d.byteswap()
        return d.tobytes()

    def tolist(self):
        return list(self.data)


def _frombuffer(buf, dtype):
    d = array.array("f")
    d.frombytes(bytes(buf))
    if sys.byteorder == "big":
        d.byteswap()
    return _Tensor(d, (len(d),))


def linear_stack_logits(tensors, act):
    import torch

    n = len(tensors) // 2
    sizes = [tensors["layers.0.weight"].shape[1]] + [tensors[f"layers.{i}.weight"].shape[0] for i in range(n)]

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

        def forward(self, x):
            for i, layer in enumerate(self.layers):
                x = layer(x)
                if i < n - 1:
                    x = torch.tanh(x) if act == "tanh" else torch.relu(x)
            return x

    net = Net()
    net.load_state_dict(tensors, strict=True)
    x = torch.tensor([(j % 7) / 7 - 0.5 for j in range(sizes[0])], dtype=torch.float32)
    with torch.no_grad():
        return net(x).tolist()


def main():
    ref_path, src, dst = sys.argv[1:4]
    try:
        if sys.argv[4:] == ["stand-in"]:
            raise ImportError("stand-in requested")
        import torch  # noqa: F401
        kind = "real"
    except ImportError:
        fake = types.ModuleType("torch")
        fake.float32 = "float32"
        fake.float64 = "float64"  # named by the module's DTYPES; files are float32 only
        fake.frombuffer = _frombuffer
        sys.modules["torch"] = fake
        kind = "stand-in"
    spec = importlib.util.spec_from_file_location("torch_reference", ref_path)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    tensors, meta = ref.read_safetensors(src)
    out = {name: {"shape": list(t.shape), "values": t.reshape([-1]).tolist() if kind == "real" else t.tolist()}
           for name, t in tensors.items()}
    result = {"torch": kind, "tensors": out, "meta": meta}
    if kind == "real":
        result["logits"] = linear_stack_logits(tensors, meta.get("activation", "tanh"))
    json.dump(result, sys.stdout)
    ref.write_safetensors(dst, tensors, meta)


if __name__ == "__main__":
    main()
