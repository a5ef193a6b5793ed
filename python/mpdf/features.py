"""Pure-Python reference of mpdf's feature layouts: mpdf-features/v1
(:func:`featurize`), mpdf-features/v2 (:func:`featurize_v2`, v1's 26
features then 14 history, margin and relative-profile ones) and
mpdf-features/peers-v1 (:func:`featurize_peers`, v1's 26 features then a
slot of 12 per peer, for the attention policy; at most 8 agents).

It mirrors metapolicy/features.go, features_v2.go and consensus.go line for line,
so that a policy exported with ``mpdf export --safetensors`` and run in
PyTorch (or with :mod:`mpdf.policy`) sees the features ``mpdf serve`` sees.
:func:`featurizer_for` picks the layout by the version a policy file records.
CI checks it against Go's features on a corpus of states
(tests/testdata/features_v1.json, features_v2.json and
features_peers_v1.json, written by ``go
test ./serve -run FeatureGolden -update``).

An agent is a mapping with ``answer`` (normalised answer, "" when none),
``confidence`` (in [0, 1], or None when missing), and the profile counts
``steps``, ``tokens``, ``hedges`` and ``self_confidence`` (None when
missing); absent keys mean "" / None / 0.
"""

import math

FEATURE_VERSION = "mpdf-features/v1"

FEATURE_NAMES = [
    "has_answer",         # own answer readable
    "own_share",          # share of all N agents holding own answer
    "own_is_team",        # own answer is the team (plurality) answer
    "distinct",           # distinct answers / N
    "steps",              # log1p(own steps)/log(64)
    "tokens",             # log1p(own tokens)/log(4096)
    "hedges",             # log1p(own hedges)/log(16)
    "self_conf",          # own stated confidence, 0 when missing
    "self_conf_missing",  # 1 when own stated confidence is missing
    "conf",               # own introspective confidence, 0 when missing
    "conf_missing",       # 1 when own introspective confidence is missing
    "peer_conf_mean",     # mean known peer confidence (0 when none)
    "peer_conf_max",      # max known peer confidence
    "peer_conf_min",      # min known peer confidence
    "peer_conf_missing",  # share of peers whose confidence is missing
    "peer_agree",         # share of peers holding own answer
    "peer_agree_conf",    # summed confidence of agreeing peers / (N-1)
    "target_share",       # share of peers holding the concede target
    "target_conf",        # mean known confidence of the target's holders
    "target_is_own",      # concede target equals own answer
    "peer_tokens",        # mean log1p(peer tokens)/log(4096)
    "peer_steps",         # mean log1p(peer steps)/log(64)
    "peer_no_answer",     # share of peers without a readable answer
    "round",              # round / rounds
    "last_round",         # 1 in the last round
    "team_size",          # log(N)/log(8)
]

FEATURE_WIDTH = len(FEATURE_NAMES)
assert FEATURE_WIDTH == 26


def known(c):
    """Whether a confidence is present (not None, not NaN)."""
    return c is not None and not (isinstance(c, float) and math.isnan(c))


def _tallies(answers, conf, keep):
    # [answer, votes, summed confidence (missing = 0), first holder]
    ts = []
    for i, a in enumerate(answers):
        if a == "" or not keep(i):
            continue
        c = conf[i] if conf is not None and known(conf[i]) else 0.0
        for t in ts:
            if t[0] == a:
                t[1] += 1
                t[2] += c
                break
        else:
            ts.append([a, 1, c, i])
    return ts


def _same_conf(a, b):
    return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def _better(v1, c1, v2, c2):
    if v1 != v2:
        return v1 > v2
    return c1 > c2 and not _same_conf(c1, c2)


def team_answer(answers, conf=None, exclude=-1):
    """Plurality answer of the agents other than ``exclude`` (-1 keeps all):
    most votes, then highest summed confidence, then lowest agent index;
    "" when no agent has an answer."""
    best = None
    for t in _tallies(answers, conf, lambda i: i != exclude):
        if best is None or _better(t[1], t[2], best[1], best[2]):
            best = t
    return best[0] if best else ""


