package replay

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/answer"
)

// SpecWithKind returns spec with a kind= part saying k, for a --kind flag
// given beside --env: the spec stays the one string a run records, so
// that a resume or an evaluation reopens the transcripts read the same way.
// An empty k leaves spec as it is; a spec that is not a replay's, or that
// says another kind, is refused.
func SpecWithKind(spec string, k answer.Kind) (string, error) {
	if k == "" {
		return spec, nil
	}
	sp, err := parseReplaySpec(spec, "only transcripts have a task kind")
	if err != nil {
		return "", err
	}
	switch sp.Options.Task {
	case k:
		return spec, nil
	case "":
		return spec + ",kind=" + string(k), nil
	}
	return "", fmt.Errorf("replay: spec %q says kind=%s, not %s: give one", spec, sp.Options.Task, k)
}

// SpecWithCritic returns spec with critic=on, for a --critic flag given
// beside --env, as SpecWithKind does for --kind. on false leaves spec as it
// is; a spec that is not a replay's, or says critic=off, is refused.
func SpecWithCritic(spec string, on bool) (string, error) {
	if !on {
		return spec, nil
	}
	sp, err := parseReplaySpec(spec, "only transcripts have texts for the critic to read")
	if err != nil {
		return "", err
	}
	switch {
	case !sp.CriticSet:
		return spec + ",critic=on", nil
	case !sp.Critic:
		return "", fmt.Errorf("replay: spec %q says critic=off, and the critic is asked for: give one", spec)
	}
	return spec, nil
}

// parseReplaySpec is ParseSpec, refusing a spec that is not a replay's
// (sim) with why.
func parseReplaySpec(spec, why string) (Spec, error) {
	if !strings.HasPrefix(spec, SpecPrefix) {
		return Spec{}, fmt.Errorf("%q is not a replay (%sFILES): %s", spec, SpecPrefix, why)
	}
	return ParseSpec(spec)
}
