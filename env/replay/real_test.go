package replay

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/transcript"
)

// sharedDebates lists ../shared/data/debates (relative to the repository
// root), skipping the test when absent.
func sharedDebates(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "data", "debates", "slm-debate")
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(paths) == 0 {
		t.Skipf("no transcripts under %s", dir)
	}
	return paths
}

// TestRealReplay replays every shared transcript under the two fixed
// behaviours: all-refine must reproduce the recorded final answers and
// all-persist round 0, so their team accuracies must equal
// transcript.Baselines' debate and persist columns.
func TestRealReplay(t *testing.T) {
	paths := sharedDebates(t)
	var files []*transcript.File
	for _, p := range paths {
		f, err := transcript.ReadFile(p, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	rows := transcript.Baselines(files)
	for i, f := range files {
		e, err := New(f.Questions)
		if err != nil {
			t.Fatal(err)
		}
		var persist, debate int
		for task := range e.NumTasks() {
			q := e.Question(task)
			g, _ := e.Start(task, nil)
			ref := play(t, g, e.Rounds(), always(metapolicy.Refine))
			if got, want := answersOf(ref[len(ref)-1]), q.Answers(nil, q.Rounds()); !slices.Equal(got, want) {
				t.Fatalf("%s #%d: refine replay ends %q, recorded %q", f.Report.File, task, got, want)
			}
			per := play(t, g, e.Rounds(), always(metapolicy.Persist))
			if got, want := answersOf(per[len(per)-1]), q.Answers(nil, 0); !slices.Equal(got, want) {
				t.Fatalf("%s #%d: persist replay ends %q, round 0 %q", f.Report.File, task, got, want)
			}
			if q.Gold == "" {
				continue
			}
			if metapolicy.TeamAnswer(answersOf(per[len(per)-1]), nil, -1) == q.Gold {
				persist++
			}
			if metapolicy.TeamAnswer(answersOf(ref[len(ref)-1]), nil, -1) == q.Gold {
				debate++
			}
		}
		if persist != rows[i].PersistCorrect || debate != rows[i].DebateCorrect {
			t.Errorf("%s: replay persist %d debate %d, baselines %+v", f.Report.File, persist, debate, rows[i])
		}
	}
}

func BenchmarkReplay(b *testing.B) {
	paths := sharedDebates(b)
	e, _, err := Load(paths, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	steps := 0
	for b.Loop() {
		for task := range e.NumTasks() {
			g, _ := e.Start(task, nil)
			hist := play(b, g, e.Rounds(), func(r, k int, _ []data.Turn) metapolicy.Action {
				return metapolicy.Action((r + k + task) % metapolicy.NumActions)
			})
			steps += len(hist[0]) * (len(hist) - 1)
		}
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}
