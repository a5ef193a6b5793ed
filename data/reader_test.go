package data

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
)

func gzipBytes(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSkipCountsComplete reads good, bad and blank lines over two files
// (one gzip) in skip mode: nothing vanishes from the counts, and every
// rejection reaches OnReject with its file and line.
func TestSkipCountsComplete(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", goodDecision+"\n"+"oops\n\n"+goodEpisode+"\r\n"+decisionWith(`"refine"`, `"x"`)+"\n"+goodDecision)
	b := filepath.Join(dir, "b.jsonl.gz")
	if err := os.WriteFile(b, gzipBytes(t, "\n"+goodEpisode+"\n{}\n"+strings.Repeat(" ", 5000)+"\n"+goodDecision+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	r, err := Open([]string{filepath.Join(dir, "*.jsonl*")}, ReaderOptions{Skip: true, MaxLineBytes: 1024, Hash: true,
		OnReject: func(e *RecordError) { got = append(got, e.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	var lines []Pos
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, rec.Pos)
	}
	want := []string{
		a + ":2: json: invalid character 'o' looking for beginning of value (byte 1)",
		a + `:5: action: unknown action "x" (want persist, refine or concede)`,
		b + ":3: kind: missing",
		b + ":4: line: 5000 bytes, over the limit of 1024 (MaxLineBytes)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rejections (-want +got):\n%s", d)
	}
	wantPos := []Pos{{a, 1}, {a, 4}, {a, 6}, {b, 2}, {b, 5}}
	if d := cmp.Diff(wantPos, lines); d != "" {
		t.Errorf("accepted at (-want +got):\n%s", d)
	}
	c := r.Counts()
	if c.Read != 9 || c.Accepted != 5 || c.Rejected != 4 || c.Episodes != 2 || c.Decisions != 3 || c.Files != 2 {
		t.Errorf("counts %+v", c)
	}
	if len(r.Errors()) != 0 {
		t.Errorf("Errors kept %d with OnReject set", len(r.Errors()))
	}
	files := r.Files()
	if len(files) != 2 {
		t.Fatalf("%d file stats, want 2", len(files))
	}
	for _, f := range files {
		b, _ := os.ReadFile(f.Path)
		sum := sha256.Sum256(b)
		if f.Bytes != int64(len(b)) || f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: %d bytes sha256 %s, want %d %x", f.Path, f.Bytes, f.SHA256, len(b), sum)
		}
	}
	if f := files[0]; f.Read != 5 || f.Accepted != 3 || f.Rejected != 2 {
		t.Errorf("file a counts %+v", f)
	}
	// goodEpisode is in both files: its id repeats, counted and listed.
	if d := r.Duplicates(); c.DuplicateIDs != 1 || len(d) != 1 || d[0].ID != "e1" || d[0].Pos != (Pos{b, 2}) {
		t.Errorf("duplicate ids: %d, %v; want e1 at %s:2", c.DuplicateIDs, d, b)
	}
	if c.String() != "read 9 records from 2 files: 5 accepted (2 episodes, 3 decisions), 4 rejected; 1 episodes repeat an earlier id" {
		t.Errorf("Counts.String() = %q", c.String())
	}
}

func TestKeepErrors(t *testing.T) {
	in := strings.Repeat("bad\n", 7) + goodDecision + "\n"
	for _, tc := range []struct{ keep, want int }{{0, 7}, {3, 3}, {-1, 0}} {
		r := NewReader(strings.NewReader(in), "s", ReaderOptions{Skip: true, KeepErrors: tc.keep})
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 1 || len(r.Errors()) != tc.want || r.Counts().Rejected != 7 {
			t.Errorf("keep %d: %d accepted, %d kept, %d rejected; want 1, %d, 7", tc.keep, n, len(r.Errors()), r.Counts().Rejected, tc.want)
		}
	}
}

// TestLongLineNotBuffered feeds a 4 MiB line: it is rejected, the next
// line is read, and the line buffer never grew past the limit.
func TestLongLineNotBuffered(t *testing.T) {
	in := goodDecision + "\n" + `{"kind":"` + strings.Repeat("a", 4<<20) + "\"}\n" + goodDecision + "\n"
	r := NewReader(strings.NewReader(in), "big", ReaderOptions{Skip: true, MaxLineBytes: 1000})
	var got []int
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec.Pos.Line)
	}
	if len(got) != 2 || got[1] != 3 || r.Counts().Rejected != 1 {
		t.Errorf("accepted lines %v, rejected %d; want [1 3] and 1", got, r.Counts().Rejected)
	}
	if c := cap(r.line); c > 1000+64<<10 {
		t.Errorf("line buffer grew to %d bytes for a limit of 1000", c)
	}
	if e := r.Errors(); len(e) != 1 || e[0].Field != "line" {
		t.Errorf("errors %v", e)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", goodDecision+"\n")
	cases := map[string][]string{
		"matches no file": {a, filepath.Join(dir, "*.zst")},
		"is a directory":  {dir},
		"no input files":  nil,
		"syntax error":    {filepath.Join(dir, "[")},
	}
	for want, patterns := range cases {
		_, err := Open(patterns, ReaderOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%q): %v, want an error containing %q", patterns, err, want)
		}
	}
	// A pattern matching nothing is named in the error.
	_, err := Open([]string{filepath.Join(dir, "nope-*.jsonl")}, ReaderOptions{})
	if err == nil || !strings.Contains(err.Error(), "nope-*.jsonl") {
		t.Errorf("error %v does not name the pattern", err)
	}
	// A .gz name that does not hold gzip.
	bad := writeFile(t, dir, "bad.jsonl.gz", goodDecision+"\n")
	r, err := Open([]string{bad}, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "not a gz stream") {
		t.Errorf("plain text named .gz: %v", err)
	}
	// A truncated gzip stream is a torn end: a rejected record after the
	// whole ones, then the end of the input.
	gz := gzipBytes(t, strings.Repeat(goodDecision+"\n", 100))
	r = NewReader(bytes.NewReader(gz[:len(gz)-10]), "cut.gz", ReaderOptions{})
	var last error
	for range 200 {
		if _, last = r.Next(); last != nil {
			break
		}
	}
	var re *RecordError
	if !errors.As(last, &re) || !re.Torn || !strings.Contains(last.Error(), "cut.gz:101: line: torn end of file") {
		t.Fatalf("truncated gzip: %v, want a torn end at line 101", last)
	}
	if _, again := r.Next(); again != io.EOF {
		t.Errorf("after the torn end: %v, want io.EOF", again)
	}
	// A corrupt stream (not a cut one) is an error returned again by
	// later calls.
	bad2 := append([]byte(nil), gz...)
	for i := 20; i < 40; i++ {
		bad2[i] ^= 0x55
	}
	r = NewReader(bytes.NewReader(bad2), "bad.gz", ReaderOptions{})
	for range 200 {
		if _, last = r.Next(); last != nil {
			break
		}
	}
	if errors.As(last, &re) || last == io.EOF {
		t.Fatalf("corrupt gzip: %v, want a read error", last)
	}
	if _, again := r.Next(); again != last {
		t.Errorf("error not sticky: %v then %v", last, again)
	}
}

func TestOpenGlobOrderAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var want []*Decision
	for _, name := range []string{"c.jsonl", "a.jsonl", "b.jsonl"} {
		d := randomDecision(rng, 3, false)
		w, err := Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteDecision(d); err != nil {
			t.Fatal(err)
		}
		w.Close()
		want = append(want, d)
	}
	want = []*Decision{want[1], want[2], want[0]} // a, b, c
	recs, r := readAll(t, ReaderOptions{}, filepath.Join(dir, "*.jsonl"), filepath.Join(dir, "a.jsonl"))
	if len(recs) != 3 || r.Counts().Files != 3 {
		t.Fatalf("%d records from %d files, want 3 from 3 (a.jsonl named twice is read once)", len(recs), r.Counts().Files)
	}
	for i, rec := range recs {
		if d := cmp.Diff(want[i], rec.Decision); d != "" {
			t.Errorf("record %d from %s is not the file's decision (-want +got):\n%s", i, rec.Pos, d)
		}
	}
}

