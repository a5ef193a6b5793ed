package sim

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// DebateStats accumulates the statistics Calibrate fits from debate
// episodes: real ones (transcript.ToEpisode of imported transcripts) or
// the simulator's under the debate policy, so that both sides of a fit are
// measured by one code. Only episodes with a gold answer count; a
// revision is a turn whose action is refine (a recorded round an agent
// missed is a persist and does not count). The zero value is ready; its
// memory is bounded whatever the number of episodes.
type DebateStats struct {
	Episodes int `json:"episodes"` // episodes with a gold
	// Teams[n][k] counts teams of n agents with k right in round 0.
	Teams map[int]map[int]int `json:"teams"`
	// Shape counts episodes by team size and deliberation rounds.
	Shape map[[2]int]int `json:"-"`

	Answers, Unreadable        int // every answer (round 0 and revisions), unreadable ones
	WrongPairs, WrongPairsSame int // round-0 pairs of readable wrong answers of one team, equal ones

	// Revisions of wrong (or unreadable) answers, grouped by seen peers,
	// peers on the gold and peers on the agent's own wrong answer.
	fix map[[3]int]*binom
	// Revisions of right answers, grouped by seen peers and the votes of
	// the peers' most common wrong answer.
	brk                               map[[2]int]*binom
	conformed, conformShare           float64        // not fixed: joined the peers' top wrong answer; Σ its share
	kept, keepTrials                  int            // not fixed nor conformed, readable own answer: kept it
	brokeToTop, brokeWithTop          int            // broken revisions that joined the peers' top wrong answer, of those that could
	tokens, rawTokens                 [2][2]moments  // log and plain completion tokens: [round 0, revision][wrong, right]
	stepsM, hedgesM                   [2]moments     // steps and hedges by correctness
	revisions, revUnreadable          int            // revisions, unreadable ones
	changed                           int            // revisions whose answer differs from the previous one
	unreadTeams                       map[[2]int]int // (team size, unreadable round-0 answers) → teams
	tokensPerTask                     moments        // all tokens of an episode
	steps, hedges, counted            [2]float64     // sums and counts by correctness
	stated                            int            // answers with a stated confidence
	question                          moments        // log question prompt tokens (agent 0, round 0)
	xtx                               [4][4]float64
	xty                               [4]float64
	refinePrompts                     moments // refine prompt tokens (not logged)
	majorityRight, debateRight        int
	split, splitMajority, splitDebate int // teams split in round 0; of those, majority and debate right
	fixedTotal, fixTrials             int
	brokenTotal, breakTrials          int
}

// binom counts successes in trials.
type binom struct{ k, n int }

// moments accumulates a count, a sum and a sum of squares.
type moments struct{ n, sum, sq float64 }

func (m *moments) add(x float64) { m.n++; m.sum += x; m.sq += x * x }
func (m *moments) mean() float64 {
	if m.n == 0 {
		return 0
	}
	return m.sum / m.n
}
func (m *moments) sd() float64 {
	if m.n < 2 {
		return 0
	}
	v := (m.sq - m.sum*m.sum/m.n) / (m.n - 1)
	return math.Sqrt(max(0, v))
}

