package replay

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/errmark"
)

// Syntax is the replay form of an environment spec, for help texts and
// errors.
const Syntax = "replay:GLOB[,GLOB...][,kind=K][,layout=L][,critic=on|off]"

// IsSim reports whether an environment spec names the simulator.
func IsSim(spec string) bool { return spec == "sim" || spec == "simulator" }

// EnvConfig is what opens an environment (OpenEnv) beside its spec.
type EnvConfig struct {
	// Sim configures the simulator.
	Sim sim.Config
	// Kind is the task of replayed transcripts when the spec has no kind=
	// part; it may repeat the part, not contradict it.
	Kind answer.Kind
	// Critic plays a replay with the text critic (as critic=on does); it
	// may repeat the spec's critic= part, not contradict it.
	Critic bool
	// Log takes each transcript's readability report; nil drops them.
	Log io.Writer
}

// OpenEnv opens the environment a spec names, the simulator ("sim") or a
// replay (a Syntax spec, Open), and returns it with its default number of
// rounds: env.DefaultRounds, or the most a replay's transcripts record. A
// spec that does not open is ErrSpec; c contradicting it, ErrEnvConfig.
func OpenEnv(spec string, c EnvConfig) (env.Env, int, error) {
	switch {
	case IsSim(spec):
		if c.Critic {
			return nil, 0, errmark.Mark(errors.New("critic: only a replay has texts to read, not the simulator"), ErrEnvConfig)
		}
		sim, err := sim.New(c.Sim)
		return sim, env.DefaultRounds, err
	case strings.HasPrefix(spec, SpecPrefix):
		sp, err := ParseSpec(spec)
		if err != nil {
			return nil, 0, errmark.Mark(err, ErrSpec)
		}
		if c.Kind != "" && sp.Options.Task != "" && c.Kind != sp.Options.Task {
			return nil, 0, errmark.Mark(fmt.Errorf("kind %s and %s: two tasks; give one", c.Kind, spec), ErrEnvConfig)
		}
		if sp.Options.Task == "" {
			sp.Options.Task = c.Kind
		}
		if c.Critic && sp.CriticSet && !sp.Critic {
			return nil, 0, errmark.Mark(fmt.Errorf("critic and %s (critic=off): give one", spec), ErrEnvConfig)
		}
		sp.Critic = sp.Critic || c.Critic
		e, err := Open(sp, c.Log)
		var ge globError
		if errors.As(err, &ge) || errors.Is(err, ErrNoRounds) {
			return nil, 0, errmark.Mark(fmt.Errorf("%s: %w", spec, err), ErrSpec)
		}
		if err != nil {
			return nil, 0, err
		}
		return e, e.Rounds(), nil
	}
	return nil, 0, errmark.Mark(fmt.Errorf("%q: want sim or %s", spec, Syntax), ErrSpec)
}

// OpenSplit opens the environments of an online training run on spec:
// one to train in and one to evaluate on tasks never trained on. The
// simulator's evaluation tasks come from another seed (c.Sim.Seed +
// 1,000,003); a replay's questions are split by heldOut and splitSeed
// (Env.Split, as an evaluation's --split is), and rounds is the most its
// transcripts record (0 for the simulator: the run's own).
func OpenSplit(spec string, c EnvConfig, heldOut float64, splitSeed uint64) (train, held env.Env, rounds int, err error) {
	if IsSim(spec) {
		if train, err = sim.New(c.Sim); err != nil {
			return nil, nil, 0, err
		}
		c.Sim.Seed += 1_000_003
		held, err = sim.New(c.Sim)
		return train, held, 0, err
	}
	e, rounds, err := OpenEnv(spec, c)
	if err != nil {
		return nil, nil, 0, err
	}
	re, ok := e.(*Env)
	if !ok {
		return nil, nil, 0, errmark.Mark(fmt.Errorf("%q: want sim or %s", spec, Syntax), ErrSpec)
	}
	trainIdx, testIdx, err := re.Split(heldOut, splitSeed)
	if err != nil {
		return nil, nil, 0, errmark.Mark(err, ErrHeldOut)
	}
	tr, err := re.Subset(trainIdx)
	if err != nil {
		return nil, nil, 0, err
	}
	te, err := re.Subset(testIdx)
	if err != nil {
		return nil, nil, 0, err
	}
	return tr, te, rounds, nil
}

