package data

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A Writer that commits after each record leaves, when its file is cut
// anywhere (a kill -9 mid-write), every record committed before the cut
// readable, and the torn end reported as one rejected record marked Torn,
// for plain, gzip and zstd outputs (concatenated members and frames).
func TestCommittedRecordsSurviveATornEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var eps []*Episode
	for i := range 5 {
		eps = append(eps, randomEpisode(rng, i))
	}
	for _, name := range []string{"c.jsonl", "c.jsonl.gz", "c.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			full, sizes := writeCommitted(t, filepath.Join(dir, name), eps)
			// Cut at a commit boundary: 3 whole records, nothing rejected.
			cut := filepath.Join(dir, "cut-"+name)
			os.WriteFile(cut, full[:sizes[2]], 0o644)
			recs, r := readAll(t, ReaderOptions{Skip: true}, cut)
			if len(recs) != 3 || r.Counts().Rejected != 0 {
				t.Fatalf("cut at a commit: %d records, counts %v; want 3, none rejected", len(recs), r.Counts())
			}
			// Cut in the middle of the 4th record's bytes: 3 records and
			// a torn end, reported.
			mid := sizes[2] + (sizes[3]-sizes[2])/2
			os.WriteFile(cut, full[:mid], 0o644)
			recs, r = readAll(t, ReaderOptions{Skip: true}, cut)
			c := r.Counts()
			if len(recs) != 3 || c.Rejected != 1 || c.Read != 4 {
				t.Fatalf("cut mid-record: %d records, counts %v; want 3 and 1 rejected", len(recs), c)
			}
			for i, rec := range recs {
				if rec.Episode.ID != eps[i].ID {
					t.Errorf("record %d is %s, want %s", i, rec.Episode.ID, eps[i].ID)
				}
			}
			e := r.Errors()[0]
			if !e.Torn || e.Line != 4 || !strings.Contains(e.Error(), "torn") || !strings.Contains(e.Error(), "cut-"+name+":4") {
				t.Errorf("torn end reported as %v (torn %v); want a Torn error at line 4", e, e.Torn)
			}
			checkCutAnywhere(t, name, cut, full, sizes, eps)
			// Without Skip the torn end is Next's error, not silence.
			rd, _ := Open([]string{cut}, ReaderOptions{})
			defer rd.Close()
			var re *RecordError
			for {
				if _, err := rd.Next(); err != nil {
					if !errors.As(err, &re) || !re.Torn {
						t.Errorf("without Skip: %v, want the torn record's error", err)
					}
					break
				}
			}
		})
	}
}

// Abort after a Commit cuts the file back to what was committed; before
// any Commit it leaves the target as it was.
func TestAbortKeepsWhatWasCommitted(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl.gz")
	os.WriteFile(path, []byte("previous"), 0o644)
	w, _ := Create(path)
	w.WriteEpisode(randomEpisode(rng, 0))
	w.Abort()
	if b, _ := os.ReadFile(path); string(b) != "previous" {
		t.Fatalf("abort before commit: target holds %q", b)
	}
	w, _ = Create(path)
	w.WriteEpisode(randomEpisode(rng, 1))
	w.Commit()
	for i := range 50 { // more than the buffers hold: bytes reach the file
		w.WriteEpisode(randomEpisode(rng, 2+i))
	}
	w.Abort()
	recs, r := readAll(t, ReaderOptions{}, path)
	if len(recs) != 1 || r.Counts().Rejected != 0 {
		t.Fatalf("abort after a commit: %d records, counts %v; want the 1 committed", len(recs), r.Counts())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// failWriter fails every write after n bytes with ENOSPC, as a full disk.
type failWriter struct {
	buf bytes.Buffer
	n   int
}

func (f *failWriter) Write(p []byte) (int, error) {
	if f.buf.Len()+len(p) > f.n {
		k := f.n - f.buf.Len()
		f.buf.Write(p[:k])
		return k, syscall.ENOSPC
	}
	return f.buf.Write(p)
}

// On a full disk the Writer reports the error and refuses later records.
func TestWriterDiskFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fw := &failWriter{n: 1000}
	w := NewWriter(fw)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		if err = w.WriteEpisode(randomEpisode(rng, i)); err == nil {
			err = w.Commit()
		}
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want ENOSPC", err)
	}
	if err := w.WriteEpisode(randomEpisode(rng, 0)); err == nil {
		t.Error("a write after the failure succeeded")
	}
}

// What the Writer writes, the Reader reads: a record over the limit is
// refused by both, with the same limit, and the default holds the records
// of long live runs (several MB).
func TestWriterAndReaderAgreeOnLineLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	ep := randomEpisode(rng, 0)
	ep.Rounds[0].Turns[0].Text = strings.Repeat("long reasoning ", 200_000) // 3 MB
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteEpisode(ep); err != nil {
		t.Fatalf("a 3 MB episode under the default limit: %v", err)
	}
	w.Close()
	r := NewReader(bytes.NewReader(buf.Bytes()), "big", ReaderOptions{})
	if _, err := r.Next(); err != nil {
		t.Fatalf("the reader refuses what the writer wrote: %v", err)
	}
	limit := buf.Len() - 10
	buf.Reset()
	w = NewWriter(&buf)
	w.SetMaxLineBytes(limit)
	err := w.WriteEpisode(ep)
	if err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("writer with limit %d: %v, want a refusal", limit, err)
	}
	if err := w.WriteEpisode(randomEpisode(rng, 1)); err != nil {
		t.Fatalf("the writer is unusable after a refused record: %v", err)
	}
	w.Close()
	if bytes.Contains(buf.Bytes(), []byte("long reasoning")) {
		t.Error("bytes of the refused record were written")
	}
}

