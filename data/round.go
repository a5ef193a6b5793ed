package data

import "github.com/mpdf/mpdf/metapolicy"

// Votes splits a round's turns into the inputs of metapolicy's consensus
// rules: the answers, and the confidences with NaN where missing.
func Votes(turns []Turn) (answers []string, conf []float64) {
	answers = make([]string, len(turns))
	conf = make([]float64, len(turns))
	for i := range turns {
		answers[i], conf[i] = turns[i].Answer, metapolicy.Missing
		if c := turns[i].Confidence; c != nil {
			conf[i] = *c
		}
	}
	return answers, conf
}

// TeamAnswer is the team answer after a round (metapolicy.TeamAnswer over
// all its turns).
func TeamAnswer(turns []Turn) string {
	answers, conf := Votes(turns)
	return metapolicy.TeamAnswer(answers, conf, -1)
}

// ConcedeSource returns the answer agent adopts when it concedes after the
// round prev (metapolicy.ConcedeTarget) and the peer whose turn it takes
// over: among the peers holding that answer, the most confident (missing
// counts as 0), then the lowest index. src is −1 when no peer has an answer.
func ConcedeSource(prev []Turn, agent int) (target string, src int) {
	answers, conf := Votes(prev)
	target = metapolicy.ConcedeTarget(answers, conf, agent)
	src = -1
	if target == "" {
		return "", src
	}
	orZero := func(c float64) float64 {
		if metapolicy.Known(c) {
			return c
		}
		return 0
	}
	for j := range prev {
		if j != agent && answers[j] == target && (src < 0 || orZero(conf[j]) > orZero(conf[src])) {
			src = j
		}
	}
	return target, src
}
