"""Python side of mpdf: ask a served deliberation meta-policy, per round,
which agents persist, refine or concede; or run the policy yourself.

    from mpdf import Client, agent
    c = Client("http://127.0.0.1:8080")
    r = c.decide([agent("42", 0.9), agent("41"), agent(text="... \\\\boxed{42}")],
                 round=1, rounds=3, kind="gsm")
    [a["action"] for a in r["agents"]]

Standard library only (Python >= 3.9; ``pip install ./python``). To run a
policy file (a training run's ``policy.safetensors``, which holds its
``best.mpdf``'s weights, or ``mpdf export CKPT --safetensors OUT``) of
any feature layout (mpdf-features/v1, v2 or peers-v1, as its metadata
records; an MLP or, with peers-v1, the attention policy):
:mod:`mpdf.torch` builds it as a ``torch.nn.Module`` (needs torch: extra
``[torch]``), :mod:`mpdf.policy` runs it in pure Python, and
:mod:`mpdf.features` is the pure-Python reference of the layouts:

    import mpdf.torch
    net = mpdf.torch.load("runs/quick/policy.safetensors")
    net.decide([agent("42", 0.9), agent("41"), agent("42")], round=2, rounds=3,
               history=[["42", "41", "7"], ["42", "41", "42"]])
"""

import importlib

from .client import Client, MpdfError, agent, decide
from .features import FEATURE_VERSION, FEATURE_VERSION_PEERS, FEATURE_VERSION_V2

__all__ = ["Client", "MpdfError", "agent", "decide", "FEATURE_VERSION", "FEATURE_VERSION_V2", "FEATURE_VERSION_PEERS"]


def __getattr__(name):
    # mpdf.torch (and with it torch) is imported on first use only.
    if name in ("torch", "policy", "features", "client"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'mpdf' has no attribute %r" % (name,))
