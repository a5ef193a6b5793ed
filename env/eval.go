package env

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
)

// Result is one policy's evaluation.
type Result struct {
	Policy   string `json:"policy"`
	Episodes int    `json:"episodes"`
	Tasks    int    `json:"tasks"`  // distinct task ids
	Scored   int    `json:"scored"` // episodes with a known gold answer
	Correct  int    `json:"correct"`
	// Accuracy is the share of scored episodes whose final team answer
	// (metapolicy.TeamAnswer over all agents) is the gold; CILow and CIHigh
	// bound it with a 95% percentile bootstrap interval that resamples
	// tasks, all of a task's episodes together (2000 resamples, fixed
	// seed: the same episodes give the same bounds), since episodes of one
	// task are not independent.
	Accuracy float64 `json:"accuracy"`
	CILow    float64 `json:"ci95_low"`
	CIHigh   float64 `json:"ci95_high"`
	// Round0Accuracy is the same for the round-0 answers: the accuracy
	// before any deliberation.
	Round0Accuracy float64 `json:"round0_accuracy"`
	// TokensPerTask is the mean of an episode's tokens over all rounds,
	// round 0 included.
	TokensPerTask float64 `json:"tokens_per_task"`
	// Actions holds each action's share of all decisions.
	Actions ActionShares `json:"actions"`
	// ByTask is each task's outcome, in order of first appearance: what
	// Judge pairs policies by (not written to JSON).
	ByTask []TaskOutcome `json:"-"`
}

// TaskOutcome is one task's episodes under one policy.
type TaskOutcome struct {
	Task     string
	Episodes int
	Scored   int // episodes with a gold answer
	Correct  int
	Tokens   int64 // over all episodes and rounds
}

// ActionShares are the actions' shares among decisions, in action order,
// written to JSON keyed by the actions' names.
type ActionShares = metapolicy.ByName[float64]

// Results is one Result per policy, in the order evaluated.
type Results []Result

// Tally accumulates a Result from episodes, so that episodes read back from
// a file score like fresh ones. The zero value is ready, with an empty name.
type Tally struct {
	Policy string

	episodes, scored, correct, correct0, decisions int
	tokens                                         int64
	actions                                        [metapolicy.NumActions]int
	tasks                                          map[string]int // task id → index in byTask
	byTask                                         []taskScore    // in order of first appearance
}

// taskScore is one task's episodes, scored episodes, correct ones and tokens.
type taskScore struct {
	task                      string
	episodes, scored, correct int
	tokens                    int64
}

// Add scores one episode. It rejects an episode with fewer than two agents,
// without rounds, with a round that has not one turn per agent, or with an
// invalid action; a rejected episode leaves the tally unchanged.
func (t *Tally) Add(ep *data.Episode) error {
	switch {
	case ep.Agents < 2:
		return fmt.Errorf("env: eval: episode %s: %d agents, want ≥ 2", ep.ID, ep.Agents)
	case len(ep.Rounds) == 0:
		return fmt.Errorf("env: eval: episode %s: no rounds", ep.ID)
	}
	var actions [metapolicy.NumActions]int
	var tokens int64
	for r, round := range ep.Rounds {
		if len(round.Turns) != ep.Agents {
			return fmt.Errorf("env: eval: episode %s: round %d: %d turns for %d agents", ep.ID, r, len(round.Turns), ep.Agents)
		}
		for i := range round.Turns {
			turn := &round.Turns[i]
			if r > 0 && turn.Action != nil {
				if !turn.Action.Valid() {
					return fmt.Errorf("env: eval: episode %s: round %d: agent %d: invalid action %d", ep.ID, r, i, uint8(*turn.Action))
				}
				actions[*turn.Action]++
			}
			tokens += int64(turn.Tokens)
		}
	}
	for a, k := range actions {
		t.actions[a] += k
		t.decisions += k
	}
	t.tokens += tokens
	if t.tasks == nil {
		t.tasks = map[string]int{}
	}
	k, ok := t.tasks[ep.Task]
	if !ok {
		k = len(t.byTask)
		t.tasks[ep.Task] = k
		t.byTask = append(t.byTask, taskScore{task: ep.Task})
	}
	t.episodes++
	t.byTask[k].episodes++
	t.byTask[k].tokens += tokens
	if ep.Gold == "" {
		return nil
	}
	t.scored++
	t.byTask[k].scored++
	if data.TeamAnswer(ep.Rounds[len(ep.Rounds)-1].Turns) == ep.Gold {
		t.correct++
		t.byTask[k].correct++
	}
	if data.TeamAnswer(ep.Rounds[0].Turns) == ep.Gold {
		t.correct0++
	}
	return nil
}