// The Writer refuses invalid UTF-8 (which encoding/json would silently
// replace) as the Reader does.
func TestWriterRefusesInvalidUTF8(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	ep := randomEpisode(rng, 0)
	ep.Rounds[0].Turns[1].Answer = "560\xff"
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.WriteEpisode(ep); err == nil || !strings.Contains(err.Error(), "rounds[0].turns[1].answer: invalid UTF-8") {
		t.Errorf("WriteEpisode with an invalid answer: %v", err)
	}
	d := randomDecision(rng, 3, false)
	d.Group = "g\xfe"
	if err := w.WriteDecision(d); err == nil || !strings.Contains(err.Error(), "group: invalid UTF-8") {
		t.Errorf("WriteDecision with an invalid group: %v", err)
	}
}

// Continue keeps a file's records, drops its torn end, refuses records
// keep refuses (leaving the file as it was), and starts a missing file.
func TestContinue(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	dir := t.TempDir()
	path := filepath.Join(dir, "c.jsonl.zst")
	w, _ := Create(path)
	for i := range 3 {
		w.WriteEpisode(randomEpisode(rng, i))
		w.Commit()
	}
	w.Close()
	full, _ := os.ReadFile(path)
	os.WriteFile(path, append(full, full[:len(full)/6]...), 0o644) // a torn member after the 3 records
	torn, _ := os.ReadFile(path)

	boom := errors.New("not ours")
	if _, _, err := Continue(path, ReaderOptions{}, func(rec Record) error {
		if rec.Pos.Line == 2 {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) || !strings.Contains(err.Error(), path+":2") {
		t.Fatalf("refused record: %v", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, torn) {
		t.Fatal("a refused Continue changed the file")
	}

	w, c, err := Continue(path, ReaderOptions{}, func(Record) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !c.Existed || c.Records != 3 || c.Torn == nil {
		t.Errorf("Continued %+v, want 3 records kept and a torn end", c)
	}
	w.WriteEpisode(randomEpisode(rng, 3))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, r := readAll(t, ReaderOptions{}, path)
	if len(recs) != 4 || r.Counts().Rejected != 0 {
		t.Errorf("after Continue: %d records, %v", len(recs), r.Counts())
	}

	w, c, err = Continue(filepath.Join(dir, "new.jsonl"), ReaderOptions{}, func(Record) error { return nil })
	if err != nil || c.Existed || c.Records != 0 {
		t.Fatalf("Continue of a missing file: %+v, %v", c, err)
	}
	w.Close()
}

// writeCommitted writes eps to path, committing after each, and returns
// the file's bytes and its size after each commit.
func writeCommitted(t *testing.T, path string, eps []*Episode) (full []byte, sizes []int64) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range eps {
		if err := w.WriteEpisode(ep); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path) // visible at the target from the first Commit
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, fi.Size())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	full, _ = os.ReadFile(path)
	if int64(len(full)) != sizes[len(sizes)-1] {
		t.Fatalf("Close added %d bytes after the last Commit", int64(len(full))-sizes[len(sizes)-1])
	}
	return full, sizes
}

// checkCutAnywhere cuts the file full (named name; sizes after each
// commit of eps) at bytes throughout into cut: the records committed
// before the cut are read, and what follows is a torn end, never a fatal
// read error.
func checkCutAnywhere(t *testing.T, name, cut string, full []byte, sizes []int64, eps []*Episode) {
	t.Helper()
	for n := 1; n < len(full); n += max(1, len(full)/199) {
		os.WriteFile(cut, full[:n], 0o644)
		whole := 0
		for whole < len(sizes) && sizes[whole] <= int64(n) {
			whole++
		}
		rd, _ := Open([]string{cut}, ReaderOptions{Skip: true})
		got := 0
		for {
			rec, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("cut at byte %d of %d: %v", n, len(full), err)
			}
			if rec.Episode.ID != eps[got].ID {
				t.Fatalf("cut at byte %d: record %d is %s, want %s", n, got, rec.Episode.ID, eps[got].ID)
			}
			got++
		}
		c := rd.Counts()
		rd.Close()
		if !strings.Contains(name, ".") || strings.HasSuffix(name, ".jsonl") {
			// Plain: a last line whole but for its newline reads.
			if whole < len(sizes) && int64(n) == sizes[whole]-1 {
				whole++
			}
		}
		wantGot := whole
		if strings.HasSuffix(name, ".gz") && got == whole+1 && whole < len(sizes) && int64(n) >= sizes[whole]-32 {
			// Cut at the end of a member (its last deflate bytes
			// or its 8-byte trailer): the record's bytes are all
			// there and read; the end is still reported torn.
			wantGot++
		}
		torn := int64(1)
		if whole > 0 && (int64(n) == sizes[whole-1] || int64(n) == sizes[whole-1]-1) {
			torn = 0
		}
		if got != wantGot || c.Rejected != torn {
			t.Fatalf("cut at byte %d of %d: %d records, %d rejected; want %d and %d", n, len(full), got, c.Rejected, wantGot, torn)
		}
	}
}