def concede_target(answers, conf, self_index):
    """The answer a conceding agent adopts: held by the peers with the highest
    summed confidence; ties go to the plurality answer, then to the lowest
    agent index; "" when no peer has an answer."""
    best = None
    for t in _tallies(answers, conf, lambda i: i != self_index):
        if (best is None or _better(0, t[2], 0, best[2])
                or (_same_conf(t[2], best[2]) and t[1] > best[1])):
            best = t
    return best[0] if best else ""


def _squash(v, scale):
    return math.log1p(float(v)) / math.log(scale)


def featurize(agents, self_index, round, rounds):
    """The feature vector (a list of FEATURE_WIDTH floats) of agent
    ``self_index`` at the start of deliberation round ``round`` (1-based) of
    ``rounds``."""
    n = len(agents)
    if n < 2:
        raise ValueError("featurize: %d agents, want >= 2" % n)
    if not 0 <= self_index < n:
        raise ValueError("featurize: self index %d outside [0, %d)" % (self_index, n))
    if not (rounds >= 1 and 1 <= round <= rounds):
        raise ValueError("featurize: round %d of %d" % (round, rounds))
    answers = [a.get("answer") or "" for a in agents]
    conf = [a.get("confidence") for a in agents]
    for i, c in enumerate(conf):
        if known(c) and not 0 <= c <= 1:
            raise ValueError("featurize: agent %d: confidence %r outside [0,1]" % (i, c))
    me = agents[self_index]
    own_ans = answers[self_index]
    d = [0.0] * FEATURE_WIDTH

    def flag(b):
        return 1.0 if b else 0.0

    def or_zero(c):
        return c if known(c) else 0.0

    team = team_answer(answers, conf, -1)
    target = concede_target(answers, conf, self_index)
    d[0] = flag(own_ans != "")
    d[2] = flag(own_ans != "" and own_ans == team)
    d[19] = flag(own_ans != "" and own_ans == target)
    distinct = set()
    own = 0
    for a in answers:
        if a != "":
            distinct.add(a)
            if a == own_ans:
                own += 1
    d[1] = own / n
    d[3] = len(distinct) / n
    d[4] = _squash(me.get("steps", 0), 64)
    d[5] = _squash(me.get("tokens", 0), 4096)
    d[6] = _squash(me.get("hedges", 0), 16)
    sc = me.get("self_confidence")
    d[7] = or_zero(sc)
    d[8] = flag(not known(sc))
    d[9] = or_zero(conf[self_index])
    d[10] = flag(not known(conf[self_index]))

    peers = float(n - 1)
    nknown, total, mn, mx = 0, 0.0, 1.0, 0.0
    agree, agree_conf, t_hold, t_known, t_conf, no_ans = 0, 0.0, 0, 0, 0.0, 0
    for i, a in enumerate(agents):
        if i == self_index:
            continue
        c = conf[i]
        if known(c):
            nknown += 1
            total += c
            mn, mx = min(mn, c), max(mx, c)
        if answers[i] == "":
            no_ans += 1
        else:
            if answers[i] == own_ans:
                agree += 1
                agree_conf += or_zero(c)
            if answers[i] == target:
                t_hold += 1
                if known(c):
                    t_known += 1
                    t_conf += c
        d[20] += _squash(a.get("tokens", 0), 4096) / peers
        d[21] += _squash(a.get("steps", 0), 64) / peers
    if nknown > 0:
        d[11], d[12], d[13] = total / nknown, mx, mn
    if t_known > 0:
        d[18] = t_conf / t_known
    d[14] = (n - 1 - nknown) / peers
    d[15] = agree / peers
    d[16] = agree_conf / peers
    d[17] = t_hold / peers
    d[22] = no_ans / peers
    d[23] = round / rounds
    d[24] = flag(round == rounds)
    d[25] = math.log(n) / math.log(8)
    return d


# --- mpdf-features/v2 (metapolicy/features_v2.go) ---------------------------

FEATURE_VERSION_V2 = "mpdf-features/v2"

