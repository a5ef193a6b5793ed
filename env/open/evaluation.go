package open

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
)

// EvalConfig says what an evaluation plays (mpdf eval, mpdf view): the
// environment spec, the policy specs and the tasks. Where the user gave no
// environment, critic or split, Eval takes the learned
// checkpoints': a policy is scored where and on what it did not train.
type EvalConfig struct {
	Env      string // an environment spec: sim or replay.Syntax
	EnvGiven bool   // Env was given, not the default
	Config
	Policies    []string // policy specs (checkpoints.ResolvePolicy)
	NoBaselines bool     // play only Policies, without the heuristic baselines
	Rounds      int      // 0: the environment's default
	Tasks       int      // the first Tasks of the side played (0: all)
	// Episodes per task (0: 1) under Seed, Workers at once (0: one per
	// CPU); Greedy: a learned policy takes its most probable action.
	Episodes int
	Seed     uint64
	Workers  int
	Greedy   bool
	// GreedyGiven says Greedy was given: otherwise a replay plays learned
	// policies greedy, as train and study judge them (trainer.Recipe).
	GreedyGiven bool
	// Lambda is the verdict's price of tokens (env.JudgeOptions.Lambda).
	Lambda float64
	// Split is the side played ("train", "test", "all" or "": all, or
	// test for a checkpoint trained on a replay split), HeldOut and
	// SplitSeed the split's; the Given flags say which the user gave.
	Split                        string
	HeldOut                      float64
	SplitSeed                    uint64
	HeldOutGiven, SplitSeedGiven bool
	// Notes takes a line for each default taken from the checkpoints and
	// each warning; nil drops them.
	Notes io.Writer
}

// An Evaluation is an opened EvalConfig: the environment, the policies
// (baselines first) and the tasks to play, with the config as resolved.
type Evaluation struct {
	EvalConfig
	Env      env.Env
	Policies []checkpoints.Resolved
	List     []int
}

// Eval opens the environment, resolves the policies (each file
// read once) with the baselines the environment can play and lists the
// tasks, defaulting the environment, critic and split to the learned
// checkpoints' as mpdf eval's help says.
func Eval(c EvalConfig) (*Evaluation, error) {
	if c.Episodes < 0 {
		return nil, errmark.Bad("replay: evaluation", "episodes", c.Episodes, "want ≥ 0 (0: 1)")
	}
	given, err := resolveAll(c.Policies)
	if err != nil {
		return nil, err
	}
	if !c.EnvGiven {
		if c.Env, err = trainedEnv(c.Notes, given, c.Env); err != nil {
			return nil, err
		}
	}
	e, defRounds, err := Env(c.Env, c.Config)
	if err != nil {
		return nil, err
	}
	pols, err := withBaselines(given, env.Baselines(e), c.NoBaselines)
	if err != nil {
		return nil, err
	}
	if c.Rounds == 0 {
		c.Rounds = defRounds
	}
	c.Episodes = max(c.Episodes, 1)
	if r, ok := e.(*replay.Env); ok {
		if !c.GreedyGiven && slices.ContainsFunc(pols, func(p checkpoints.Resolved) bool { return p.Learned }) {
			c.Greedy = true
			note(c.Notes, "eval: learned policies play greedy on a replay, as train and study judge them (--greedy=false samples)\n")
		}
		if e, err = trainedCritic(c.Notes, r, c.Env, pols); err != nil {
			return nil, err
		}
		if err := c.trainedSplit(pols); err != nil {
			return nil, err
		}
	}
	list, err := Tasks(e, c.Split, c.HeldOut, c.SplitSeed, c.Tasks)
	if err != nil {
		return nil, err
	}
	return &Evaluation{EvalConfig: c, Env: e, Policies: pols, List: list}, nil
}

// Learned names the learned policies played.
func (ev *Evaluation) Learned() []string {
	var learned []string
	for _, p := range ev.Policies {
		if p.Learned {
			learned = append(learned, p.Name())
		}
	}
	return learned
}

// Confidence reports whether the agents played state a confidence: in the
// simulator, or on a replay with the text critic.
func (ev *Evaluation) Confidence() bool {
	r, ok := ev.Env.(*replay.Env)
	return !ok || r.Critic()
}

// Heading is the line above an evaluation's table: the environment, the
// tasks and side played, episodes, rounds and seed.
func (ev *Evaluation) Heading() string {
	side := ""
	if ev.Split != "" && ev.Split != "all" {
		side = fmt.Sprintf(", %s split (held out %.2f, seed %d)", ev.Split, ev.HeldOut, ev.SplitSeed)
	}
	return fmt.Sprintf("env %s: %d tasks%s × %d episodes, %d rounds, seed %d",
		Title(ev.Env), len(ev.List), side, ev.Episodes, ev.Rounds, ev.Seed)
}

// Each calls play with each policy of ev in turn, baselines first, and the
// options it is played with (greedy only where it is learned); progress,
// when set, is told the episodes done and to do over all the policies.
func (ev *Evaluation) Each(progress func(done, total int), play func(metapolicy.Policy, env.RunOptions) error) error {
	per := len(ev.List) * ev.Episodes
	for i, p := range ev.Policies {
		opts := env.RunOptions{Tasks: ev.List, Episodes: ev.Episodes, Rounds: ev.Rounds, Seed: ev.Seed,
			Greedy: ev.Greedy && p.Learned, Workers: ev.Workers}
		if progress != nil {
			opts.Progress = func(done, _ int) { progress(i*per+done, per*len(ev.Policies)) }
		}
		if err := play(p.Policy, opts); err != nil {
			return err
		}
	}
	return nil
}

