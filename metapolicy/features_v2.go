package metapolicy

import (
	"fmt"
)

// FeatureVersionV2 names the layout of FeaturizeV2: FeatureVersion's 26
// features unchanged, then the answer history and the agent's standing
// relative to its peers. It is not this build's default (FeatureVersion);
// a Featurizer selects it.
const FeatureVersionV2 = "mpdf-features/v2"

// FeatureWidthV2 is the length of a FeaturizeV2 vector.
const FeatureWidthV2 = numFeaturesV2

// Features of FeatureVersionV2 after the first FeatureWidth (which are
// FeatureVersion's). "Last round" is the change from round Round−2 to
// Round−1 of the observation's History; in round 1, with no change yet
// possible, those are 0. Without a History (nil) every history feature is
// 0 and FHistoryMissing is 1.
const (
	FHistoryMissing  = FeatureWidth + iota // 1 when the observation has no History
	FChangedLast                           // own answer changed in the last round
	FChanges                               // own answer changes so far / Rounds
	FOwnIsFirst                            // own answer is its round-0 answer
	FOwnIsFirstTeam                        // own answer is the round-0 team (plurality) answer
	FPeersChanged                          // share of peers whose answer changed in the last round
	FMajorityDelta                         // plurality share now minus one round earlier
	FOwnSupportDelta                       // share holding own answer now minus one round earlier
	FTeamStable                            // team answer unchanged by the last round (1 in round 1)
	FMargin                                // (top votes − second votes) / N
	FOwnMargin                             // (own votes − best other answer's votes) / N, in [−1, 1]
	FRelTokens                             // FTokens minus the peers' mean (FPeerTokens)
	FRelSteps                              // FSteps minus the peers' mean (FPeerSteps)
	FRelHedges                             // FHedges minus the peers' mean log1p(hedges)/log(16)
	numFeaturesV2
)

// FeaturizeV2 writes the FeatureVersionV2 vector of obs into dst (len
// FeatureWidthV2): Featurize's features first, then the ones above.
// FeaturizeTeamV2 writes the same rows for every agent at once.
func FeaturizeV2(dst []float64, obs *Observation) error {
	if len(dst) != FeatureWidthV2 {
		return fmt.Errorf("metapolicy: %s vector of length %d, want %d", FeatureVersionV2, len(dst), FeatureWidthV2)
	}
	if err := Featurize(dst[:FeatureWidth], obs); err != nil { // also checks the history's shape
		return err
	}
	n := len(obs.Agents)
	var ansBuf [16]string
	var hedgeBuf [16]float64
	var nowBuf, beforeBuf [16]tally
	answers, hedges := ansBuf[:0], hedgeBuf[:0]
	if n > len(ansBuf) {
		answers, hedges = make([]string, 0, n), make([]float64, 0, n)
	}
	answers = answers[:n]
	for i, a := range obs.Agents {
		answers[i] = a.Answer
	}
	t := pastOf(obs, answers, hedges[:n], nowBuf[:0], beforeBuf[:0])
	t.row(dst, obs.Self)
	return nil
}

// past is what the FeatureVersionV2 extension of every agent of one
// observation shares: the vote counts now and one round earlier, the team
// answers of round 0, now and one round earlier, and each agent's squashed
// hedges.
type past struct {
	obs           *Observation
	now           []tally   // the current answers, confidence ignored
	first, second int       // the largest and second-largest vote counts now
	hedges        []float64 // squash(hedges, 16) per agent
	firstTeam     string    // round 0's team answer (with a history)
	before        []tally   // round Round−2's answers (with ≥ 2 history rows)
	beforeFirst   int       // the largest vote count of before
	stable        bool      // the team answer is before's
}

// pastOf fills hedges (len(obs.Agents)) and appends the tallies of the
// agents' answers to now and of round Round−2's to before, for obs (checked).
// It returns by value so that buffers on a caller's stack stay there.
func pastOf(obs *Observation, answers []string, hedges []float64, now, before []tally) past {
	for i, a := range obs.Agents {
		hedges[i] = squash(a.Profile.Hedges, 16)
	}
	t := past{obs: obs, hedges: hedges, now: appendTallies(now, answers, nil, -1)}
	t.first, t.second = topVotes(t.now)
	h := obs.History
	if h == nil {
		return t
	}
	t.firstTeam = teamOf(appendTallies(before, h[0], nil, -1)) // before's buffer, borrowed
	if len(h) >= 2 {
		t.before = appendTallies(before, h[len(h)-2], nil, -1)
		t.beforeFirst, _ = topVotes(t.before)
		t.stable = teamOf(t.now) == teamOf(t.before)
	}
	return t
}

// topVotes returns the largest and second-largest vote counts of ts.
func topVotes(ts []tally) (first, second int) {
	for _, t := range ts {
		switch {
		case t.votes > first:
			first, second = t.votes, first
		case t.votes > second:
			second = t.votes
		}
	}
	return first, second
}

// votesOf returns the votes of answer a in ts (0 for "" or an answer none
// holds).
func votesOf(ts []tally, a string) int {
	for _, t := range ts {
		if t.answer == a {
			return t.votes
		}
	}
	return 0
}

// row writes agent s's features after the first FeatureWidth of row (len
// FeatureWidthV2), which hold its FeatureVersion features already.
func (t *past) row(row []float64, s int) {
	obs := t.obs
	n := len(obs.Agents)
	self := obs.Agents[s]
	clear(row[FeatureWidth:])
	own, best := 0, 0 // votes of own answer, of the best other answer
	for _, tl := range t.now {
		if tl.answer == self.Answer {
			own = tl.votes
		} else {
			best = max(best, tl.votes)
		}
	}
	row[FMargin] = float64(t.first-t.second) / float64(n)
	row[FOwnMargin] = float64(own-best) / float64(n)
	row[FRelTokens] = row[FTokens] - row[FPeerTokens]
	row[FRelSteps] = row[FSteps] - row[FPeerSteps]
	hedges := 0.0
	for i, h := range t.hedges {
		if i != s {
			hedges += h / float64(n-1)
		}
	}
	row[FRelHedges] = row[FHedges] - hedges

	h := obs.History
	if h == nil {
		row[FHistoryMissing] = 1
		return
	}
	row[FOwnIsFirst] = flag(self.Answer == h[0][s])
	row[FOwnIsFirstTeam] = flag(self.Answer != "" && self.Answer == t.firstTeam)
	changes := 0
	for r := 1; r < len(h); r++ {
		if h[r][s] != h[r-1][s] {
			changes++
		}
	}
	row[FChanges] = float64(changes) / float64(obs.Rounds)
	row[FTeamStable] = 1
	if len(h) >= 2 {
		before := h[len(h)-2]
		row[FChangedLast] = flag(self.Answer != before[s])
		moved := 0
		for i, a := range obs.Agents {
			if i != s && a.Answer != before[i] {
				moved++
			}
		}
		row[FPeersChanged] = float64(moved) / float64(n-1)
		row[FMajorityDelta] = float64(t.first-t.beforeFirst) / float64(n)
		row[FOwnSupportDelta] = float64(own-votesOf(t.before, self.Answer)) / float64(n)
		row[FTeamStable] = flag(t.stable)
	}
}
