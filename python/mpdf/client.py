"""Client of ``mpdf serve`` (api/openapi.json), standard library only."""

import json
import time
import urllib.error
import urllib.request


class MpdfError(Exception):
    """An error answered by the server: ``status`` (HTTP code), ``kind``
    (bad_json, invalid, too_large, overloaded, ...), ``field`` (the JSON path
    at fault, or None) and the server's message; or no server there:
    ``status`` None, ``kind`` "unreachable", a sentence saying so."""

    def __init__(self, status, kind, message, field=None):
        super().__init__(message)
        self.status, self.kind, self.field, self.message = status, kind, field, message


def agent(answer=None, confidence=None, text=None, completion_tokens=None, profile=None, model=None):
    """One agent's state for a decide request; None fields are left out
    (a missing confidence is not zero). Give ``answer`` (already normalised)
    or ``text`` (the raw response, read by the server's answer reader).
    ``model`` is the agent's backbone model: a policy with a network per
    model decides for the agent with that model's network."""
    a = {"answer": answer, "confidence": confidence, "text": text,
         "completion_tokens": completion_tokens, "profile": profile, "model": model}
    return {k: v for k, v in a.items() if v is not None}


class Client:
    """A connection to an ``mpdf serve`` at ``base_url``.

    ``retries`` re-sends a request the server refused as overloaded (429)
    after the Retry-After it gave; the requests are stateless, so any
    replica may answer.
    """

    def __init__(self, base_url="http://127.0.0.1:8080", timeout=10.0, retries=2):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body, allow_nan=False).encode()
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(self.base_url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read())
            except urllib.error.HTTPError as e:
                raw = e.read()
                try:
                    eb = json.loads(raw)
                except ValueError:
                    eb = {"error": raw.decode("utf-8", "replace"), "kind": "http"}
                if e.code == 429 and attempt < self.retries:
                    time.sleep(float(e.headers.get("Retry-After") or 1))
                    continue
                raise MpdfError(e.code, eb.get("kind"), eb.get("error"), eb.get("field")) from None
            except (urllib.error.URLError, ConnectionError) as e:
                # A server that is not there: one sentence, not a chain of
                # socket tracebacks.
                reason = getattr(e, "reason", e)
                raise MpdfError(None, "unreachable", "cannot reach mpdf serve at %s (%s): is it running? "
                                "start it with: mpdf serve --policy FILE --addr HOST:PORT" % (self.base_url, reason)) from None

    def decide(self, agents, round, rounds, kind=None, mode="greedy", seed=None, id=None, history=None):
        """Decide every agent's meta-action in one deliberation.

        ``agents`` is a list of :func:`agent` dicts; ``round`` is the
        1-based deliberation round about to be played, of ``rounds``;
        ``kind`` ("gsm" or "mmlu") is needed when agents are given as text.
        ``history`` (optional) is every agent's answer in the rounds played
        so far, round 0 first: ``round`` lists of one answer per agent, the
        last the agents' current answers; an mpdf-features/v2 policy reads
        it (without it, it sees the past as unknown), a v1 policy ignores it.
        Returns the response: ``team_answer`` and ``agents``, one
        ``{"action", "probs", "log_prob", "answer", "concede_target"}`` per
        agent, with ``feature_version``, ``policy`` and ``mode``.
        """
        body = {"round": round, "rounds": rounds, "agents": agents, "mode": mode}
        for k, v in (("kind", kind), ("seed", seed), ("id", id), ("history", history)):
            if v is not None:
                body[k] = v
        return self._call("POST", "/v1/decide", body)

    def decide_batch(self, deliberations, mode="greedy", seed=None):
        """Decide many deliberations (dicts with round, rounds, agents, and
        optionally kind, id and history) in one call; ``results`` is in order."""
        body = {"deliberations": deliberations, "mode": mode}
        if seed is not None:
            body["seed"] = seed
        return self._call("POST", "/v1/decide", body)

    def policy(self):
        """The policy being served (checkpoint header)."""
        return self._call("GET", "/v1/policy")

    def reload(self):
        """Make the server re-read its policy file: only a server started
        with ``--allow-reload`` does (else MpdfError 403, kind forbidden)."""
        return self._call("POST", "/v1/reload")

    def ready(self):
        """Whether the server has a policy and is not shutting down."""
        try:
            self._call("GET", "/readyz")
            return True
        except (MpdfError, OSError):
            return False


def decide(agents, round, rounds, base_url="http://127.0.0.1:8080", **kwargs):
    """One-shot :meth:`Client.decide` against ``base_url``."""
    return Client(base_url).decide(agents, round, rounds, **kwargs)
