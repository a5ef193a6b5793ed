package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
	"github.com/mpdf/mpdf/metapolicy"
)

// FuzzReader feeds arbitrary bytes to the reader in skip mode. It must
// never panic; the counts must add up; every rejection must be a
// positioned file:line: field: reason; and every accepted record must pass
// Validate again and re-encode to bytes that read back and re-encode to
// the same bytes.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		goodDecision, goodEpisode, goodDecision + "\n" + goodEpisode + "\n",
		"", "\n\n", "{}", "null", "[]", `{"kind":"decision"}`, "\xef\xbb\xbf" + goodDecision,
		decisionWith(`-2]`, `NaN]`), decisionWith(`"reward":1`, `"reward":1e999`), decisionWith(`1,-2]`, `null,-2]`),
		decisionWith(`"group"`, `"GROUP"`), decisionWith(`"g"`, `"\ud800"`), decisionWith(`"kind"`, `"kind":"episode","kind"`),
		episodeWith(`"concede"`, `"yield"`), episodeWith(`0.8`, `1.5`), episodeWith(`"tokens":100`, `"tokens":100,"exchanges":[]`),
		episodeWith(`"tokens":100`, `"tokens":100,"exchanges":[{"role":"solve","prompt":"p","response":"r","prompt_tokens":1,"completion_tokens":2}]`),
		strings.Repeat("x", 5000) + "\n" + goodDecision,
	} {
		f.Add([]byte(s))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(goodEpisode + "\n"))
	zw.Close()
	f.Add(gz.Bytes())
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	f.Add(enc.EncodeAll([]byte(goodDecision+"\n"), nil))
	enc.Close()

	f.Add([]byte(` { "reward" : -0 , "features":[ 1E+2,-0.0e-1 ,0],"action":"persist","group":"ü","kind":"decision" } `))
	f.Add([]byte(`{"kind":"decision","group":"g","features":[01],"action":"refine","reward":1}`))
	f.Add([]byte(`{"kind":"decision","group":"g","features":[1.],"action":"refine","reward":1,"logprob":null}`))

	f.Fuzz(func(t *testing.T, in []byte) {
		// The fast path for flat decisions agrees with the general one
		// whenever it takes a line.
		for _, line := range bytes.Split(in, []byte("\n")) {
			for _, width := range []int{0, 3} {
				fast, ferr, ok := fastDecision(line, width)
				if !ok {
					continue
				}
				slow, serr := decodeGeneral(line, width)
				if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
					t.Fatalf("fast path disagrees on %q (width %d): fast %v, slow %v", line, width, ferr, serr)
				}
				if d := cmp.Diff(slow, fast); ferr == nil && d != "" {
					t.Fatalf("fast path disagrees on %q (width %d) (-slow +fast):\n%s", line, width, d)
				}
			}
		}

		var rejected []*RecordError
		r := NewReader(bytes.NewReader(in), "fuzz", ReaderOptions{Skip: true, MaxLineBytes: 4096, ZstdWindow: 1 << 20,
			OnReject: func(e *RecordError) { rejected = append(rejected, e) }})
		defer r.Close()
		var accepted []Record
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var re *RecordError
				if errors.As(err, &re) {
					t.Fatalf("skip mode returned a record error: %v", err)
				}
				break // a broken compressed stream ends the read
			}
			accepted = append(accepted, rec)
		}
		c := r.Counts()
		if c.Read != c.Accepted+c.Rejected || c.Accepted != int64(len(accepted)) || c.Rejected != int64(len(rejected)) ||
			c.Episodes+c.Decisions != c.Accepted {
			t.Fatalf("counts %+v for %d accepted, %d rejected", c, len(accepted), len(rejected))
		}
		for _, e := range rejected {
			if e.File != "fuzz" || e.Line < 1 || e.Field == "" || e.Reason == "" ||
				!strings.HasPrefix(e.Error(), "fuzz:") {
				t.Fatalf("malformed rejection %#v", e)
			}
		}
		for _, rec := range accepted {
			var err error
			if rec.Episode != nil {
				err = rec.Episode.Validate()
			} else {
				err = rec.Decision.Validate(r.FeatureWidth())
			}
			if err != nil {
				t.Fatalf("accepted a record that fails Validate: %v", err)
			}
			b1 := encodeRecord(t, rec)
			back, err := NewReader(bytes.NewReader(b1), "re", ReaderOptions{}).Next()
			if err != nil {
				t.Fatalf("re-encoded record rejected: %v\n%s", err, b1)
			}
			if b2 := encodeRecord(t, back); !bytes.Equal(b1, b2) {
				t.Fatalf("encoding is not stable:\n%s\n%s", b1, b2)
			}
		}
	})
}

func encodeRecord(t *testing.T, rec Record) []byte {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write(rec); err != nil {
		t.Fatalf("Writer refused an accepted record: %v", err)
	}
	w.Close()
	return b.Bytes()
}

// FuzzReadShard feeds arbitrary bytes as a shard of a pack whose manifest
// says 8 rows of width 3: never a panic, and a shard that is accepted
// holds only valid values.
func FuzzReadShard(f *testing.F) {
	dir := f.TempDir()
	enc, _ := newShardEncoder()
	c := &Columns{Width: 3, rows: 8, GroupNames: []string{"a", "b"}}
	for j := range 8 {
		c.Features = append(c.Features, float32(j), -float32(j)/3, 0.5)
		c.Actions = append(c.Actions, uint8(j%3))
		c.Rewards = append(c.Rewards, float64(j)-4)
		c.LogProbs = append(c.LogProbs, []float64{math.NaN(), -0.5}[j%2])
		c.Groups = append(c.Groups, uint32(j%2))
	}
	good, _ := encodeShard(nil, enc, c, 0, nil)
	blocks, _ := encodeShardBlocks(nil, enc, c, 0, nil, 3)
	enc.Close()
	f.Add(good)
	f.Add(blocks)
	f.Add(good[:headerSize])
	f.Add([]byte(shardMagic))
	m := Manifest{Format: PackFormat, Version: PackVersion, FeatureWidth: 3, Rows: 8, RowsPerShard: 8,
		Shards: []ShardInfo{{File: shardName(0), Rows: 8}}, Groups: c.GroupNames}
	mb, _ := jsonMarshal(&m)
	if err := os.WriteFile(filepath.Join(dir, ManifestName), mb, 0o644); err != nil {
		f.Fatal(err)
	}
	p, err := OpenPack(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, shardName(0))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		// The manifest's size and SHA-256 would stop almost every input:
		// make them agree, to fuzz the checks behind them.
		forgeShard(p, 0, b)
		var dst Columns
		if err := p.ReadShard(0, &dst, SelectAll); err != nil {
			return
		}
		if dst.Len() != 8 || len(dst.Features) != 24 {
			t.Fatalf("accepted shard with %d rows, %d features", dst.Len(), len(dst.Features))
		}
		for i := range dst.Len() {
			d := dst.Decision(i)
			if err := d.Validate(3); err != nil {
				t.Fatalf("accepted row %d fails Validate: %v", i, err)
			}
			if d.Action >= metapolicy.NumActions {
				t.Fatalf("row %d: action %d", i, d.Action)
			}
		}
	})
}
