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
func FeaturizeV2(dst []float64, obs *Observation) error {
	if len(dst) != FeatureWidthV2 {
		return fmt.Errorf("metapolicy: %s vector of length %d, want %d", FeatureVersionV2, len(dst), FeatureWidthV2)
	}
	if err := Featurize(dst[:FeatureWidth], obs); err != nil {
		return err
	}
	if obs.History != nil && len(obs.History) != obs.Round {
		return fmt.Errorf("metapolicy: observation of round %d has %d history rows, want %d", obs.Round, len(obs.History), obs.Round)
	}
	for r, row := range obs.History {
		if len(row) != len(obs.Agents) {
			return fmt.Errorf("metapolicy: history round %d has %d answers, want %d", r, len(row), len(obs.Agents))
		}
	}
	ext := dst[FeatureWidth:]
	clear(ext)
	n := len(obs.Agents)
	self := obs.Agents[obs.Self]
	now := make([]string, n)
	for i, a := range obs.Agents {
		now[i] = a.Answer
	}
	first, second, own := voteStats(now, self.Answer)
	dst[FMargin] = float64(first-second) / float64(n)
	best := 0 // votes of the best answer other than own
	for _, t := range appendTallies(nil, now, nil, -1) {
		if t.answer != self.Answer {
			best = max(best, t.votes)
		}
	}
	dst[FOwnMargin] = float64(own-best) / float64(n)
	dst[FRelTokens] = dst[FTokens] - dst[FPeerTokens]
	dst[FRelSteps] = dst[FSteps] - dst[FPeerSteps]
	hedges := 0.0
	for i, a := range obs.Agents {
		if i != obs.Self {
			hedges += squash(a.Profile.Hedges, 16) / float64(n-1)
		}
	}
	dst[FRelHedges] = dst[FHedges] - hedges

	if obs.History == nil {
		dst[FHistoryMissing] = 1
		return nil
	}
	h := obs.History
	r0 := h[0]
	dst[FOwnIsFirst] = flag(self.Answer == r0[obs.Self])
	dst[FOwnIsFirstTeam] = flag(self.Answer != "" && self.Answer == TeamAnswer(r0, nil, -1))
	changes := 0
	for r := 1; r < len(h); r++ {
		if h[r][obs.Self] != h[r-1][obs.Self] {
			changes++
		}
	}
	dst[FChanges] = float64(changes) / float64(obs.Rounds)
	dst[FTeamStable] = 1
	if len(h) >= 2 {
		before := h[len(h)-2]
		dst[FChangedLast] = flag(self.Answer != before[obs.Self])
		moved := 0
		for i := range n {
			if i != obs.Self && now[i] != before[i] {
				moved++
			}
		}
		dst[FPeersChanged] = float64(moved) / float64(n-1)
		pf, _, pown := voteStats(before, self.Answer)
		dst[FMajorityDelta] = float64(first-pf) / float64(n)
		dst[FOwnSupportDelta] = float64(own-pown) / float64(n)
		dst[FTeamStable] = flag(TeamAnswer(now, nil, -1) == TeamAnswer(before, nil, -1))
	}
	return nil
}

// voteStats returns the largest and second-largest vote counts of the
// readable answers, and the votes of answer own (0 when own is "").
func voteStats(answers []string, own string) (first, second, ownVotes int) {
	for _, t := range appendTallies(nil, answers, nil, -1) {
		switch {
		case t.votes > first:
			first, second = t.votes, first
		case t.votes > second:
			second = t.votes
		}
		if t.answer == own {
			ownVotes = t.votes
		}
	}
	return first, second, ownVotes
}
