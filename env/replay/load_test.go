package replay

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/data/transcript"
)

// TestLoadIsSequential: Load, reading files on several goroutines, gives the
// questions and reports of reading them one after another, in order — the
// text critic read only when the Env plays with it, then as the reader
// reads it (now, or later through With); with bad files among them, the
// error of the first bad one in the given order.
func TestLoadIsSequential(t *testing.T) {
	paths := sharedDebates(t)[:6]
	read := func(o transcript.Options) ([]transcript.Question, []transcript.Report) {
		var qs []transcript.Question
		var reps []transcript.Report
		for _, p := range paths {
			f, err := transcript.ReadFile(p, o)
			if err != nil {
				t.Fatal(err)
			}
			qs = append(qs, f.Questions...)
			reps = append(reps, f.Report)
		}
		return qs, reps
	}
	plain, want := read(transcript.Options{SkipCritic: true})
	critiqued, wantC := read(transcript.Options{})
	if reflect.DeepEqual(plain, critiqued) {
		t.Fatal("the files give the critic nothing to read: the test compares nothing")
	}
	e, reps, err := Load(paths, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(plain, e.qs) + cmp.Diff(want, reps); d != "" {
		t.Fatalf("Load's questions or reports differ from reading the files in order (-read +Load):\n%s", d)
	}
	on, err := e.With(WithCritic(true))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(critiqued, on.qs) + cmp.Diff(plain, e.qs); d != "" {
		t.Fatalf("With(WithCritic(true)): questions differ from reading them with the critic, or the Env it was made from changed (-want +got):\n%s", d)
	}
	now, reps, err := Load(paths, transcript.Options{}, WithCritic(true))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(critiqued, now.qs) + cmp.Diff(wantC, reps); d != "" {
		t.Fatalf("Load with the critic: questions or reports differ from reading the files in order with it (-read +Load):\n%s", d)
	}
	skip, _, err := Load(paths, transcript.Options{SkipCritic: true})
	if err != nil {
		t.Fatal(err)
	}
	off, err := skip.With(WithCritic(true))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(plain, off.qs); d != "" {
		t.Fatalf("Load told to skip the critic read it when it was turned on (-skipped +turned on):\n%s", d)
	}
	dir := t.TempDir()
	broken := filepath.Join(dir, "gsm_broken_agents3_rounds2.json")
	if err := os.WriteFile(broken, []byte(`{"q": [1, 2`), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "gsm_missing_agents3_rounds2.json")
	for _, bad := range [][2]int{{1, 4}, {4, 1}, {5, -1}} {
		ps := append([]string(nil), paths...)
		ps[bad[0]] = broken
		first := broken
		if bad[1] >= 0 {
			ps[bad[1]] = missing
			if bad[1] < bad[0] {
				first = missing
			}
		}
		_, wantErr := transcript.ReadFile(first, transcript.Options{})
		if _, _, err := Load(ps, transcript.Options{}); err == nil || wantErr == nil || err.Error() != wantErr.Error() {
			t.Errorf("bad files at %v: error %v, want %v", bad, err, wantErr)
		}
	}
}
