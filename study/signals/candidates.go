package signals

import (
	"math"
	"strings"

	"github.com/mpdf/mpdf/answer"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// Decision is one agent's decision in one round of an episode: agent
// Agent chose its action of round Round (≥ 1) having seen round Round−1.
type Decision struct {
	Ep    *data.Episode
	Round int
	Agent int
	// V1 is metapolicy.Featurize of the observation.
	V1 []float64
}

// Candidate is a state feature computed from a decision.
type Candidate struct {
	Name  string
	Doc   string
	Value func(d *Decision) float64
}

// v1Names are the names of metapolicy's feature constants, in layout order.
var v1Names = [metapolicy.FeatureWidth]string{
	"FHasAnswer", "FOwnShare", "FOwnIsTeam", "FDistinct", "FSteps", "FTokens", "FHedges",
	"FSelfConf", "FSelfConfMissing", "FConf", "FConfMissing", "FPeerConfMean", "FPeerConfMax",
	"FPeerConfMin", "FPeerConfMissing", "FPeerAgree", "FPeerAgreeConf", "FTargetShare",
	"FTargetConf", "FTargetIsOwn", "FPeerTokens", "FPeerSteps", "FPeerNoAnswer", "FRound",
	"FLastRound", "FTeamSize",
}

// answers returns round t's answers of ep.
func answers(ep *data.Episode, t int) []string {
	a, _ := data.Votes(ep.Rounds[t].Turns)
	return a
}

// votes counts the readable answers of round t.
func votes(as []string) map[string]int {
	v := map[string]int{}
	for _, a := range as {
		if a != "" {
			v[a]++
		}
	}
	return v
}

// topTwo returns the largest and second-largest vote counts.
func topTwo(v map[string]int) (first, second int) {
	for _, c := range v {
		switch {
		case c > first:
			first, second = c, first
		case c > second:
			second = c
		}
	}
	return first, second
}

func flag(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func squash(v int, scale float64) float64 { return math.Log1p(float64(v)) / math.Log(scale) }

// peerMean is the mean over the peers of f(turn).
func peerMean(d *Decision, f func(*data.Turn) float64) float64 {
	turns := d.Ep.Rounds[d.Round-1].Turns
	s := 0.0
	for j := range turns {
		if j != d.Agent {
			s += f(&turns[j])
		}
	}
	return s / float64(len(turns)-1)
}

// Candidates returns the features Measure reports: the current layout's,
// then the candidates for a new one.
func Candidates() []Candidate {
	var cs []Candidate
	for k, name := range v1Names {
		cs = append(cs, Candidate{Name: "v1." + name, Doc: metapolicy.FeatureVersion, Value: func(d *Decision) float64 { return d.V1[k] }})
	}
	cs = append(cs, changeCandidates()...)
	cs = append(cs, voteCandidates()...)
	cs = append(cs, profileCandidates()...)
	return append(cs, criticCandidates()...)
}

// own is the deciding agent's answer in round t.
func own(d *Decision, t int) string { return d.Ep.Rounds[t].Turns[d.Agent].Answer }

// changeCandidates say how answers moved over the rounds so far.
func changeCandidates() []Candidate {
	return []Candidate{
		{"changed_last", "own answer changed in the last round (0 in round 1)", func(d *Decision) float64 {
			t := d.Round - 1
			return flag(t >= 1 && own(d, t) != own(d, t-1))
		}},
		{"changes", "own answer changes so far / rounds", func(d *Decision) float64 {
			c := 0
			for t := 1; t < d.Round; t++ {
				if own(d, t) != own(d, t-1) {
					c++
				}
			}
			return float64(c) / float64(len(d.Ep.Rounds)-1)
		}},
		{"own_is_r0", "own answer is its round-0 answer", func(d *Decision) float64 {
			return flag(own(d, d.Round-1) == own(d, 0))
		}},
		{"own_is_r0_team", "own answer is the round-0 team answer", func(d *Decision) float64 {
			a := own(d, d.Round-1)
			return flag(a != "" && a == data.TeamAnswer(d.Ep.Rounds[0].Turns))
		}},
		{"peers_changed", "share of peers whose answer changed in the last round", func(d *Decision) float64 {
			t := d.Round - 1
			if t < 1 {
				return 0
			}
			now, before := answers(d.Ep, t), answers(d.Ep, t-1)
			c := 0
			for j := range now {
				if j != d.Agent && now[j] != before[j] {
					c++
				}
			}
			return float64(c) / float64(len(now)-1)
		}},
		{"majority_delta", "plurality share now minus one round earlier (0 in round 1)", func(d *Decision) float64 {
			t := d.Round - 1
			if t < 1 {
				return 0
			}
			a, _ := topTwo(votes(answers(d.Ep, t)))
			b, _ := topTwo(votes(answers(d.Ep, t-1)))
			return float64(a-b) / float64(d.Ep.Agents)
		}},
		{"own_support_delta", "share holding own answer now minus one round earlier", func(d *Decision) float64 {
			t := d.Round - 1
			if t < 1 {
				return 0
			}
			a := own(d, t)
			if a == "" {
				return 0
			}
			return float64(votes(answers(d.Ep, t))[a]-votes(answers(d.Ep, t-1))[a]) / float64(d.Ep.Agents)
		}},
		{"team_stable", "team answer unchanged by the last round (1 in round 1)", func(d *Decision) float64 {
			t := d.Round - 1
			return flag(t < 1 || data.TeamAnswer(d.Ep.Rounds[t].Turns) == data.TeamAnswer(d.Ep.Rounds[t-1].Turns))
		}},
	}
}

// voteCandidates say how the answers held now are split.
func voteCandidates() []Candidate {
	return []Candidate{
		{"margin", "(top votes − second votes) / N", func(d *Decision) float64 {
			a, b := topTwo(votes(answers(d.Ep, d.Round-1)))
			return float64(a-b) / float64(d.Ep.Agents)
		}},
		{"own_margin", "(own votes − best other answer's votes) / N", func(d *Decision) float64 {
			v := votes(answers(d.Ep, d.Round-1))
			a := own(d, d.Round-1)
			best := 0
			for k, c := range v {
				if k != a {
					best = max(best, c)
				}
			}
			return float64(v[a]-best) / float64(d.Ep.Agents)
		}},
	}
}

// profileCandidates read the text's profile: its tokens, steps and hedges
// against the peers', and its stated confidence.
func profileCandidates() []Candidate {
	return []Candidate{
		{"rel_tokens", "log-tokens of own answer minus the peers' mean", func(d *Decision) float64 {
			me := &d.Ep.Rounds[d.Round-1].Turns[d.Agent]
			return squash(me.Profile.Tokens, 4096) - peerMean(d, func(t *data.Turn) float64 { return squash(t.Profile.Tokens, 4096) })
		}},
		{"rel_steps", "log-steps of own answer minus the peers' mean", func(d *Decision) float64 {
			me := &d.Ep.Rounds[d.Round-1].Turns[d.Agent]
			return squash(me.Profile.Steps, 64) - peerMean(d, func(t *data.Turn) float64 { return squash(t.Profile.Steps, 64) })
		}},
		{"rel_hedges", "log-hedges of own answer minus the peers' mean", func(d *Decision) float64 {
			me := &d.Ep.Rounds[d.Round-1].Turns[d.Agent]
			return squash(me.Profile.Hedges, 16) - peerMean(d, func(t *data.Turn) float64 { return squash(t.Profile.Hedges, 16) })
		}},
		{"peer_hedges", "mean log-hedges of the peers", func(d *Decision) float64 {
			return peerMean(d, func(t *data.Turn) float64 { return squash(t.Profile.Hedges, 16) })
		}},
		{"self_conf_stated", "own answer states a confidence", func(d *Decision) float64 {
			return flag(d.Ep.Rounds[d.Round-1].Turns[d.Agent].Profile.SelfConfidence != nil)
		}},
		{"self_conf", "stated confidence, 0.5 when none is stated", func(d *Decision) float64 {
			if c := d.Ep.Rounds[d.Round-1].Turns[d.Agent].Profile.SelfConfidence; c != nil {
				return *c
			}
			return 0.5
		}},
	}
}

// kindOf is the answer kind of an episode whose task is a transcript
// question ID ("gsm8k:…"); "" otherwise.
func kindOf(ep *data.Episode) answer.Kind {
	k, _, ok := strings.Cut(ep.Task, ":")
	if !ok {
		return ""
	}
	kind, err := answer.ParseKind(k)
	if err != nil {
		return ""
	}
	return kind
}

// arith is answer.CheckArithmetic of the agent's own current text; the
// zero Arith (nothing checked) when the episode keeps no text.
func arith(d *Decision) answer.Arith {
	t := &d.Ep.Rounds[d.Round-1].Turns[d.Agent]
	if t.Text == "" {
		return answer.Arith{}
	}
	return answer.CheckArithmetic(kindOf(d.Ep), t.Text)
}

// keepsText reports whether the episode keeps its response texts (some
// turn has one).
func keepsText(ep *data.Episode) bool {
	for _, r := range ep.Rounds {
		for _, t := range r.Turns {
			if t.Text != "" {
				return true
			}
		}
	}
	return false
}

// criticCandidates are the critic's confidence read from the text
// (answer.Critic) and its parts. They need episodes that keep the texts
// (replay.WithText; mpdf data signal --critic); without them every value
// is NaN, so that their AUCs are NaN rather than a number about nothing.
func criticCandidates() []Candidate {
	needText := func(f func(d *Decision) float64) func(d *Decision) float64 {
		return func(d *Decision) float64 {
			if !keepsText(d.Ep) {
				return math.NaN()
			}
			return f(d)
		}
	}
	critic := func(t *data.Turn, kind answer.Kind) (float64, bool) {
		if t.Text == "" {
			return 0, false
		}
		return answer.Critic(kind, t.Text)
	}
	own := func(d *Decision) (float64, bool) {
		return critic(&d.Ep.Rounds[d.Round-1].Turns[d.Agent], kindOf(d.Ep))
	}
	return []Candidate{
		{"critic_checked", "own text states a checkable equation (answer.CheckArithmetic)", needText(func(d *Decision) float64 {
			return flag(arith(d).Equations > 0)
		})},
		{"critic", "answer.Critic of own text, 0.5 when it checks nothing", needText(func(d *Decision) float64 {
			if c, ok := own(d); ok {
				return c
			}
			return 0.5
		})},
		{"critic_share", "share of own checkable equations that hold, 0.5 with none", needText(func(d *Decision) float64 {
			if a := arith(d); a.Equations > 0 {
				return float64(a.Held) / float64(a.Equations)
			}
			return 0.5
		})},
		{"critic_answer_failed", "own answer is the stated result of a failing equation", needText(func(d *Decision) float64 {
			return flag(arith(d).AnswerFailed)
		})},
		{"critic_answer_held", "own answer is the stated result of an equation that holds", needText(func(d *Decision) float64 {
			return flag(arith(d).AnswerHeld)
		})},
		{"critic_vs_peers", "own critic minus the best critic of a peer holding another answer (0.5 for a missing one)", needText(func(d *Decision) float64 {
			kind := kindOf(d.Ep)
			turns := d.Ep.Rounds[d.Round-1].Turns
			me, ok := own(d)
			if !ok {
				me = 0.5
			}
			best := 0.0
			for j := range turns {
				if j == d.Agent || turns[j].Answer == turns[d.Agent].Answer {
					continue
				}
				c, ok := critic(&turns[j], kind)
				if !ok {
					c = 0.5
				}
				best = max(best, c)
			}
			return me - best
		})},
	}
}
