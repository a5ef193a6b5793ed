package run

// Feature layouts and teachers.
//
// An online run reads the layout Train.Features (mpdf-features/v1 by
// default, or v2: metapolicy.FeaturizerFor): its network's width, its
// supervised labels and its RL decisions follow it, and its checkpoints
// and policy.safetensors record it, so that checkpoints.LoadPolicy reads
// the policy back through the same layout.
//
// The online supervised stage clones a heuristic (Train.SFT.Labels), or,
// with Config.Teacher, any labels: the hindsight and pivotal teachers of
// package teacher (teacher.RunTeacher) plug in there, DAgger rounds
// included, so that `mpdf train`, `mpdf study` and a Go program train
// through this one loop.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/trainer"
)

// online trains by playing in cfg.Env and evaluates on cfg.HeldOutEnv
// against the heuristic baselines.
func (r *runner) online(ctx context.Context) error {
	sim := r.cfg.Env
	fz, err := r.cfg.featurizer()
	if err != nil {
		return err
	}
	switch {
	case r.cfg.Resume != nil:
	case r.cfg.Teacher != nil:
		if err := r.teach(ctx, fz); err != nil {
			return err
		}
	default:
		teacher, err := metapolicy.ParseHeuristic(r.cfg.Train.SFT.Labels)
		if err != nil {
			return fmt.Errorf("run: sft labels: %w", err)
		}
		c := &r.cfg.Train
		tasks := trainer.IterTasks(c.Seed, -1, sim.NumTasks(), sim.NumTasks())
		x, actions, err := trainer.LabelsFor(sim, teacher, tasks, c.RL.Rounds, c.Seed, fz)
		if err != nil {
			return err
		}
		all := func(each func([]float32, []uint8) error) error { return each(x, actions) }
		if err := r.sft(ctx, "labels of "+teacher.Name()+" on "+r.cfg.EnvName, all); err != nil {
			return err
		}
	}
	err = r.rlLoop(ctx, func() (Iteration, map[string]float64, error) {
		res, err := r.rl.Iterate(sim, r.iter)
		if res.Untrained > 0 && r.res.Untrained == 0 {
			r.log.Warn("agent policy model: agents naming no backbone model are decided by the fallback (the supervised policy), which does not train",
				"decisions", res.Decisions, "untrained", res.Untrained)
		}
		r.res.Untrained += int64(res.Untrained)
		it := Iteration{Metrics: res.Update.Metrics, TeamAccuracy: res.TeamAcc, TokensPerEpisode: res.Tokens}
		extra := map[string]float64{"tokens_per_episode": res.Tokens}
		if !math.IsNaN(res.TeamAcc) { // no scored episode: no accuracy to rank by
			extra["team_accuracy"] = res.TeamAcc
		}
		return it, extra, err
	})
	if err != nil {
		return err
	}
	return r.evaluate(ctx, fz)
}