// resolveAll resolves policy specs, each file read once.
func resolveAll(specs []string) ([]checkpoints.Resolved, error) {
	var pols []checkpoints.Resolved
	for _, s := range specs {
		p, err := checkpoints.ResolvePolicy(s)
		if err != nil {
			return nil, err
		}
		pols = append(pols, p)
	}
	return pols, nil
}

// withBaselines adds to the policies given the heuristic baselines the
// environment can play, first, when no heuristic is given (unless
// noBaselines). Results are named by policy: a name twice is an error.
func withBaselines(given []checkpoints.Resolved, baselines []string, noBaselines bool) ([]checkpoints.Resolved, error) {
	var pols []checkpoints.Resolved
	if !noBaselines && !slices.ContainsFunc(given, func(p checkpoints.Resolved) bool { return !p.Learned }) {
		var err error
		if pols, err = resolveAll(baselines); err != nil {
			return nil, err
		}
	}
	pols = append(pols, given...)
	if len(pols) == 0 {
		return nil, errmark.Mark(errors.New("no policy to evaluate: none given, and the baselines left out"), ErrNoPolicy)
	}
	seen := map[string]bool{}
	for _, p := range pols {
		if seen[p.Name()] {
			return nil, fmt.Errorf("policy %s given twice (results are named by policy)", p.Name())
		}
		seen[p.Name()] = true
	}
	return pols, nil
}

// trainedEnv is the environment to evaluate on when none is given: the
// replay the learned policies trained on (checkpoints.TrainedReplay), so
// that a policy trained on transcripts is not silently scored on the
// simulator; def when none trained on a replay.
func trainedEnv(log io.Writer, pols []checkpoints.Resolved, def string) (string, error) {
	found, from, err := checkpoints.TrainedReplay(pols)
	if err != nil || found == "" {
		return def, err
	}
	note(log, "eval: %s trained on %s: evaluating on that replay (the env spec sim plays the simulator)\n", from, found)
	return found, nil
}

// trainedCritic defaults the critic= part of a replay spec that has none
// to the learned checkpoints': on when their runs trained with critic=on,
// since a policy that learned to read the text critic's confidence would
// otherwise be scored without it. A spec that says critic= is played as it
// says, with a warning for each checkpoint whose run read the confidence
// otherwise (checkpoints.CriticMismatch); checkpoints that disagree need
// the spec to say.
func trainedCritic(log io.Writer, r *replay.Env, spec string, pols []checkpoints.Resolved) (env.Env, error) {
	sp, err := replay.ParseSpec(spec)
	if err != nil {
		return nil, errmark.Mark(err, ErrSpec)
	}
	if sp.CriticSet {
		warn := "eval: warning: %s trained with the text critic (critic=on), but the env spec %s plays critic=off: the policy loses the confidence it learned from\n"
		if sp.Critic {
			warn = "eval: warning: %s trained without the text critic (its confidence was missing), but the env spec %s plays critic=on: the policy sees an input it never trained on\n"
		}
		for _, p := range pols {
			known := p.Confidence == checkpoints.ConfidenceTextCritic || p.Confidence == checkpoints.ConfidenceNone
			if known && checkpoints.CriticMismatch(p.Confidence, sp.Critic) {
				note(log, warn, p.Name(), spec)
			}
		}
		return r, nil
	}
	on, with, err := checkpoints.TextCritic(pols)
	if err != nil || !on {
		return r, err
	}
	note(log, "eval: %s trained with the text critic (critic=on in its env spec): playing the replay with it (critic=off in the spec plays without)\n", strings.Join(with, ", "))
	return r.With(replay.WithCritic(true))
}

// trainedSplit defaults the split to the held-out side of the replay split
// a learned checkpoint trained on (checkpoints.HeldOutSplit), and its
// share and seed to that split's, unless given: evaluated on every
// question, a policy would be scored on the ones it trained on.
func (c *EvalConfig) trainedSplit(pols []checkpoints.Resolved) error {
	if c.Split == "all" {
		return nil
	}
	sp, from, err := checkpoints.HeldOutSplit(pols, c.HeldOutGiven && c.SplitSeedGiven)
	if err != nil || sp == nil {
		return err
	}
	if !c.HeldOutGiven {
		c.HeldOut = sp.HeldOut
	}
	if !c.SplitSeedGiven {
		c.SplitSeed = sp.SplitSeed
	}
	if c.Split != "" {
		return nil
	}
	c.Split = "test"
	note(c.Notes, "eval: %s trained on %s with %.2f of the questions held out (split seed %d): evaluating on the held-out side (split all plays every question)\n",
		from, sp.Env, c.HeldOut, c.SplitSeed)
	if !sameFiles(sp.Env, c.Env) {
		note(c.Notes, "eval: warning: the env spec %s is not the run's %s: the split holds out the same questions only on the same files\n", c.Env, sp.Env)
	}
	return nil
}

// note writes a note to log, if any.
func note(log io.Writer, format string, args ...any) {
	if log != nil {
		fmt.Fprintf(log, format, args...)
	}
}

// ConfidenceSource says where the confidence of a replay's turns comes
// from, for a report: "" in the simulator, whose agents state one.
func (ev *Evaluation) ConfidenceSource() string {
	switch r, ok := ev.Env.(*replay.Env); {
	case !ok:
		return ""
	case r.Critic():
		return "the text critic's read of each answer"
	}
	return "none (the transcripts record none; critic=on in the env spec reads one from each text)"
}