FEATURE_NAMES_V2 = FEATURE_NAMES + [
    "history_missing",    # 1 when the observation has no history
    "changed_last",       # own answer changed in the last round
    "changes",            # own answer changes so far / rounds
    "own_is_first",       # own answer is its round-0 answer
    "own_is_first_team",  # own answer is the round-0 team (plurality) answer
    "peers_changed",      # share of peers whose answer changed in the last round
    "majority_delta",     # plurality share now minus one round earlier
    "own_support_delta",  # share holding own answer now minus one round earlier
    "team_stable",        # team answer unchanged by the last round (1 in round 1)
    "margin",             # (top votes - second votes) / N
    "own_margin",         # (own votes - best other answer's votes) / N
    "rel_tokens",         # tokens minus peer_tokens
    "rel_steps",          # steps minus peer_steps
    "rel_hedges",         # hedges minus the peers' mean log1p(hedges)/log(16)
]

FEATURE_WIDTH_V2 = len(FEATURE_NAMES_V2)
assert FEATURE_WIDTH_V2 == 40


def _vote_stats(answers, own):
    # Largest and second-largest vote counts, and the votes of own.
    first = second = own_votes = 0
    for t in _tallies(answers, None, lambda i: True):
        if t[1] > first:
            first, second = t[1], first
        elif t[1] > second:
            second = t[1]
        if t[0] == own:
            own_votes = t[1]
    return first, second, own_votes


def featurize_v2(agents, self_index, round, rounds, history=None):
    """The mpdf-features/v2 vector (FEATURE_WIDTH_V2 floats): featurize's 26
    features, then history, margin and relative-profile features.
    ``history`` is every agent's answer in rounds 0 .. round-1 (round 0
    first, the last row the agents' current answers), or None when unknown."""
    d = featurize(agents, self_index, round, rounds) + [0.0] * (FEATURE_WIDTH_V2 - FEATURE_WIDTH)
    n = len(agents)
    if history is not None:
        if len(history) != round:
            raise ValueError("featurize_v2: %d history rows in round %d" % (len(history), round))
        for r, row in enumerate(history):
            if len(row) != n:
                raise ValueError("featurize_v2: history round %d has %d answers for %d agents" % (r, len(row), n))
    now = [a.get("answer") or "" for a in agents]
    own_ans = now[self_index]
    w = FEATURE_WIDTH

    def flag(b):
        return 1.0 if b else 0.0

    first, second, own = _vote_stats(now, own_ans)
    d[w + 9] = (first - second) / n
    best = 0
    for t in _tallies(now, None, lambda i: True):
        if t[0] != own_ans:
            best = max(best, t[1])
    d[w + 10] = (own - best) / n
    d[w + 11] = d[5] - d[20]
    d[w + 12] = d[4] - d[21]
    hedges = 0.0
    for i, a in enumerate(agents):
        if i != self_index:
            hedges += math.log1p(float(a.get("hedges", 0))) / math.log(16) / (n - 1)
    d[w + 13] = d[6] - hedges

    if history is None:
        d[w + 0] = 1.0
        return d
    h = history
    r0 = h[0]
    d[w + 3] = flag(own_ans == r0[self_index])
    d[w + 4] = flag(own_ans != "" and own_ans == team_answer(r0, None, -1))
    changes = sum(1 for r in range(1, len(h)) if h[r][self_index] != h[r - 1][self_index])
    d[w + 2] = changes / rounds
    d[w + 8] = 1.0
    if len(h) >= 2:
        before = h[-2]
        d[w + 1] = flag(own_ans != before[self_index])
        moved = sum(1 for i in range(n) if i != self_index and now[i] != before[i])
        d[w + 5] = moved / (n - 1)
        pf, _, pown = _vote_stats(before, own_ans)
        d[w + 6] = (first - pf) / n
        d[w + 7] = (own - pown) / n
        d[w + 8] = flag(team_answer(now, None, -1) == team_answer(before, None, -1))
    return d


# --- mpdf-features/peers-v1 (the attention policy's layout) -----------------

FEATURE_VERSION_PEERS = "mpdf-features/peers-v1"

# PEER_SLOTS slots of PEER_WIDTH features after v1's 26: a team of at most
# PEER_SLOTS + 1 agents.
PEER_SLOTS = 7