// teach runs the supervised stage on cfg.Teacher's labels: clone, then
// Again rounds of labelling the clone's states and cloning again.
func (r *runner) teach(ctx context.Context, fz metapolicy.Featurizer) error {
	t, c, e := r.cfg.Teacher, &r.cfg.Train, r.cfg.Env
	if c.SFT.Epochs == 0 {
		return r.sft(ctx, t.Name, nil)
	}
	tasks := trainer.IterTasks(c.Seed, -1, e.NumTasks(), e.NumTasks())
	x, actions, err := t.Label(e, tasks, nil)
	if errors.Is(err, ErrNoLabels) {
		// Nothing to clone (no gold answer, no decision that changes the
		// team's result): the run goes on online, and says so.
		note := fmt.Sprintf("the %s teacher labelled no decision of the %d training tasks: supervised stage skipped, training online only", t.Name, len(tasks))
		if r.log != nil {
			r.log.Warn(note)
		}
		r.cfg.Notes = append(slices.Clip(r.cfg.Notes), note)
		r.res.SFT = SFTResult{Skipped: true, What: t.Name, Reason: note}
		if r.hooks.SFT != nil {
			r.hooks.SFT(r.res.SFT)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("run: %s labels: %w", t.Name, err)
	}
	for k := 0; ; k++ {
		all := func(each func([]float32, []uint8) error) error { return each(x, actions) }
		if err := r.sft(ctx, t.Name, all); err != nil {
			return err
		}
		if k == t.Again {
			return nil
		}
		clone, err := metapolicy.NewFeaturizedPolicy("mpdf", r.policy, fz)
		if err != nil {
			return err
		}
		dx, da, err := t.Label(e, tasks, clone)
		if errors.Is(err, ErrNoLabels) { // the clone's states add nothing: it stays
			return nil
		}
		if err != nil {
			return fmt.Errorf("run: %s labels, dagger %d: %w", t.Name, k+1, err)
		}
		x, actions = append(x, dx...), append(actions, da...)
	}
}

// evaluate compares the trained policy (sampled and greedy) with the
// heuristic baselines on held-out tasks, two episodes each, and judges it
// (env.Judge: greedy when Config.Greedy) against the fixed protocols.
func (r *runner) evaluate(ctx context.Context, fz metapolicy.Featurizer) error {
	held := r.cfg.HeldOutEnv
	if r.cfg.EvalTasks == 0 || held == nil {
		return nil
	}
	if err := r.stopped(ctx); err != nil {
		return err
	}
	learned, ckpt, step, err := r.evaluated(fz)
	if err != nil {
		return err
	}
	r.res.EvalCheckpoint, r.res.EvalStep = ckpt, step
	policies := []metapolicy.Policy{learned, metapolicy.GreedyPolicy{Policy: learned}}
	for _, name := range env.Baselines(held) {
		p, err := metapolicy.NewHeuristic(name)
		if err != nil {
			return err
		}
		policies = append(policies, p)
	}
	n := min(r.cfg.EvalTasks, held.NumTasks())
	const episodes = 2
	total := n * episodes * len(policies)
	r.progress("eval", 0, total, "eval")
	opts := env.RunOptions{
		NumTasks: n, Episodes: episodes, Rounds: r.cfg.Train.RL.Rounds, Seed: r.cfg.Train.Seed + 7,
		Progress: func(done, total int) { r.progress("eval", done, total, "eval") },
		Context:  ctx,
	}
	again := opts
	again.Progress, again.Context = nil, nil
	r.res.EvalPlay = &EvalPlay{Env: held, Policies: policies, Options: again}
	res, err := env.Evaluate(held, policies, opts)
	if err == nil {
		judgedRow := &res[0]
		if r.cfg.Greedy {
			judgedRow = &res[1]
		}
		r.res.RLChange, err = r.rlChange(judgedRow, fz, opts)
	}
	if err != nil {
		if ctx.Err() != nil {
			return r.stopped(ctx)
		}
		return err
	}
	r.res.Eval, r.res.EvalTasks = res, n
	judged, play := learned.Name(), env.PlaySampled
	if r.cfg.Greedy {
		judged, play = metapolicy.GreedyPolicy{Policy: learned}.Name(), env.PlayGreedy
	}
	conf := checkpoints.ConfidenceSourceOfEnv(r.cfg.EnvName)
	notes := r.cfg.Notes
	// No verdict (no gold answer to score, say) leaves the evaluation
	// standing: the note says why. The price of tokens is the one the run
	// trained at (the reward's λ): the user's own.
	v, err := env.Judge(res, judged, env.JudgeOptions{Lambda: r.cfg.Train.Reward.Lambda, Play: play,
		Confidence: conf == checkpoints.ConfidenceGiven || conf == checkpoints.ConfidenceTextCritic})
	if err != nil {
		notes = append(slices.Clip(notes), "no verdict: "+err.Error())
	}
	r.res.Verdict = v
	if r.cfg.Dir == "" {
		return nil
	}
	doc := EvalFile{Env: r.cfg.EnvName, Tasks: n, Episodes: episodes, Seed: r.cfg.Train.Seed + 7, Checkpoint: ckpt, Step: step,
		Results: res, Verdict: v, Notes: notes, RLChange: r.res.RLChange}
	if err := outfile.WriteFile(filepath.Join(r.cfg.Dir, EvalName), doc.write); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	r.res.Files = append(r.res.Files, EvalName)
	return nil
}

// evaluated is the policy the final evaluation plays: best.mpdf's — what
// mpdf serve, policy.safetensors and a user ship, so that the verdict is
// about the file they use — when the run has one, else the policy as
// training left it; with the checkpoint's name and step.
func (r *runner) evaluated(fz metapolicy.Featurizer) (metapolicy.Policy, string, int64, error) {
	if r.cfg.Dir != "" {
		c, err := checkpoints.Load(filepath.Join(r.cfg.Dir, checkpoints.BestName), checkpoints.WithFeatureVersion(""))
		switch {
		case err == nil:
			nets, err := c.Networks()
			if err != nil {
				return nil, "", 0, fmt.Errorf("run: %s: %w", checkpoints.BestName, err)
			}
			p, err := (&Result{Policy: c.Policy, Networks: nets}).PolicyOver("mpdf", fz)
			return p, checkpoints.BestName, c.Header.Step, err
		case !errors.Is(err, fs.ErrNotExist):
			return nil, "", 0, fmt.Errorf("run: %w", err)
		}
	}
	nets, err := r.networks()
	if err != nil {
		return nil, "", 0, err
	}
	p, err := (&Result{Policy: r.policy, Networks: nets}).PolicyOver("mpdf", fz)
	return p, "", 0, err
}

// EvalFile is what eval.json holds: the final evaluation of an online run
// on its held-out tasks and the verdict on it.
type EvalFile struct {
	// Env is the environment spec the run trained in (its held-out side
	// was played); Tasks the held-out tasks played, Episodes per task
	// and policy, Seed the episodes' seed.
	Env      string `json:"env"`
	Tasks    int    `json:"tasks"`
	Episodes int    `json:"episodes"`
	Seed     uint64 `json:"seed"`
	// Checkpoint is the file whose policy was played ("best.mpdf", the
	// one mpdf serve and policy.safetensors hold), Step its step; empty
	// when the run kept no best (the policy as training left it).
	Checkpoint string `json:"checkpoint,omitempty"`
	Step       int64  `json:"step,omitempty"`
	// Results is one row per policy: the learned policy sampled ("mpdf")
	// and greedy ("mpdf/greedy"), then the heuristic baselines.
	Results env.Results `json:"results"`
	// Verdict is the learned policy against the fixed protocols: paired
	// differences, frontier, and what to use (env.Verdict).
	Verdict *env.Verdict `json:"verdict"`
	// Notes are what the defaults chose for this run and why (Config.Notes).
	Notes []string `json:"notes,omitempty"`
	// RLChange is the evaluated policy against the supervised policy
	// alone on the same tasks and seeds; absent without an RL stage.
	RLChange *RLChange `json:"rl_change,omitempty"`
}

func (f EvalFile) write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(f)
}
