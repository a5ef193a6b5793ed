package replay

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/data/transcript"
)

// SpecWithKind returns spec with a kind= part saying k, for a --kind flag
// given beside --env: the spec stays the one string a run records, so
// that a resume or an evaluation reopens the transcripts read the same way.
// An empty k leaves spec as it is; a spec that is not a replay's, or that
// says another kind, is refused.
func SpecWithKind(spec string, k transcript.Task) (string, error) {
	if k == "" {
		return spec, nil
	}
	if !strings.HasPrefix(spec, SpecPrefix) {
		return "", fmt.Errorf("%q is not a replay (%sFILES): only transcripts have a task kind", spec, SpecPrefix)
	}
	sp, err := ParseSpec(spec)
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
