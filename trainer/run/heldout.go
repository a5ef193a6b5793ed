package run

// Whether RL learns, seen from the held-out side (issue 32): every
// Config.EvalEvery iterations of an online run the policy as it stands
// plays the held-out tasks and metrics.jsonl gets a line of what it scored
// (HeldOut), beside the steps' metrics (advantages/nonzero: the decisions
// a step can move; kl: the distance to the supervised policy π_ref); and
// the final evaluation pairs the trained policy with the supervised
// policy alone on the same tasks and seeds (RLChange). These evaluations
// draw from their own episode streams (seed Train.Seed + 7, as the final
// evaluation's, or Config.CurveSeed) and read the policy without training it: the run's
// training random streams and bytes are the same with them or without.

import (
	"cmp"
	"context"
	"fmt"
	"io"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// DefaultEvalEvery is Config.EvalEvery's 0: a held-out point every 5 RL
// iterations (and before the first), 9 points over the default 40.
const DefaultEvalEvery = 5

// maxCurveTasks caps the tasks of each held-out point: the curve needs a
// trend, the final evaluation gives the precise number.
const maxCurveTasks = 200

// HeldOut is one held-out point of an online run: the policy after Iter
// iterations (0: the supervised policy) on Tasks held-out tasks, one
// episode each, greedy when Config.Greedy.
type HeldOut struct {
	Tasks         int     `json:"tasks"`
	Greedy        bool    `json:"greedy,omitempty"`
	TeamAccuracy  float64 `json:"team_accuracy"`
	TokensPerTask float64 `json:"tokens_per_task"`
	// The action shares, one field per action (metrics.jsonl's keys).
	Persist float64 `json:"persist"`
	Refine  float64 `json:"refine"`
	Concede float64 `json:"concede"`
}

// HeldOut names its action shares as fields (metrics.jsonl's keys, between
// tokens_per_task and the line's end): another action needs its own field.
var _ = [1]struct{}{}[metapolicy.NumActions-3]

// HeldOutPoint is a held-out point's line of metrics.jsonl: the policy
// after Iter iterations (Step steps).
type HeldOutPoint struct {
	Step    int64    `json:"step"`
	Iter    int      `json:"iter"`
	HeldOut *HeldOut `json:"heldout"`
}

// evalEvery is the period of held-out points, 0 when none is taken.
func (c *Config) evalEvery() int {
	switch {
	case c.Data != nil || c.HeldOutEnv == nil || c.EvalTasks == 0 || c.EvalEvery < 0:
		return 0
	case c.EvalEvery == 0:
		return DefaultEvalEvery
	}
	return c.EvalEvery
}

// heldOutPoint logs a held-out point after r.iter iterations when the
// period says so (and after the last iteration, and before the first
// unless a resumed log has it).
func (r *runner) heldOutPoint(ctx context.Context) error {
	k := r.cfg.evalEvery()
	total := r.cfg.Train.RL.Iterations
	if k == 0 || r.iter%k != 0 && r.iter != total || r.metrics.heldOutAt(r.iter) {
		return nil
	}
	if err := r.stopped(ctx); err != nil {
		return err
	}
	fz, err := r.cfg.featurizer()
	if err != nil {
		return err
	}
	nets, err := r.networks()
	if err != nil {
		return err
	}
	var p metapolicy.Policy
	if p, err = (&Result{Policy: r.policy, Networks: nets}).PolicyOver("mpdf", fz); err != nil {
		return err
	}
	if r.cfg.Greedy {
		p = metapolicy.GreedyPolicy{Policy: p}
	}
	held := r.cfg.HeldOutEnv
	n := min(r.cfg.EvalTasks, held.NumTasks(), maxCurveTasks)
	res, err := env.Evaluate(held, []metapolicy.Policy{p}, env.RunOptions{
		NumTasks: n, Episodes: 1, Rounds: r.cfg.Train.RL.Rounds, Seed: cmp.Or(r.cfg.CurveSeed, r.cfg.Train.Seed+7), Context: ctx,
	})
	if err != nil {
		if ctx.Err() != nil {
			return r.stopped(ctx)
		}
		return fmt.Errorf("run: held-out point at iteration %d: %w", r.iter, err)
	}
	e := &res[0]
	h := &HeldOut{Tasks: n, Greedy: r.cfg.Greedy, TeamAccuracy: e.Accuracy, TokensPerTask: e.TokensPerTask,
		Persist: e.Actions[metapolicy.Persist], Refine: e.Actions[metapolicy.Refine], Concede: e.Actions[metapolicy.Concede]}
	var step int64
	if r.rl != nil {
		step = r.rl.Steps
	}
	return r.metrics.writeHeldOut(HeldOutPoint{Step: step, Iter: r.iter, HeldOut: h})
}

// RLChange is what the RL stage changed: the trained policy against the
// supervised policy alone (π_ref, the network RL started from), played
// alike (greedy when Config.Greedy) on the final evaluation's tasks and
// episode seeds, paired by task.
type RLChange struct {
	Greedy bool       `json:"greedy,omitempty"`
	SFT    env.Result `json:"sft"`
	RL     env.Result `json:"rl"`
	// Delta is RL − SFT: accuracy in points, tokens per task.
	Delta env.Paired `json:"delta"`
}

// rlChange plays the supervised policy as the final evaluation played the
// learned one (row learned of res) and pairs the two; nil without an RL
// stage.
func (r *runner) rlChange(learned *env.Result, fz metapolicy.Featurizer, opts env.RunOptions) (*RLChange, error) {
	if r.rl == nil || r.iter == 0 {
		return nil, nil
	}
	sft, err := (&Result{Policy: r.rl.Stepper().Reference()}).PolicyOver("sft", fz)
	if err != nil {
		return nil, err
	}
	if r.cfg.Greedy {
		sft = metapolicy.GreedyPolicy{Policy: sft}
	}
	opts.Progress = nil
	res, err := env.Evaluate(r.cfg.HeldOutEnv, []metapolicy.Policy{sft}, opts)
	if err != nil {
		return nil, err
	}
	d, err := env.PairedDiff(learned, &res[0])
	if err != nil {
		return nil, err
	}
	return &RLChange{Greedy: r.cfg.Greedy, SFT: res[0], RL: *learned, Delta: d}, nil
}

// WriteText says what the RL stage changed, in a few lines.
func (c *RLChange) WriteText(w io.Writer) error {
	mode := "sampled"
	if c.Greedy {
		mode = "greedy"
	}
	s, l, d := &c.SFT, &c.RL, &c.Delta
	pct := 0.0
	if s.TokensPerTask > 0 {
		pct = 100 * d.Tokens.Estimate / s.TokensPerTask
	}
	_, err := fmt.Fprintf(w, "RL against the supervised policy alone (%s, the same %d scored held-out questions and seeds, paired by question):\n"+
		"  accuracy %.3f → %.3f: %+.1f [%+.1f, %+.1f] points\n"+
		"  tokens/task %.0f → %.0f: %+.0f [%+.0f, %+.0f] (%+.1f %%)\n"+
		"  actions persist %.3f → %.3f, refine %.3f → %.3f, concede %.3f → %.3f\n",
		mode, d.Tasks, s.Accuracy, l.Accuracy, d.Accuracy.Estimate, d.Accuracy.Low, d.Accuracy.High,
		s.TokensPerTask, l.TokensPerTask, d.Tokens.Estimate, d.Tokens.Low, d.Tokens.High, pct,
		s.Actions[metapolicy.Persist], l.Actions[metapolicy.Persist], s.Actions[metapolicy.Refine], l.Actions[metapolicy.Refine], s.Actions[metapolicy.Concede], l.Actions[metapolicy.Concede])
	return err
}

// Learning is what metrics.jsonl says of whether RL learns: the held-out
// points, and per iteration the share of decisions with a non-zero
// advantage (the mean of its steps' advantages/nonzero).
type Learning struct {
	HeldOut []HeldOutPoint
	Iter    []int
	NonZero []float64
}

// ReadLearning reads Learning from the metrics.jsonl of the run directory
// dir (ReadCurves' reading: a torn last line ends the log).
func ReadLearning(dir string) (*Learning, error) {
	l, err := readLogDir(dir)
	if err != nil {
		return nil, err
	}
	return l.learning(), nil
}

// learning is what the folded lines say of whether RL learns.
func (l *metricsLog) learning() *Learning {
	out := &Learning{HeldOut: l.heldOut}
	for _, it := range l.iters {
		out.Iter = append(out.Iter, it.iter)
		out.NonZero = append(out.NonZero, it.nonzero/float64(it.n))
	}
	return out
}
