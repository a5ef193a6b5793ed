package study

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 20.6: a study directory is held by one study: a second OpenDir is
// refused naming the holder, a directory with files is refused, and
// overwrite removes a study's files (and their temporary files) only.
func TestOpenDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "study")
	d, err := OpenDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(dir, true); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("second OpenDir: %v, want ErrLocked naming the holder", err)
	}
	for _, name := range []string{ResultsName, ReportName, ParetoName, HTMLName, ".report.html.tmp-7", ".results.json.tmp-123", "notes.txt"} {
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)
	}
	d.Close()
	if _, err := OpenDir(dir, false); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("OpenDir of a directory with files: %v, want ErrNotEmpty", err)
	}
	d, err = OpenDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if strings.Join(left, ",") != "notes.txt,"+LockName {
		t.Errorf("after overwrite the directory holds %v, want notes.txt and the lock", left)
	}
}
