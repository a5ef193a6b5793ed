package metapolicy

import "math"

// tally is one candidate answer with its support.
type tally struct {
	answer string
	votes  int
	conf   float64 // summed confidence, missing counted as 0
	first  int     // lowest agent index holding it
}

// appendTallies appends to ts (a caller's buffer, may be nil) the answers
// of every agent but exclude (exclude < 0 keeps all), grouped in order of
// first holder. Empty answers cast no vote; conf may be nil (all missing).
// An answer's tally is found by a scan while there are at most
// scanTallies of them and by a hash index past that, so that a team of n
// agents with n distinct answers costs O(n), not O(n²), per call (issue 34:
// leave-one-out tallies of 2,000 distinct answers took 9.7 s a replay).
func appendTallies(ts []tally, answers []string, conf []float64, exclude int) []tally {
	var index map[string]int // answer → position in ts, once ts is long
	for i, a := range answers {
		if a == "" || i == exclude {
			continue
		}
		c := 0.0
		if conf != nil && Known(conf[i]) {
			c = conf[i]
		}
		k := -1
		if index != nil {
			if j, ok := index[a]; ok {
				k = j
			}
		} else {
			for j := range ts {
				if ts[j].answer == a {
					k = j
					break
				}
			}
		}
		if k >= 0 {
			ts[k].votes++
			ts[k].conf += c
			continue
		}
		ts = append(ts, tally{answer: a, votes: 1, conf: c, first: i})
		if index != nil {
			index[a] = len(ts) - 1
		} else if len(ts) > scanTallies {
			index = make(map[string]int, len(answers))
			for j, t := range ts {
				index[t.answer] = j
			}
		}
	}
	return ts
}

// scanTallies is how many tallies appendTallies scans before it indexes
// them: teams of a few agents (every shared transcript) allocate nothing.
const scanTallies = 16

// TeamAnswer is the plurality answer of the agents other than exclude
// (exclude < 0 keeps all): most votes, then highest summed confidence, then
// the answer held by the lowest agent index (design §1). conf may be nil
// (all missing). It returns "" when no agent has an answer.
func TeamAnswer(answers []string, conf []float64, exclude int) string {
	return teamOf(appendTallies(nil, answers, conf, exclude))
}

// teamOf picks TeamAnswer's answer among tallies.
func teamOf(ts []tally) string {
	best := -1
	for k, t := range ts {
		if best < 0 || better(t.votes, t.conf, ts[best].votes, ts[best].conf) {
			best = k
		}
	}
	if best < 0 {
		return ""
	}
	return ts[best].answer
}

// ConcedeTarget is the answer a conceding agent self adopts: the answer held
// by the peers with the highest summed confidence; ties go to the plurality
// answer, then to the lowest agent index (design §1). It returns "" when no
// peer has an answer.
func ConcedeTarget(answers []string, conf []float64, self int) string {
	return concedeOf(appendTallies(nil, answers, conf, self))
}

// concedeOf picks ConcedeTarget's answer among tallies.
func concedeOf(ts []tally) string {
	best := -1
	for k, t := range ts {
		if best < 0 || better(0, t.conf, 0, ts[best].conf) ||
			(sameConf(t.conf, ts[best].conf) && t.votes > ts[best].votes) {
			best = k
		}
	}
	if best < 0 {
		return ""
	}
	return ts[best].answer
}

// better orders by votes, then summed confidence. Tallies are built in
// order of first holder, so keeping the earlier one on a full tie is the
// lowest-agent-index rule.
func better(v1 int, c1 float64, v2 int, c2 float64) bool {
	if v1 != v2 {
		return v1 > v2
	}
	return c1 > c2 && !sameConf(c1, c2)
}

// sameConf treats sums that differ only by rounding as tied, so that the
// order in which confidences were added cannot decide a tie.
func sameConf(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(a), math.Abs(b)) }