// Add tallies one episode. It rejects an episode whose rounds do not hold
// one turn per agent.
func (s *DebateStats) Add(ep *data.Episode) error {
	if ep.Gold == "" {
		return nil
	}
	n := ep.Agents
	for r, round := range ep.Rounds {
		if len(round.Turns) != n {
			return fmt.Errorf("sim: debate stats: episode %s: round %d: %d turns for %d agents", ep.ID, r, len(round.Turns), n)
		}
	}
	if n < 2 || len(ep.Rounds) == 0 {
		return fmt.Errorf("sim: debate stats: episode %s: %d agents, %d rounds", ep.ID, n, len(ep.Rounds))
	}
	if s.Teams == nil {
		s.Teams, s.Shape = map[int]map[int]int{}, map[[2]int]int{}
		s.fix, s.brk = map[[3]int]*binom{}, map[[2]int]*binom{}
	}
	s.Episodes++
	s.Shape[[2]int{n, len(ep.Rounds) - 1}]++
	gold := ep.Gold
	first := ep.Rounds[0].Turns
	right := 0
	tokens := 0
	for _, round := range ep.Rounds {
		for i := range round.Turns {
			tokens += round.Turns[i].Tokens
		}
	}
	s.tokensPerTask.add(float64(tokens))
	for i := range first {
		s.answer(&first[i], gold, 0)
		if first[i].Answer == gold {
			right++
		}
		for j := i + 1; j < n; j++ {
			a, b := first[i].Answer, first[j].Answer
			if a != "" && b != "" && a != gold && b != gold {
				s.WrongPairs++
				if a == b {
					s.WrongPairsSame++
				}
			}
		}
	}
	if s.Teams[n] == nil {
		s.Teams[n] = map[int]int{}
	}
	if s.unreadTeams == nil {
		s.unreadTeams = map[[2]int]int{}
	}
	unread := 0
	for i := range first {
		if first[i].Answer == "" {
			unread++
		}
	}
	s.unreadTeams[[2]int{n, unread}]++
	s.Teams[n][right]++
	if q := first[0].Tokens - first[0].Profile.Tokens; q > 0 {
		s.question.add(math.Log(float64(q)))
	}
	s.addProtocols(ep)
	s.addRevisions(ep)
	return nil
}

// addProtocols counts the teams majority (round 0's vote) and debate (the
// last round's) get right, overall and of teams split in round 0.
func (s *DebateStats) addProtocols(ep *data.Episode) {
	gold, first := ep.Gold, ep.Rounds[0].Turns
	majority := data.TeamAnswer(first) == gold
	debate := data.TeamAnswer(ep.Rounds[len(ep.Rounds)-1].Turns) == gold
	if majority {
		s.majorityRight++
	}
	if debate {
		s.debateRight++
	}
	unanimous := first[0].Answer != ""
	for i := range first {
		unanimous = unanimous && first[i].Answer == first[0].Answer
	}
	if !unanimous {
		s.split++
		if majority {
			s.splitMajority++
		}
		if debate {
			s.splitDebate++
		}
	}
}

// addRevisions counts the refines of an episode's rounds after round 0.
func (s *DebateStats) addRevisions(ep *data.Episode) {
	gold, first := ep.Gold, ep.Rounds[0].Turns
	for t := 1; t < len(ep.Rounds); t++ {
		prev, cur := ep.Rounds[t-1].Turns, ep.Rounds[t].Turns
		for i := range cur {
			if cur[i].Action == nil || *cur[i].Action != metapolicy.Refine {
				continue
			}
			s.answer(&cur[i], gold, 1)
			s.revisions++
			if cur[i].Answer != prev[i].Answer {
				s.changed++
			}
			if cur[i].Answer == "" {
				// Unreadability is fitted on its own; fixes and breaks on
				// the readable revisions.
				s.revUnreadable++
				continue
			}
			s.revision(i, prev, &cur[i], gold, first[i].Tokens-first[i].Profile.Tokens)
		}
	}
}

// answer tallies one answer's readability and profile; phase is 0 for
// round 0, 1 for a revision.
func (s *DebateStats) answer(t *data.Turn, gold string, phase int) {
	s.Answers++
	if t.Answer == "" {
		s.Unreadable++
	}
	c := 0
	if t.Answer == gold {
		c = 1
	}
	if t.Profile.Tokens > 0 {
		s.tokens[phase][c].add(math.Log(float64(t.Profile.Tokens)))
		s.rawTokens[phase][c].add(float64(t.Profile.Tokens))
	}
	s.stepsM[c].add(float64(t.Profile.Steps))
	s.hedgesM[c].add(float64(t.Profile.Hedges))
	s.steps[c] += float64(t.Profile.Steps)
	s.hedges[c] += float64(t.Profile.Hedges)
	s.counted[c]++
	if t.Profile.SelfConfidence != nil {
		s.stated++
	}
}

// peerView is what a revising agent saw of its peers in the round before.
type peerView struct {
	seen, gold, same int
	topWrong         string
	topVotes         int
	completions      int
}

