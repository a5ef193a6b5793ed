package metapolicy

import (
	"fmt"
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
	d, team := deliberationOf(obs, make([]string, n), make([]float64, n), make([]float64, n), make([]float64, n), nil)
	clear(dst)
	d.row(dst, obs.Self, team, concedeOf(appendTallies(nil, d.answers, d.conf, obs.Self)))
	return nil
}
