package metapolicy

import (
	"fmt"
	"math"
)

// FeaturizeTeam featurizes a whole deliberation at once: row i of dst
// (len(obs.Agents)·FeatureWidth values) is, bit for bit, what Featurize
// gives with obs.Self = i, and targets[i] is ConcedeTarget for agent i. It
// returns the team answer, TeamAnswer with no agent excluded. obs.Self is
// ignored.
//
// It exists for servers that decide many deliberations: the team's answer
// counts, the distinct answers and each agent's squashed profile are worked
// out once per deliberation instead of once per agent, and nothing is
// allocated for teams of up to 16 agents.
func FeaturizeTeam(dst []float64, targets []string, obs *Observation) (team string, err error) {
	if err := checkTeam(dst, targets, obs, FeatureWidth, ""); err != nil {
		return "", err
	}
	n := len(obs.Agents)
	// Stack buffers up to 16 agents: a server featurizes without allocating.
	var ansBuf [16]string
	var confBuf, tokBuf, stepBuf [16]float64
	var allBuf, peerBuf [16]tally
	answers, conf, tokens, steps := ansBuf[:0], confBuf[:0], tokBuf[:0], stepBuf[:0]
	if n > len(ansBuf) {
		answers, conf, tokens, steps = make([]string, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	}
	d, team := deliberationOf(obs, answers[:n], conf[:n], tokens[:n], steps[:n], allBuf[:0])
	clear(dst)
	for s := range n {
		targets[s] = concedeOf(appendTallies(peerBuf[:0], d.answers, d.conf, s))
		d.row(dst[s*FeatureWidth:(s+1)*FeatureWidth:(s+1)*FeatureWidth], s, team, targets[s])
	}
	return team, nil
}

// checkTeam checks FeaturizeTeam's (or FeaturizeTeamV2's) arguments: dst
// holds width values for each agent, targets one per agent, and obs
// passes Check as agent 0's view. version names a feature version other
// than the first in the error, with a trailing space ("" for the first).
func checkTeam(dst []float64, targets []string, obs *Observation, width int, version string) error {
	n := len(obs.Agents)
	if len(dst) != n*width {
		return fmt.Errorf("metapolicy: %sfeature matrix of length %d, want %d×%d", version, len(dst), n, width)
	}
	if len(targets) != n {
		return fmt.Errorf("metapolicy: %d concede targets for %d agents", len(targets), n)
	}
	chk := *obs
	chk.Self = 0
	return chk.Check()
}

// deliberation is what every agent's row of one observation shares: the
// answers and confidences, the tallies over all agents, and each agent's
// squashed profile. Featurize writes one row of it,
// FeaturizeTeam all.
type deliberation struct {
	obs           *Observation
	answers       []string  // len(obs.Agents)
	conf          []float64 // len(obs.Agents)
	tokens, steps []float64 // squashed profiles, len(obs.Agents)
	all           []tally   // over every agent
}

// deliberationOf fills the per-agent buffers answers, conf, tokens and
// steps (len(obs.Agents) each) from obs, appends the tallies over every
// agent to all, and returns the team answer beside. It returns by value,
// and the team apart, so that buffers on a caller's stack stay there.
func deliberationOf(obs *Observation, answers []string, conf, tokens, steps []float64, all []tally) (deliberation, string) {
	for i, a := range obs.Agents {
		answers[i], conf[i] = a.Answer, a.Confidence
		tokens[i] = squash(a.Profile.Tokens, 4096)
		steps[i] = squash(a.Profile.Steps, 64)
	}
	all = appendTallies(all, answers, conf, -1)
	return deliberation{obs: obs, answers: answers, conf: conf, tokens: tokens, steps: steps, all: all}, teamOf(all)
}

// row writes agent s's features into row (FeatureWidth zeros), given the
// team answer and s's concede target.
func (d *deliberation) row(row []float64, s int, team, target string) {
	agents := d.obs.Agents
	n := len(agents)
	self := agents[s]
	row[FHasAnswer] = flag(self.Answer != "")
	if self.Answer != "" {
		for _, t := range d.all {
			if t.answer == self.Answer {
				row[FOwnShare] = float64(t.votes) / float64(n)
				break
			}
		}
	}
	row[FOwnIsTeam] = flag(self.Answer != "" && self.Answer == team)
	row[FDistinct] = float64(len(d.all)) / float64(n)
	row[FSteps] = d.steps[s]
	row[FTokens] = d.tokens[s]
	row[FHedges] = squash(self.Profile.Hedges, 16)
	row[FSelfConf] = orZero(self.Profile.SelfConfidence)
	row[FSelfConfMissing] = flag(!Known(self.Profile.SelfConfidence))
	row[FConf] = orZero(self.Confidence)
	row[FConfMissing] = flag(!Known(self.Confidence))
	row[FTargetIsOwn] = flag(self.Answer != "" && self.Answer == target)

	peers := float64(n - 1)
	known, sum, mn, mx := 0, 0.0, 1.0, 0.0
	agree, agreeConf, tHold, tKnown, tConf, noAns := 0, 0.0, 0, 0, 0.0, 0
	for i, a := range agents {
		if i == s {
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
		row[FPeerTokens] += d.tokens[i] / peers
		row[FPeerSteps] += d.steps[i] / peers
	}
	if known > 0 {
		row[FPeerConfMean], row[FPeerConfMax], row[FPeerConfMin] = sum/float64(known), mx, mn
	}
	if tKnown > 0 {
		row[FTargetConf] = tConf / float64(tKnown)
	}
	row[FPeerConfMissing] = float64(n-1-known) / peers
	row[FPeerAgree] = float64(agree) / peers
	row[FPeerAgreeConf] = agreeConf / peers
	row[FTargetShare] = float64(tHold) / peers
	row[FPeerNoAnswer] = float64(noAns) / peers
	row[FRound] = float64(d.obs.Round) / float64(d.obs.Rounds)
	row[FLastRound] = flag(d.obs.Round == d.obs.Rounds)
	row[FTeamSize] = math.Log(float64(n)) / math.Log(8)
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func squash(v int, scale float64) float64 { return math.Log1p(float64(v)) / math.Log(scale) }

func orZero(c float64) float64 {
	if Known(c) {
		return c
	}
	return 0
}
