package replay

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
)

// TestLoadIsSequential: Load, reading files on several goroutines, gives the
// questions and reports of reading them one after another, in order; with
// bad files among them, the error of the first bad one in the given order.
func TestLoadIsSequential(t *testing.T) {
	paths := sharedDebates(t)[:6]
	e, reps, err := Load(paths, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var qs []transcript.Question
	var want []transcript.Report
	for _, p := range paths {
		f, err := transcript.ReadFile(p, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, f.Questions...)
		want = append(want, f.Report)
	}
	if !reflect.DeepEqual(e.qs, qs) || !reflect.DeepEqual(reps, want) {
		t.Fatal("Load's questions or reports differ from reading the files in order")
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