// Result returns the tally so far.
func (t *Tally) Result() Result {
	r := Result{Policy: t.Policy, Episodes: t.episodes, Tasks: len(t.tasks), Scored: t.scored, Correct: t.correct}
	if t.scored > 0 {
		r.Accuracy = float64(t.correct) / float64(t.scored)
		r.Round0Accuracy = float64(t.correct0) / float64(t.scored)
	}
	r.CILow, r.CIHigh = t.interval()
	for _, s := range t.byTask {
		r.ByTask = append(r.ByTask, TaskOutcome{Task: s.task, Episodes: s.episodes, Scored: s.scored, Correct: s.correct, Tokens: s.tokens})
	}
	if t.episodes > 0 {
		r.TokensPerTask = float64(t.tokens) / float64(t.episodes)
	}
	if d := float64(t.decisions); d > 0 {
		for a, n := range t.actions {
			r.Actions[a] = float64(n) / d
		}
	}
	return r
}

// Evaluate runs every policy on e with the same options (hence the same
// tasks and seeds: the policies are compared on common random numbers) and
// tallies each. opts.Progress, when set, counts the episodes of all
// policies together.
func Evaluate(e Env, policies []metapolicy.Policy, opts RunOptions) (Results, error) {
	p, err := opts.plan(e)
	if err != nil {
		return nil, err
	}
	per := len(p.tasks) * p.episodes
	res := make(Results, 0, len(policies))
	for k, pol := range policies {
		o := opts
		if opts.Progress != nil {
			o.Progress = func(done, _ int) { opts.Progress(k*per+done, len(policies)*per) }
		}
		t := Tally{Policy: pol.Name()}
		if err := Play(e, pol, o, t.Add); err != nil {
			return nil, err
		}
		res = append(res, t.Result())
	}
	return res, nil
}

// accuracyInterval configures the interval of Result.Accuracy: a 95%
// percentile cluster bootstrap (package stats) over tasks, fixed seed, so
// that the same episodes always give the same bounds.
var accuracyInterval = stats.Bootstrap{Resamples: stats.DefaultResamples, Level: 0.95, Seed: 1}

// interval is the accuracy's cluster-bootstrap interval over the tasks with
// a scored episode; (0, 1) when none is scored.
func (t *Tally) interval() (lo, hi float64) {
	var sums []float64
	var counts []int
	for _, s := range t.byTask {
		if s.scored > 0 {
			sums = append(sums, float64(s.correct))
			counts = append(counts, s.scored)
		}
	}
	if len(sums) == 0 {
		return 0, 1
	}
	dist, err := accuracyInterval.Distribution(sums, counts)
	if err != nil { // only a misconfigured accuracyInterval gets here
		return math.NaN(), math.NaN()
	}
	return stats.Percentiles(dist, accuracyInterval.Level)
}

// wilsonZ is Φ⁻¹(0.975).
const wilsonZ = 1.959963984540054

// Wilson returns the 95% Wilson score interval of k successes in n trials;
// (0, 1) when n = 0. It assumes independent trials: Result's interval
// is a cluster bootstrap by task instead.
func Wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p, nf, z2 := float64(k)/float64(n), float64(n), wilsonZ*wilsonZ
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := wilsonZ / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return max(0, centre-half), min(1, centre+half)
}

// WriteTable writes the results as an aligned text table.
func (rs Results) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	names := metapolicy.Names()
	fmt.Fprintln(tw, "policy\tepisodes\taccuracy\t95% CI (tasks)\tround 0\ttokens/task\t"+strings.Join(names[:], "\t"))
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t[%.3f, %.3f]\t%.3f\t%.0f",
			r.Policy, r.Episodes, r.Accuracy, r.CILow, r.CIHigh, r.Round0Accuracy, r.TokensPerTask)
		for _, v := range r.Actions {
			fmt.Fprintf(tw, "\t%.3f", v)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// WriteJSON writes the results as one indented JSON array.
func (rs Results) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rs)
}
