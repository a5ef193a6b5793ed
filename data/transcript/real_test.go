package transcript

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/internal/testenv"
)

// TestRealFiles imports every shared transcript: each must read without
// error, with a readable gold answer for every question, the team size and
// rounds its name promises, and the unreadable share reported. Most files
// must be mostly readable: a parser regression shows up as a jump here.
func TestRealFiles(t *testing.T) {
	paths := testenv.Debates(t, "slm-debate/*/*.json")
	var reps []Report
	bad := 0
	for _, p := range paths {
		f, err := ReadFile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := f.Report
		reps = append(reps, r)
		if r.Questions == 0 || len(r.Skipped) > 0 {
			t.Errorf("%s: %d questions, skipped %v", r.File, r.Questions, r.Skipped)
		}
		if r.GoldMissing > 0 {
			t.Errorf("%s: %d gold answers unreadable", r.File, r.GoldMissing)
		}
		if len(r.Warnings) > 0 {
			t.Errorf("%s: %v", r.File, r.Warnings)
		}
		if r.Model == "" || (r.Task != answer.GSM8K && r.Task != answer.MMLU) {
			t.Errorf("%s: model %q task %q", r.File, r.Model, r.Task)
		}
		for i := range f.Questions {
			q := &f.Questions[i]
			if q.Task == answer.MMLU && answer.Choices(q.Text) == nil {
				t.Errorf("%s: question %d: choices not found in %q", r.File, i, q.Text)
			}
		}
		if r.Total().Share() > 0.25 {
			bad++
		}
	}
	var sb strings.Builder
	if err := WriteReports(&sb, reps); err != nil {
		t.Fatal(err)
	}
	t.Logf("unreadable answers per file:\n%s", sb.String())
	if bad > len(paths)/4 {
		t.Errorf("%d of %d files have more than 25%% unreadable answers", bad, len(paths))
	}
}
