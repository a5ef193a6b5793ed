package transcript

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Import writes every question of the files as an episode; a failure or
// two files with one base name leave out absent.
func TestImport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("testdata", "mmlu_3_2.json")
	out := filepath.Join(dir, "episodes.jsonl.zst")
	im, err := Import(out, []string{src}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Reports) != 1 || im.Episodes != int64(im.Reports[0].Questions) || im.Episodes == 0 {
		t.Errorf("imported %+v", im)
	}
	if s := im.Reports[0].Summary(); s.File != filepath.Base(src) || s.Task != "mmlu" || s.Skipped == nil || s.Warnings == nil {
		t.Errorf("summary %+v", s)
	}
	var text strings.Builder
	if err := im.WriteText(&text); err != nil || !strings.HasSuffix(text.String(), "wrote 2 episodes from 1 files to "+out+" (0 without a readable gold answer: no reward)\n") {
		t.Errorf("text %q, %v", text.String(), err)
	}
	if b, err := json.Marshal(im); err != nil || !strings.HasPrefix(string(b), `{"out":"`+out+`","episodes":2,"episodes_without_gold":0,"files":[{"file":"mmlu_3_2.json"`) {
		t.Errorf("JSON %s, %v", b, err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("out: %v", err)
	}

	other := filepath.Join(dir, "sub", "mmlu_3_2.json")
	os.MkdirAll(filepath.Dir(other), 0o755)
	b, _ := os.ReadFile(src)
	os.WriteFile(other, b, 0o644)
	out2 := filepath.Join(dir, "two.jsonl")
	if _, err := Import(out2, []string{src, other}, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "share the base name") {
		t.Errorf("two files with one base name: %v", err)
	}
	bad := filepath.Join(dir, "gsm_bad.json")
	os.WriteFile(bad, []byte(`["not", "an object"]`), 0o644)
	if _, err := Import(out2, []string{src, bad}, ImportOptions{}); err == nil || !strings.Contains(err.Error(), "gsm_bad.json") {
		t.Errorf("a non-transcript: %v, want an error naming it", err)
	}
	if _, err := os.Lstat(out2); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed import left its output: %v", err)
	}
}