// SameFiles reports whether two replay specs name the same files read the
// same way (their critic= parts aside).
func SameFiles(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := ParseSpec(a)
	sb, err2 := ParseSpec(b)
	return err1 == nil && err2 == nil && slices.Equal(sa.Globs, sb.Globs) && sa.Options == sb.Options
}

// Tasks lists the tasks of e to play: one side ("train" or "test") of the
// split by heldOut and seed (Env.Split on a replay, which keeps a question
// on one side, else Split) or all ("" or "all"), then the first n of them
// (0 = all).
func Tasks(e env.Env, side string, heldOut float64, seed uint64, n int) ([]int, error) {
	if n < 0 {
		return nil, errmark.Bad("replay", "tasks", n, "want ≥ 0 (0: all)")
	}
	list, err := sideOf(e, side, heldOut, seed)
	if err != nil {
		return nil, err
	}
	if n > len(list) {
		what := "the environment has"
		if side != "" && side != "all" {
			what = "the " + side + " side has"
		}
		return nil, errmark.Mark(errmark.Bad("replay", "tasks", n, fmt.Sprintf("%s %d tasks", what, len(list))), ErrTasks)
	}
	if n > 0 {
		list = list[:n]
	}
	if len(list) == 0 {
		return nil, errmark.Mark(fmt.Errorf("no task to play (the %s side is empty)", side), ErrEmptySide)
	}
	return list, nil
}

// sideOf lists the tasks of one side of the split, or all.
func sideOf(e env.Env, side string, heldOut float64, seed uint64) ([]int, error) {
	if side == "" || side == "all" {
		list := make([]int, e.NumTasks())
		for i := range list {
			list[i] = i
		}
		return list, nil
	}
	var train, test []int
	var err error
	if r, ok := e.(*Env); ok {
		train, test, err = r.Split(heldOut, seed)
	} else {
		train, test, err = Split(e.NumTasks(), heldOut, seed)
	}
	if err != nil {
		return nil, errmark.Mark(err, ErrSplit)
	}
	switch side {
	case "train":
		return train, nil
	case "test":
		return test, nil
	}
	return nil, errmark.Mark(fmt.Errorf("%q: want train or test (or all)", side), ErrSplit)
}

// Title names e in a report's heading: its Name, or for a replay of
// several files (whose Name lists them all) their count, its tasks (a
// question of one file) and its distinct questions.
func Title(e env.Env) string {
	name := e.Name()
	if r, ok := e.(*Env); ok && strings.Count(name, ",") > 0 {
		return fmt.Sprintf("replay of %d files (%s)", strings.Count(name, ",")+1, Counts(r))
	}
	return name
}

// Counts says a replay's size in the words every report uses: "N tasks,
// M distinct questions" (a task is one file's question; a question
// debated in several files is one question, and one pair of the verdict).
func Counts(r *Env) string {
	ids := make(map[string]struct{}, r.NumTasks())
	for i := range r.NumTasks() {
		ids[r.Question(i).ID] = struct{}{}
	}
	return fmt.Sprintf("%d tasks, %d distinct questions", r.NumTasks(), len(ids))
}

// OpenTraining is OpenSplit for a run of *rounds deliberation rounds: on
// a replay they become the most its transcripts record. What it sets and
// the split's sizes are said on log (nil: not said).
func OpenTraining(spec string, c EnvConfig, heldOut float64, splitSeed uint64, rounds *int, log io.Writer) (train, held env.Env, err error) {
	train, held, recorded, err := OpenSplit(spec, c, heldOut, splitSeed)
	if err != nil || recorded == 0 {
		return train, held, err
	}
	if log == nil {
		log = io.Discard
	}
	if *rounds != recorded {
		fmt.Fprintf(log, "replay: %d deliberation rounds recorded; rl.rounds set to %d\n", recorded, recorded)
		*rounds = recorded
	}
	fmt.Fprintf(log, "replay: %s for training; %s held out\n", countsOf(train), countsOf(held))
	return train, held, nil
}

// countsOf is Counts of a replay, or its tasks.
func countsOf(e env.Env) string {
	if r, ok := e.(*Env); ok {
		return Counts(r)
	}
	return fmt.Sprintf("%d tasks", e.NumTasks())
}