func viewOf(agent int, prev []data.Turn, gold string) peerView {
	var v peerView
	own := prev[agent].Answer
	for i := range prev {
		a := prev[i].Answer
		if i == agent || a == "" {
			continue
		}
		v.seen++
		v.completions += prev[i].Profile.Tokens
		switch a {
		case gold:
			v.gold++
		case own:
			v.same++
		}
		if a == gold {
			continue
		}
		votes := 0
		for j := range prev {
			if j != agent && prev[j].Answer == a {
				votes++
			}
		}
		if votes > v.topVotes {
			v.topWrong, v.topVotes = a, votes
		}
	}
	return v
}

// revision tallies agent's refine from prev to cur.
func (s *DebateStats) revision(agent int, prev []data.Turn, cur *data.Turn, gold string, question int) {
	v := viewOf(agent, prev, gold)
	own, ans := prev[agent].Answer, cur.Answer
	if prompt := cur.Tokens - cur.Profile.Tokens; prompt > 0 {
		x := [4]float64{1, float64(question), float64(prev[agent].Profile.Tokens), float64(v.completions)}
		for a := range x {
			for b := range x {
				s.xtx[a][b] += x[a] * x[b]
			}
			s.xty[a] += x[a] * float64(prompt)
		}
		s.refinePrompts.add(float64(prompt))
	}
	if own == gold {
		key := [2]int{v.seen, v.topVotes}
		b := s.brk[key]
		if b == nil {
			b = &binom{}
			s.brk[key] = b
		}
		b.n++
		s.breakTrials++
		if ans != gold {
			b.k++
			s.brokenTotal++
			if v.topWrong != "" {
				s.brokeWithTop++
				if ans == v.topWrong {
					s.brokeToTop++
				}
			}
		}
		return
	}
	same := v.same
	if own == "" {
		same = 0
	}
	key := [3]int{v.seen, v.gold, same}
	b := s.fix[key]
	if b == nil {
		b = &binom{}
		s.fix[key] = b
	}
	b.n++
	s.fixTrials++
	if ans == gold {
		b.k++
		s.fixedTotal++
		return
	}
	if v.topWrong != "" && v.topWrong != own {
		s.conformShare += float64(v.topVotes) / float64(v.seen)
		if ans == v.topWrong {
			s.conformed++
			return
		}
	}
	if own != "" {
		s.keepTrials++
		if ans == own {
			s.kept++
		}
	}
}

// StatRow is one statistic of a calibration, measured on the real episodes
// and on the simulator's.
type StatRow struct {
	Name string  `json:"name"`
	Real float64 `json:"real"`
	Sim  float64 `json:"sim"`
}