PEER_FEATURE_NAMES = [
    "present",            # 1: a peer fills the slot
    "has_answer",         # the peer's answer is readable
    "agrees",             # readable and equal to own readable answer
    "holds_team",         # readable and equal to the team (plurality) answer
    "holds_target",       # readable and equal to own concede target
    "conf",               # the peer's introspective confidence, 0 when missing
    "conf_missing",       # 1 when it is missing
    "self_conf",          # the peer's stated confidence, 0 when missing
    "self_conf_missing",  # 1 when it is missing
    "tokens",             # log1p(tokens)/log(4096)
    "steps",              # log1p(steps)/log(64)
    "hedges",             # log1p(hedges)/log(16)
]

PEER_WIDTH = len(PEER_FEATURE_NAMES)
assert PEER_WIDTH == 12

FEATURE_NAMES_PEERS = FEATURE_NAMES + ["peer%d_%s" % (j, n) for j in range(PEER_SLOTS) for n in PEER_FEATURE_NAMES]

FEATURE_WIDTH_PEERS = len(FEATURE_NAMES_PEERS)
assert FEATURE_WIDTH_PEERS == 110


def featurize_peers(agents, self_index, round, rounds):
    """The mpdf-features/peers-v1 vector (FEATURE_WIDTH_PEERS floats):
    featurize's 26 features, then slot j (j = 0..6) describes peer
    (self_index + 1 + j) mod N, PEER_WIDTH features each (PEER_FEATURE_NAMES);
    the slots past the N-1 peers are zeros. A team of more than 8 agents is
    a ValueError."""
    n = len(agents)
    if n > PEER_SLOTS + 1:
        raise ValueError("featurize_peers: %s holds at most %d agents, the team has %d"
                         % (FEATURE_VERSION_PEERS, PEER_SLOTS + 1, n))
    d = featurize(agents, self_index, round, rounds) + [0.0] * (PEER_SLOTS * PEER_WIDTH)
    answers = [a.get("answer") or "" for a in agents]
    conf = [a.get("confidence") for a in agents]
    own = answers[self_index]
    team = team_answer(answers, conf, -1)
    target = concede_target(answers, conf, self_index)

    def flag(b):
        return 1.0 if b else 0.0

    for j in range(n - 1):
        i = (self_index + 1 + j) % n
        a, ans = agents[i], answers[i]
        c, sc = conf[i], a.get("self_confidence")
        s = [
            1.0,
            flag(ans != ""),
            flag(ans != "" and ans == own),
            flag(ans != "" and ans == team),
            flag(ans != "" and ans == target),
            c if known(c) else 0.0,
            flag(not known(c)),
            sc if known(sc) else 0.0,
            flag(not known(sc)),
            _squash(a.get("tokens", 0), 4096),
            _squash(a.get("steps", 0), 64),
            _squash(a.get("hedges", 0), 16),
        ]
        lo = FEATURE_WIDTH + PEER_WIDTH * j
        d[lo:lo + PEER_WIDTH] = s
    return d


# --- the layouts by version (metapolicy.FeaturizerFor) ----------------------

def _featurize_v1(agents, self_index, round, rounds, history=None):
    # v1 (and peers-v1) read no history; the argument is accepted so every
    # layout shares one signature.
    return featurize(agents, self_index, round, rounds)


def _featurize_peers(agents, self_index, round, rounds, history=None):
    return featurize_peers(agents, self_index, round, rounds)


FEATURIZERS = {
    FEATURE_VERSION: (FEATURE_WIDTH, _featurize_v1),
    FEATURE_VERSION_V2: (FEATURE_WIDTH_V2, featurize_v2),
    FEATURE_VERSION_PEERS: (FEATURE_WIDTH_PEERS, _featurize_peers),
}
"""version -> (width, featurize(agents, self_index, round, rounds, history=None))."""


def featurizer_for(version):
    """The (width, function) of the layout called ``version`` (a policy
    file's ``feature_version``); ``function(agents, self_index, round,
    rounds, history=None)`` returns the vector. An unknown version is a
    ValueError listing the known ones."""
    try:
        return FEATURIZERS[version]
    except (KeyError, TypeError):
        raise ValueError("unknown feature version %r (want one of %s)"
                         % (version, ", ".join(sorted(FEATURIZERS)))) from None
