package open

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/errmark"
)

// isSim reports whether an environment spec names the simulator.
func isSim(spec string) bool { return spec == "sim" || spec == "simulator" }

// Config is what opens an environment (Env) beside its spec.
type Config struct {
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

// Env opens the environment a spec names, the simulator ("sim") or a
// replay (a replay.Syntax spec, Replay), and returns it with its default
// number of rounds: env.DefaultRounds, or the most a replay's transcripts
// record. A spec that does not open is ErrSpec; c contradicting it,
// ErrConfig.
func Env(spec string, c Config) (env.Env, int, error) {
	switch {
	case isSim(spec):
		if c.Critic {
			return nil, 0, errmark.Mark(errors.New("critic: only a replay has texts to read, not the simulator"), ErrConfig)
		}
		sim, err := sim.New(c.Sim)
		return sim, env.DefaultRounds, err
	case strings.HasPrefix(spec, replay.SpecPrefix):
		sp, err := replay.ParseSpec(spec)
		if err != nil {
			return nil, 0, errmark.Mark(err, ErrSpec)
		}
		if c.Kind != "" && sp.Options.Task != "" && c.Kind != sp.Options.Task {
			return nil, 0, errmark.Mark(fmt.Errorf("kind %s and %s: two tasks; give one", c.Kind, spec), ErrConfig)
		}
		if sp.Options.Task == "" {
			sp.Options.Task = c.Kind
		}
		if c.Critic && sp.CriticSet && !sp.Critic {
			return nil, 0, errmark.Mark(fmt.Errorf("critic and %s (critic=off): give one", spec), ErrConfig)
		}
		sp.Critic = sp.Critic || c.Critic
		e, err := Replay(sp, c.Log)
		var ge globError
		if errors.As(err, &ge) || errors.Is(err, ErrNoRounds) {
			return nil, 0, errmark.Mark(fmt.Errorf("%s: %w", spec, err), ErrSpec)
		}
		if err != nil {
			return nil, 0, err
		}
		return e, e.Rounds(), nil
	}
	return nil, 0, errmark.Mark(fmt.Errorf("%q: want sim or %s", spec, replay.Syntax), ErrSpec)
}

// Replay replays the transcripts a replay spec names: its globs expanded
// (transcript.Glob), read with its kind= and layout=, with its critic=
// and then opts applied (replay.Load). Each file's readability report goes
// to log (transcript.WriteReports) unless log is nil. Transcripts without
// a deliberation round are refused (ErrNoRounds).
func Replay(sp replay.Spec, log io.Writer, opts ...replay.Option) (*replay.Env, error) {
	paths, err := transcript.Glob(sp.Globs)
	if err != nil {
		return nil, globError{err}
	}
	e, reps, err := replay.Load(paths, sp.Options, append(sp.EnvOptions(), opts...)...)
	if err != nil {
		return nil, err
	}
	if log != nil {
		if err := transcript.WriteReports(log, reps); err != nil {
			return nil, err
		}
	}
	if e.Rounds() < 1 {
		return nil, ErrNoRounds
	}
	return e, nil
}

// globError is Replay's error for globs that name no file
// (transcript.Glob), told apart from a transcript that cannot be read.
type globError struct{ error }

func (e globError) Unwrap() error { return e.error }

// Split opens the environments of an online training run on spec: one
// to train in and one to evaluate on tasks never trained on. The
// simulator's evaluation tasks come from another seed (c.Sim.Seed +
// 1,000,003); a replay's questions are split by heldOut and splitSeed
// (replay.Env.Split, as an evaluation's split is), and rounds is the most
// its transcripts record (0 for the simulator: the run's own).
func Split(spec string, c Config, heldOut float64, splitSeed uint64) (train, held env.Env, rounds int, err error) {
	if isSim(spec) {
		if train, err = sim.New(c.Sim); err != nil {
			return nil, nil, 0, err
		}
		c.Sim.Seed += 1_000_003
		held, err = sim.New(c.Sim)
		return train, held, 0, err
	}
	e, rounds, err := Env(spec, c)
	if err != nil {
		return nil, nil, 0, err
	}
	re, ok := e.(*replay.Env)
	if !ok {
		return nil, nil, 0, errmark.Mark(fmt.Errorf("%q: want sim or %s", spec, replay.Syntax), ErrSpec)
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

// Training is Split for a run of *rounds deliberation rounds: on a
// replay they become the most its transcripts record. What it sets and
// the split's sizes are said on log (nil: not said).
func Training(spec string, c Config, heldOut float64, splitSeed uint64, rounds *int, log io.Writer) (train, held env.Env, err error) {
	train, held, recorded, err := Split(spec, c, heldOut, splitSeed)
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

// countsOf is replay.Counts of a replay, or its tasks.
func countsOf(e env.Env) string {
	if r, ok := e.(*replay.Env); ok {
		return replay.Counts(r)
	}
	return fmt.Sprintf("%d tasks", e.NumTasks())
}

// sameFiles reports whether two replay specs name the same files read the
// same way (their critic= parts aside).
func sameFiles(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := replay.ParseSpec(a)
	sb, err2 := replay.ParseSpec(b)
	return err1 == nil && err2 == nil && slices.Equal(sa.Globs, sb.Globs) && sa.Options == sb.Options
}
