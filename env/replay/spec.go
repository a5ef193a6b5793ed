package replay

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
)

// SpecPrefix starts an environment spec that names a replay.
const SpecPrefix = "replay:"

// Syntax is the replay form of an environment spec, for help texts and
// errors.
const Syntax = "replay:GLOB[,GLOB...][,kind=K][,layout=L][,critic=on|off]"

// Spec is what a replay environment spec says, the --env value of the
// command line: "replay:" then comma-separated parts, each a file or a
// glob, or one of
//
//	kind=K     the task of every file (answer.ParseKind: gsm8k, mmlu,
//	           arithmetic, math), when the file names do not say
//	layout=L   the layout of every file (transcript.ParseLayout: auto,
//	           debate, agora), when detection misreads one
//	critic=C   on or off (the default): fill each turn's missing
//	           confidence with the critic's read from its text
//	           (WithCritic, answer.Critic)
//
// for example "replay:runs/*.json,logs/x.json,kind=math,layout=debate".
// critic= is part of the spec, not a flag beside it, because the
// confidence is an input of the policy: a run trained with the critic
// records it with the environment, so that a resume, an evaluation of the
// run's held-out side and the provenance of its checkpoints
// (checkpoints.ConfidenceSource) see the confidence the policy trained on.
// The spec is one string because a run records it (trainer/run's
// Position.Env) and a resume or an evaluation reopens the same
// environment from it. A file whose name starts with "kind=" or
// "layout=" is named with a directory: "./kind=1.json".
type Spec struct {
	// Globs are the file parts, in order, unexpanded.
	Globs []string
	// Options are the kind= and layout= parts (Task and Layout); zero
	// when the spec does not say.
	Options transcript.Options
	// Critic is the critic= part: on fills the turns' missing confidence
	// from the text (WithCritic). CriticSet says whether the spec has the
	// part, so that a caller can default it (mpdf eval takes a
	// checkpoint's) or tell it from a flag that contradicts it.
	Critic, CriticSet bool
}

// EnvOptions are the Env options the spec asks for (WithCritic), for New or
// Load.
func (sp Spec) EnvOptions() []Option {
	return []Option{WithCritic(sp.Critic)}
}

// ParseSpec reads a replay spec. It checks the options, not the files:
// the caller expands Globs (Load takes the paths).
func ParseSpec(s string) (Spec, error) {
	rest, ok := strings.CutPrefix(s, SpecPrefix)
	if !ok {
		return Spec{}, fmt.Errorf("replay: spec %q: want %sGLOB[,GLOB...][,kind=K][,layout=L][,critic=on|off]", s, SpecPrefix)
	}
	var sp Spec
	var kind, layout bool
	for part := range strings.SplitSeq(rest, ",") {
		var err error
		switch {
		case part == "":
			return Spec{}, fmt.Errorf("replay: spec %q: empty part", s)
		case strings.HasPrefix(part, "kind="):
			if kind {
				return Spec{}, fmt.Errorf("replay: spec %q: kind= given twice", s)
			}
			kind = true
			sp.Options.Task, err = answer.ParseKind(strings.TrimPrefix(part, "kind="))
		case strings.HasPrefix(part, "layout="):
			if layout {
				return Spec{}, fmt.Errorf("replay: spec %q: layout= given twice", s)
			}
			layout = true
			sp.Options.Layout, err = transcript.ParseLayout(strings.TrimPrefix(part, "layout="))
		case strings.HasPrefix(part, "critic="):
			if sp.CriticSet {
				return Spec{}, fmt.Errorf("replay: spec %q: critic= given twice", s)
			}
			sp.CriticSet = true
			switch v := strings.TrimPrefix(part, "critic="); v {
			case "on":
				sp.Critic = true
			case "off":
			default:
				err = fmt.Errorf("critic=%s: want on or off", v)
			}
		default:
			sp.Globs = append(sp.Globs, part)
		}
		if err != nil {
			return Spec{}, fmt.Errorf("replay: spec %q: %w", s, err)
		}
	}
	if len(sp.Globs) == 0 {
		return Spec{}, fmt.Errorf("replay: spec %q: no file", s)
	}
	return sp, nil
}
