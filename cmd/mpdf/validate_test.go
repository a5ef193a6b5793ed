package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/cliflag"
)

// data validate of several files prints the counts of every file, even
// after one that cannot be read; repeated episode ids are warned about
// and counted; --max-errors -1 is refused rather than miscounted.
func TestDataValidateEveryFile(t *testing.T) {
	dir := t.TempDir()
	lines := validLines(t, 3)
	a := filepath.Join(dir, "a.jsonl")
	os.WriteFile(a, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	bad := filepath.Join(dir, "b.jsonl.gz")
	os.WriteFile(bad, []byte("not gzip at all\n"), 0o644)
	missing := filepath.Join(dir, "c.jsonl")
	d := filepath.Join(dir, "d.jsonl")
	os.WriteFile(d, []byte(lines[0]+"\n"+strings.Replace(lines[1], `"agents":3`, `"agents":1`, 1)+"\n"), 0o644)

	out, err := runCmd(t, "data", "validate", a, bad, missing, d)
	var ee *cliflag.ExitError
	if !errors.As(err, &ee) || ee.Code != 1 {
		t.Errorf("error %v, want exit status 1 (unreadable files)", err)
	}
	for _, want := range []string{
		a + ": read 3 records, accepted 3, rejected 0\n",
		bad + ": unreadable: data: " + bad + ": not a gz stream",
		missing + ": unreadable: data: open: \"" + missing + "\" matches no file",
		d + ": read 2 records, accepted 1, rejected 1\n",
		d + ":2: agents: 1, want at least 2\n",
		`warning: ` + d + `:1: episode id "`,
		"4 files: read 5 records, accepted 4 (4 episodes, 0 decisions), rejected 1; 1 repeated episode ids; 2 files unreadable\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, err = runCmd(t, "data", "validate", "--max-errors", "-1", d)
	if err == nil || !strings.Contains(err.Error(), "--max-errors -1") {
		t.Errorf("--max-errors -1: %v\n%s", err, out)
	}
	out, err = runCmd(t, "data", "validate", "--max-errors", "0", d)
	if !errors.As(err, &ee) || ee.Code != 2 || strings.Contains(out, "agents: 1") || !strings.Contains(out, "... and 1 more rejected records") {
		t.Errorf("--max-errors 0: %v\n%s", err, out)
	}
}
