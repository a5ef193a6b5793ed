package checkpoints

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.mpdf")
	c := sample(t)
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(c, got); d != "" {
		t.Fatalf("Load(Save(c)) != c (-want +got):\n%s", d)
	}
	onDisk, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, mustMarshal(t, c)) {
		t.Fatal("Save wrote other bytes than Marshal")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, want 0644", st.Mode().Perm())
	}
	assertNoTemp(t, dir)
}

// Errors from Load name the file and keep their kind.
func TestLoadErrorsNamePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.mpdf")
	b := mustMarshal(t, sample(t))
	if err := os.WriteFile(path, b[:len(b)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if !errors.Is(err, ErrTruncated) || !bytes.Contains([]byte(err.Error()), []byte(path)) {
		t.Fatalf("%v: want ErrTruncated naming %s", err, path)
	}
	if _, err := Load(filepath.Join(dir, "missing.mpdf")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := Load(dir); err == nil {
		t.Fatal("loading a directory succeeded")
	}
}

// A writer failing half-way leaves the previous file intact and no
// temporary file behind.
func TestAtomicWriteFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt.mpdf")
	old := sample(t)
	if err := Save(path, old); err != nil {
		t.Fatal(err)
	}
	newer := mustMarshal(t, sample(t))
	boom := errors.New("disk full")
	err := writeFileAtomic(path, func(w io.Writer) error {
		if _, err := w.Write(newer[:len(newer)/2]); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatalf("the previous file was damaged: %v", err)
	}
	if d := cmp.Diff(old, got); d != "" {
		t.Fatalf("the previous file changed (-want +got):\n%s", d)
	}
	assertNoTemp(t, dir)

	// An invalid checkpoint never reaches the disk either.
	bad := sample(t)
	bad.Policy = nil
	if err := Save(path, bad); err == nil {
		t.Fatal("saved a checkpoint without policy")
	}
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name()[0] == '.' {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
