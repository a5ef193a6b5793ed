package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestNotAnInput: an output that is an input by name, by another spelling,
// by hard link or by symbolic link is refused; another file is not.
func TestNotAnInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "sym.jsonl")
	if err := os.Symlink(in, sym); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, filepath.Join(dir, ".", "in.jsonl"), hard, sym} {
		if err := NotAnInput(out, "other", in); !errors.Is(err, ErrOutputIsInput) {
			t.Errorf("NotAnInput(%s, %s) = %v, want ErrOutputIsInput", out, in, err)
		}
	}
	for _, out := range []string{filepath.Join(dir, "new.jsonl"), filepath.Join(dir, "hard2.jsonl")} {
		if err := NotAnInput(out, in); err != nil {
			t.Errorf("NotAnInput(%s, %s) = %v, want nil", out, in, err)
		}
	}
	// A missing input named as the output: the same path.
	missing := filepath.Join(dir, "missing.jsonl")
	if err := NotAnInput(missing, missing); !errors.Is(err, ErrOutputIsInput) {
		t.Errorf("NotAnInput(missing, missing) = %v, want ErrOutputIsInput", err)
	}
}