func TestFeatureWidthOption(t *testing.T) {
	in := goodDecision + "\n"
	r := NewReader(strings.NewReader(in), "s", ReaderOptions{FeatureWidth: 4})
	_, err := r.Next()
	var re *RecordError
	if !errors.As(err, &re) || re.Field != "features" {
		t.Errorf("width 3 under FeatureWidth 4: %v", err)
	}
	r = NewReader(strings.NewReader(in), "s", ReaderOptions{})
	if _, err := r.Next(); err != nil || r.FeatureWidth() != 3 {
		t.Errorf("first decision sets the width: %v, width %d", err, r.FeatureWidth())
	}
}

func TestBOMAndNoTrailingNewline(t *testing.T) {
	r := NewReader(strings.NewReader("\xef\xbb\xbf"+goodDecision+"\r\n"+goodEpisode), "s", ReaderOptions{})
	for i := range 2 {
		if _, err := r.Next(); err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last line: %v, want EOF", err)
	}
}

// TestZstdWindowBound: a stream asking for a window over ZstdWindow is
// refused instead of being given the memory.
func TestZstdWindowBound(t *testing.T) {
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b, zstd.WithWindowSize(8<<20), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write([]byte(strings.Repeat(goodDecision+"\n", 30000)))
	zw.Close()
	r := NewReader(bytes.NewReader(b.Bytes()), "big.zst", ReaderOptions{ZstdWindow: 1 << 20})
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("8 MiB window under a 1 MiB bound: %v, want a window error", err)
	}
	r = NewReader(bytes.NewReader(b.Bytes()), "big.zst", ReaderOptions{})
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 30000 {
		t.Errorf("read %d records, want 30000", n)
	}
}
