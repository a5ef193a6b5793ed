"""Python client of mpdf: ask a served deliberation meta-policy, per round,
which agents persist, refine or concede.

    from mpdf import Client, agent
    c = Client("http://127.0.0.1:8080")
    r = c.decide([agent("42", 0.9), agent("41"), agent(text="... \\\\boxed{42}")],
                 round=1, rounds=3, kind="gsm")
    [a["action"] for a in r["agents"]]

Standard library only (Python >= 3.9). For users who run the policy
themselves: :mod:`mpdf.policy` runs an exported ``policy.safetensors`` of
either feature layout (mpdf-features/v1 or v2, as its metadata records) and
decides as the server does, and :mod:`mpdf.features` is the pure-Python
reference of both layouts:

    from mpdf import agent, policy
    p = policy.load("runs/pivotal-v2/policy.safetensors")
    p.decide([agent("42", 0.9), agent("41"), agent("42")], round=2, rounds=3,
             history=[["42", "41", ""], ["42", "41", "42"]])
"""

from .client import Client, MpdfError, agent, decide
from .features import FEATURE_VERSION, FEATURE_VERSION_V2

__all__ = ["Client", "MpdfError", "agent", "decide", "FEATURE_VERSION", "FEATURE_VERSION_V2"]
