"""Python client of mpdf: ask a served deliberation meta-policy, per round,
which agents persist, refine or concede.

    from mpdf import Client, agent
    c = Client("http://127.0.0.1:8080")
    r = c.decide([agent("42", 0.9), agent("41"), agent(text="... \\\\boxed{42}")],
                 round=1, rounds=3, kind="gsm")
    [a["action"] for a in r["agents"]]

Standard library only (Python >= 3.9). :mod:`mpdf.features` is a pure-Python
reference of the feature layout and :mod:`mpdf.policy` runs an exported
safetensors policy, for users who run the policy themselves.
"""

from .client import Client, MpdfError, agent, decide
from .features import FEATURE_VERSION

__all__ = ["Client", "MpdfError", "agent", "decide", "FEATURE_VERSION"]
