package metapolicy

import (
	"fmt"
	"math"
)

// FeatureVersion names the layout below. Change it whenever the layout or
// the meaning of a feature changes; checkpoints record it and refuse to load
// under another.
const FeatureVersion = "mpdf-features/v1"

// FeatureWidth is the length of every feature vector, whatever the team size.
const FeatureWidth = 26

// Feature layout of FeatureVersion. Counts are squashed with log1p so that a
// long answer cannot dominate; shares are in [0,1]; every confidence that may
// be missing has a value slot (0 when missing) and a missing flag. Peers are
// pooled (shares, mean, min, max) so that their order does not matter and
// any N ≥ 2 fits.
const (
	FHasAnswer       = iota // own answer readable
	FOwnShare               // share of all N agents holding own answer
	FOwnIsTeam              // own answer is the team (plurality) answer
	FDistinct               // distinct answers / N
	FSteps                  // log1p(own steps)/log(64)
	FTokens                 // log1p(own tokens)/log(4096)
	FHedges                 // log1p(own hedges)/log(16)
	FSelfConf               // own stated confidence, 0 when missing
	FSelfConfMissing        // 1 when own stated confidence is missing
	FConf                   // own introspective confidence, 0 when missing
	FConfMissing            // 1 when own introspective confidence is missing
	FPeerConfMean           // mean known peer confidence (0 when none)
	FPeerConfMax            // max known peer confidence
	FPeerConfMin            // min known peer confidence
	FPeerConfMissing        // share of peers whose confidence is missing
	FPeerAgree              // share of peers holding own answer
	FPeerAgreeConf          // summed confidence of agreeing peers / (N−1)
	FTargetShare            // share of peers holding the concede target
	FTargetConf             // mean known confidence of the target's holders
	FTargetIsOwn            // concede target equals own answer
	FPeerTokens             // mean log1p(peer tokens)/log(4096)
	FPeerSteps              // mean log1p(peer steps)/log(64)
	FPeerNoAnswer           // share of peers without a readable answer
	FRound                  // round / rounds
	FLastRound              // 1 in the last round
	FTeamSize               // log(N)/log(8)
	numFeatures
)

var _ = [1]struct{}{}[numFeatures-FeatureWidth] // FeatureWidth matches the layout

// Featurize writes the feature vector of obs into dst (len FeatureWidth).
// It returns an error for an observation that fails Check.
func Featurize(dst []float64, obs *Observation) error {
	if len(dst) != FeatureWidth {
		return fmt.Errorf("metapolicy: feature vector of length %d, want %d", len(dst), FeatureWidth)
	}
	if err := obs.Check(); err != nil {
		return err
	}
	n := len(obs.Agents)
	answers := make([]string, n)
	conf := make([]float64, n)
	for i, a := range obs.Agents {
		answers[i], conf[i] = a.Answer, a.Confidence
	}
	self := obs.Agents[obs.Self]
	clear(dst)
	flag := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	squash := func(v int, scale float64) float64 { return math.Log1p(float64(v)) / math.Log(scale) }
	orZero := func(c float64) float64 {
		if Known(c) {
			return c
		}
		return 0
	}

	team := TeamAnswer(answers, conf, -1)
	target := ConcedeTarget(answers, conf, obs.Self)
	dst[FHasAnswer] = flag(self.Answer != "")
	dst[FOwnIsTeam] = flag(self.Answer != "" && self.Answer == team)
	dst[FTargetIsOwn] = flag(self.Answer != "" && self.Answer == target)
	distinct := map[string]bool{}
	own := 0
	for _, a := range answers {
		if a != "" {
			distinct[a] = true
			if a == self.Answer {
				own++
			}
		}
	}
	dst[FOwnShare] = float64(own) / float64(n)
	dst[FDistinct] = float64(len(distinct)) / float64(n)
	dst[FSteps] = squash(self.Profile.Steps, 64)
	dst[FTokens] = squash(self.Profile.Tokens, 4096)
	dst[FHedges] = squash(self.Profile.Hedges, 16)
	dst[FSelfConf] = orZero(self.Profile.SelfConfidence)
	dst[FSelfConfMissing] = flag(!Known(self.Profile.SelfConfidence))
	dst[FConf] = orZero(self.Confidence)
	dst[FConfMissing] = flag(!Known(self.Confidence))

	peers := float64(n - 1)
	known, sum, mn, mx := 0, 0.0, 1.0, 0.0
	agree, agreeConf, tHold, tKnown, tConf, noAns := 0, 0.0, 0, 0, 0.0, 0
	for i, a := range obs.Agents {
		if i == obs.Self {
			continue
		}
		if c := a.Confidence; Known(c) {
			known++
			sum += c
			mn, mx = min(mn, c), max(mx, c)
		}
		if a.Answer == "" {
			noAns++
		} else {
			if a.Answer == self.Answer {
				agree++
				agreeConf += orZero(a.Confidence)
			}
			if a.Answer == target {
				tHold++
				if Known(a.Confidence) {
					tKnown++
					tConf += a.Confidence
				}
			}
		}
		dst[FPeerTokens] += squash(a.Profile.Tokens, 4096) / peers
		dst[FPeerSteps] += squash(a.Profile.Steps, 64) / peers
	}
	if known > 0 {
		dst[FPeerConfMean], dst[FPeerConfMax], dst[FPeerConfMin] = sum/float64(known), mx, mn
	}
	if tKnown > 0 {
		dst[FTargetConf] = tConf / float64(tKnown)
	}
	dst[FPeerConfMissing] = float64(n-1-known) / peers
	dst[FPeerAgree] = float64(agree) / peers
	dst[FPeerAgreeConf] = agreeConf / peers
	dst[FTargetShare] = float64(tHold) / peers
	dst[FPeerNoAnswer] = float64(noAns) / peers
	dst[FRound] = float64(obs.Round) / float64(obs.Rounds)
	dst[FLastRound] = flag(obs.Round == obs.Rounds)
	dst[FTeamSize] = math.Log(float64(n)) / math.Log(8)
	return nil
}
