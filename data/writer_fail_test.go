package data

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullDisk fails every write as a full disk does.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A write that fails when Close flushes is reported as itself, not as
// "write after Close" (issue 20, item 10: import on a full disk).
func TestWriterCloseReportsWriteError(t *testing.T) {
	w := NewWriter(fullDisk{})
	if err := w.WriteEpisode(episodeOf("1", [][]string{{"1", "2"}, {"1", "1"}}, nil)); err != nil {
		t.Fatal(err) // buffered: nothing reaches the disk yet
	}
	err := w.Close()
	if !errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "after Close") {
		t.Fatalf("Close = %v, want the ENOSPC of the flush", err)
	}
	if err2 := w.Close(); err2 != nil && strings.Contains(err2.Error(), "after Close") && !errors.Is(err2, syscall.ENOSPC) {
		t.Fatalf("second Close = %v", err2)
	}
}

// On a real full device: /dev/full fails every write with ENOSPC.
func TestWriterCloseDevFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer f.Close()
	w := NewWriter(f)
	if err := w.WriteEpisode(episodeOf("1", [][]string{{"1", "2"}, {"1", "1"}}, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close = %v, want ENOSPC", err)
	}
}

// Unknown compression extensions are refused, naming the accepted ones,
// and nothing is created (issue 20, item 12).
func TestCreateRefusesUnknownCompression(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"x.jsonl.bz2", "x.jsonl.XZ", "x.jsonl.lz4", "x.jsonl.br", "x.zip", "x.jsonl.zstd"} {
		path := filepath.Join(dir, name)
		w, err := Create(path)
		if err == nil {
			w.Abort()
			t.Errorf("%s: created, want refused", name)
			continue
		}
		for _, want := range []string{name, ".gz", ".zst", "plain"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want it to name %q", name, err, want)
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("files left behind: %v", ents)
	}
	for _, name := range []string{"x.jsonl", "x.jsonl.gz", "x.jsonl.ZST", "x.json", "x"} {
		w, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w.Abort()
	}
}
