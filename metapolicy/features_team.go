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
	n := len(obs.Agents)
	if len(dst) != n*FeatureWidth {
		return "", fmt.Errorf("metapolicy: feature matrix of length %d, want %d×%d", len(dst), n, FeatureWidth)
	}
	if len(targets) != n {
		return "", fmt.Errorf("metapolicy: %d concede targets for %d agents", len(targets), n)
	}
	chk := *obs
	chk.Self = 0
	if err := chk.Check(); err != nil {
		return "", err
	}
	agents := obs.Agents
	clear(dst)
	var buf [16]tally
	all := agentTallies(buf[:0], agents, -1)
	team = teamOf(all)
	distinct := float64(len(all)) / float64(n)
	round := float64(obs.Round) / float64(obs.Rounds)
	last := flag(obs.Round == obs.Rounds)
	size := math.Log(float64(n)) / math.Log(8)
	peers := float64(n - 1)

	// Own columns first: the peer means below read the squashed profiles
	// back from the rows, the same values Featurize computes per peer.
	for s, self := range agents {
		row := dst[s*FeatureWidth : (s+1)*FeatureWidth : (s+1)*FeatureWidth]
		row[FHasAnswer] = flag(self.Answer != "")
		if self.Answer != "" {
			for _, t := range all {
				if t.answer == self.Answer {
					row[FOwnShare] = float64(t.votes) / float64(n)
					break
				}
			}
		}
		row[FOwnIsTeam] = flag(self.Answer != "" && self.Answer == team)
		row[FDistinct] = distinct
		row[FSteps] = squash(self.Profile.Steps, 64)
		row[FTokens] = squash(self.Profile.Tokens, 4096)
		row[FHedges] = squash(self.Profile.Hedges, 16)
		row[FSelfConf] = orZero(self.Profile.SelfConfidence)
		row[FSelfConfMissing] = flag(!Known(self.Profile.SelfConfidence))
		row[FConf] = orZero(self.Confidence)
		row[FConfMissing] = flag(!Known(self.Confidence))
		row[FRound] = round
		row[FLastRound] = last
		row[FTeamSize] = size
	}
	for s, self := range agents {
		row := dst[s*FeatureWidth : (s+1)*FeatureWidth : (s+1)*FeatureWidth]
		target := concedeOf(agentTallies(buf[:0], agents, s))
		targets[s] = target
		row[FTargetIsOwn] = flag(self.Answer != "" && self.Answer == target)
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
			row[FPeerTokens] += dst[i*FeatureWidth+FTokens] / peers
			row[FPeerSteps] += dst[i*FeatureWidth+FSteps] / peers
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
	}
	return team, nil
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

// agentTallies is tallies over the agents other than exclude, appending to
// ts (a caller's buffer) instead of allocating.
func agentTallies(ts []tally, agents []AgentState, exclude int) []tally {
	for i, ag := range agents {
		a := ag.Answer
		if a == "" || i == exclude {
			continue
		}
		c := orZero(ag.Confidence)
		found := false
		for k := range ts {
			if ts[k].answer == a {
				ts[k].votes++
				ts[k].conf += c
				found = true
				break
			}
		}
		if !found {
			ts = append(ts, tally{answer: a, votes: 1, conf: c, first: i})
		}
	}
	return ts
}