// summary lists the statistics a calibration compares, in print order.
func (s *DebateStats) Summary() []StatRow {
	frac := func(a, b float64) float64 {
		if b == 0 {
			return math.NaN()
		}
		return a / b
	}
	var rows []StatRow
	add := func(name string, v float64) { rows = append(rows, StatRow{Name: name, Real: v}) }
	var right, all, allRight, allWrong float64
	for n, ks := range s.Teams {
		for k, c := range ks {
			right += float64(k * c)
			all += float64(n * c)
			if k == n {
				allRight += float64(c)
			}
			if k == 0 {
				allWrong += float64(c)
			}
		}
	}
	e := float64(s.Episodes)
	add("round-0 accuracy (per agent)", frac(right, all))
	add("teams all right in round 0", frac(allRight, e))
	add("teams all wrong in round 0", frac(allWrong, e))
	add("round-0 majority accuracy", frac(float64(s.majorityRight), e))
	add("debate accuracy (last round)", frac(float64(s.debateRight), e))
	add("teams split in round 0", frac(float64(s.split), e))
	add("  majority accuracy of split teams", frac(float64(s.splitMajority), float64(s.split)))
	add("  debate accuracy of split teams", frac(float64(s.splitDebate), float64(s.split)))
	add("unreadable answers, round 0", frac(float64(s.Unreadable-s.revUnreadable), float64(s.Answers-s.revisions)))
	add("unreadable answers, revisions", frac(float64(s.revUnreadable), float64(s.revisions)))
	add("  unreadable answers' correlation within a team", unreadableCorrelation(s.unreadTeams))
	add("two wrong agents agree (round 0)", frac(float64(s.WrongPairsSame), float64(s.WrongPairs)))
	add("revision changes the answer", frac(float64(s.changed), float64(s.revisions)))
	add("revision fixes a wrong answer", frac(float64(s.fixedTotal), float64(s.fixTrials)))
	for _, bk := range shareBuckets {
		add("  fixes, peers on gold "+bk.name, frac(pooled(s.fix, func(k [3]int) (int, int) { return k[0], k[1] }, bk)))
	}
	add("revision breaks a right answer", frac(float64(s.brokenTotal), float64(s.breakTrials)))
	for _, bk := range shareBuckets {
		add("  breaks, peers on top wrong "+bk.name, frac(pooled(s.brk, func(k [2]int) (int, int) { return k[0], k[1] }, bk)))
	}
	add("not fixed: joins peers' wrong answer", frac(s.conformed, float64(s.fixTrials-s.fixedTotal)))
	add("not fixed: keeps own wrong answer", frac(float64(s.kept), float64(s.keepTrials)))
	add("mean completion tokens, round 0, right", s.rawTokens[0][1].mean())
	add("mean completion tokens, round 0, wrong", s.rawTokens[0][0].mean())
	add("mean completion tokens, revision, right", s.rawTokens[1][1].mean())
	add("mean completion tokens, revision, wrong", s.rawTokens[1][0].mean())
	add("mean steps, right", frac(s.steps[1], s.counted[1]))
	add("mean steps, wrong", frac(s.steps[0], s.counted[0]))
	add("sd of steps, right", s.stepsM[1].sd())
	add("sd of steps, wrong", s.stepsM[0].sd())
	add("mean hedges, right", frac(s.hedges[1], s.counted[1]))
	add("mean hedges, wrong", frac(s.hedges[0], s.counted[0]))
	add("sd of hedges, right", s.hedgesM[1].sd())
	add("sd of hedges, wrong", s.hedgesM[0].sd())
	add("answers stating a confidence", frac(float64(s.stated), float64(s.Answers)))
	add("mean question prompt tokens", math.Exp(s.question.mean()+s.question.sd()*s.question.sd()/2))
	add("mean refine prompt tokens", s.refinePrompts.mean())
	add("debate tokens per task", s.tokensPerTask.mean())
	return rows
}

// bucket is a range of a share of peers for the printed fit: share = 0
// when hi = 0, else lo < share ≤ hi, or lo ≤ share when closed.
// pooled sums the trials and successes of the bins whose peers' share
// (on of peers, read from the key by share) falls in bk.
func pooled[K comparable](bins map[K]*binom, share func(K) (peers, on int), bk bucket) (k, n float64) {
	for key, b := range bins {
		if peers, on := share(key); peers > 0 && bk.has(float64(on)/float64(peers)) {
			k += float64(b.k)
			n += float64(b.n)
		}
	}
	return k, n
}

type bucket struct {
	name   string
	lo, hi float64
	closed bool
}

func (b bucket) has(share float64) bool {
	if b.hi == 0 {
		return share == 0
	}
	if b.closed {
		return share >= b.lo && share <= b.hi
	}
	return share > b.lo && share <= b.hi
}

var shareBuckets = []bucket{
	{"= 0", 0, 0, false},
	{"in (0, 1/2)", 0, 0.5 - 1e-9, false},
	{"in [1/2, 1)", 0.5 - 1e-9, 1 - 1e-9, false},
	{"= 1", 1 - 1e-9, 1, false},
}

// unreadableCorrelation is the intra-team correlation ρ of round-0
// unreadability: the moment estimator Σ[(U − N·m)² − N·m(1−m)] /
// Σ[N(N−1)·m(1−m)] over teams of N agents with U unreadable answers, m
// the pooled rate (0 when undefined or negative).
func unreadableCorrelation(teams map[[2]int]int) float64 {
	var u, a float64
	for k, c := range teams {
		u += float64(k[1] * c)
		a += float64(k[0] * c)
	}
	if a == 0 {
		return 0
	}
	m := u / a
	if m <= 0 || m >= 1 {
		return 0
	}
	var num, den float64
	for _, k := range sortedKeys2Int(teams) {
		c := float64(teams[k])
		n, x := float64(k[0]), float64(k[1])
		num += c * ((x-n*m)*(x-n*m) - n*m*(1-m))
		den += c * n * (n - 1) * m * (1 - m)
	}
	if den == 0 {
		return 0
	}
	return clamp01(num / den)
}
