package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
	"github.com/mpdf/mpdf/metapolicy"
)

// writeDataset writes n random decisions of width w (float32-exact
// features) to dir/name and returns them.
func writeDataset(t testing.TB, dir, name string, n, w int, seed uint64) []*Decision {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	wr, err := Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var ds []*Decision
	for range n {
		d := randomDecision(rng, w, true)
		if err := wr.WriteDecision(d); err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	return ds
}

func packDir(t testing.TB, dir string, opts PackOptions, patterns ...string) *Manifest {
	t.Helper()
	r, err := Open(patterns, ReaderOptions{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, err := WritePack(dir, r, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func unpack(t testing.TB, dir string) []Decision {
	t.Helper()
	p, err := OpenPack(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var out []Decision
	var cols Columns
	sc := p.Scan(SelectAll)
	for {
		err := sc.ReadColumns(&cols)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range cols.Len() {
			out = append(out, cols.Decision(i))
		}
	}
}

// TestPackRoundTrip: decision records with float32-exact features come
// back identical, NaN (absent) log-probabilities included, across shards.
func TestPackRoundTrip(t *testing.T) {
	src := t.TempDir()
	want := writeDataset(t, src, "a.jsonl.zst", 100, 6, 3)
	want = append(want, writeDataset(t, src, "b.jsonl", 23, 6, 4)...)
	dir := filepath.Join(t.TempDir(), "pack")
	m := packDir(t, dir, PackOptions{RowsPerShard: 17}, filepath.Join(src, "*"))
	if m.Rows != 123 || len(m.Shards) != 8 || m.FeatureWidth != 6 || m.FeatureVersion != "" {
		t.Errorf("manifest: %d rows in %d shards, width %d, version %q; want 123, 8, 6, \"\"", m.Rows, len(m.Shards), m.FeatureWidth, m.FeatureVersion)
	}
	got := unpack(t, dir)
	if len(got) != len(want) {
		t.Fatalf("unpacked %d decisions, want %d", len(got), len(want))
	}
	absent := 0
	for i := range want {
		if d := cmp.Diff(want[i], &got[i]); d != "" {
			t.Fatalf("decision %d (-want +got):\n%s", i, d)
		}
		if want[i].LogProb == nil {
			absent++
		}
	}
	if absent == 0 {
		t.Error("no decision without logprob: the NaN path is untested")
	}
}

// TestPackEpisodes packs episodes (with one lacking gold) and checks the
// rows against Decisions with features rounded to float32.
func TestPackEpisodes(t *testing.T) {
	src := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	w, _ := Create(filepath.Join(src, "e.jsonl.gz"))
	var want []Decision
	noGold := 0
	for i := range 40 {
		ep := randomEpisode(rng, i)
		if err := w.WriteEpisode(ep); err != nil {
			t.Fatal(err)
		}
		ds, err := Decisions(ep, RewardConfig{WLocal: 1, WGlobal: 1, Lambda: 0.5, GroupBy: GroupByEpisode})
		if errors.Is(err, ErrNoGold) {
			noGold++
			continue
		}
		for _, d := range ds {
			for k, v := range d.Features {
				d.Features[k] = float64(float32(v))
			}
			want = append(want, d)
		}
	}
	w.Close()
	dir := filepath.Join(t.TempDir(), "p")
	m := packDir(t, dir, PackOptions{RowsPerShard: 50, Reward: RewardConfig{WLocal: 1, WGlobal: 1, Lambda: 0.5, GroupBy: GroupByEpisode}},
		filepath.Join(src, "e.jsonl.gz"))
	if m.Stream.NoGold != int64(noGold) || noGold == 0 || m.FeatureVersion != metapolicy.FeatureVersion || m.FeatureWidth != metapolicy.FeatureWidth {
		t.Errorf("manifest: no gold %d (want %d > 0), feature version %q width %d", m.Stream.NoGold, noGold, m.FeatureVersion, m.FeatureWidth)
	}
	got := unpack(t, dir)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("unpacked %d decisions differ from the %d of Decisions (-want +got):\n%s", len(got), len(want), d)
	}
}

func TestPackDeterministicAndProvenance(t *testing.T) {
	src := t.TempDir()
	writeDataset(t, src, "a.jsonl", 300, 4, 9)
	d1, d2 := filepath.Join(t.TempDir(), "1"), filepath.Join(t.TempDir(), "2")
	m := packDir(t, d1, PackOptions{RowsPerShard: 128, Tool: "test"}, filepath.Join(src, "a.jsonl"))
	packDir(t, d2, PackOptions{RowsPerShard: 128, Tool: "test"}, filepath.Join(src, "a.jsonl"))
	ents, _ := os.ReadDir(d1)
	if len(ents) != 4 { // 3 shards + manifest
		t.Errorf("%d files in the pack, want 4", len(ents))
	}
	for _, e := range ents {
		b1, _ := os.ReadFile(filepath.Join(d1, e.Name()))
		b2, err := os.ReadFile(filepath.Join(d2, e.Name()))
		if err != nil || !bytes.Equal(b1, b2) {
			t.Errorf("%s differs between two packs of the same data", e.Name())
		}
	}
	if len(m.Sources) != 1 || m.Sources[0].SHA256 == "" || m.Sources[0].Accepted != 300 || m.Tool != "test" {
		t.Errorf("provenance %+v, tool %q", m.Sources, m.Tool)
	}
	p, err := OpenPack(d1)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Verify(); err != nil {
		t.Error(err)
	}
	if d := cmp.Diff(m, p.Manifest()); d != "" {
		t.Errorf("OpenPack's manifest differs from WritePack's (-WritePack +OpenPack):\n%s", d)
	}
	// Only rewards and groups: features and actions stay empty.
	var all, part Columns
	if err := p.ReadShard(1, &all, SelectAll); err != nil {
		t.Fatal(err)
	}
	if err := p.ReadShard(1, &part, SelectRewards|SelectGroups); err != nil {
		t.Fatal(err)
	}
	if part.Len() != all.Len() || len(part.Features) != 0 || len(part.Actions) != 0 {
		t.Errorf("a partial read of %d rows has %d features and %d actions, want %d rows and none", part.Len(), len(part.Features), len(part.Actions), all.Len())
	}
	if d := cmp.Diff([]any{all.Rewards, all.Groups}, []any{part.Rewards, part.Groups}); d != "" {
		t.Errorf("a partial read's rewards and groups differ from the full one's (-full +partial):\n%s", d)
	}
}

func TestPackErrors(t *testing.T) {
	src := t.TempDir()
	writeDataset(t, src, "a.jsonl", 5, 2, 1)
	noGold := writeFile(t, src, "n.jsonl", episodeWith(`"gold":"4",`, ``)+"\n")
	r, _ := Open([]string{filepath.Join(src, "a.jsonl")}, ReaderOptions{})
	if _, err := WritePack(t.TempDir(), r, PackOptions{}); err == nil || !strings.Contains(err.Error(), "Hash") {
		t.Errorf("pack without hashes: %v", err)
	}
	full := t.TempDir()
	writeFile(t, full, "x", "")
	r, _ = Open([]string{filepath.Join(src, "a.jsonl")}, ReaderOptions{Hash: true})
	if _, err := WritePack(full, r, PackOptions{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("pack into a non-empty dir: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "p")
	r, _ = Open([]string{noGold}, ReaderOptions{Hash: true})
	if _, err := WritePack(empty, r, PackOptions{}); err == nil || !strings.Contains(err.Error(), "1 episodes without gold") {
		t.Errorf("pack of no decisions: %v", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("failed pack left %d files", len(ents))
	}
	bad := writeFile(t, src, "bad.jsonl", goodDecision+"\nnope\n")
	r, _ = Open([]string{bad}, ReaderOptions{Hash: true})
	var re *RecordError
	if _, err := WritePack(filepath.Join(t.TempDir(), "q"), r, PackOptions{}); !errors.As(err, &re) {
		t.Errorf("pack with a rejected record and no Skip: %v, want the *RecordError", err)
	}
}

// TestShardCorruption damages a shard in the ways a disk or a hostile
// file can, and wants a clear ErrCorruptShard each time, never a panic.
func TestShardCorruption(t *testing.T) {
	src := t.TempDir()
	writeDataset(t, src, "a.jsonl", 200, 5, 2)
	dir := filepath.Join(t.TempDir(), "p")
	packDir(t, dir, PackOptions{RowsPerShard: 200}, filepath.Join(src, "a.jsonl"))
	shard := filepath.Join(dir, shardName(0))
	orig, _ := os.ReadFile(shard)
	p, err := OpenPack(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), orig...)) }
	// A shard verified once and then changed in place (same size, a later
	// modification time) is hashed again.
	var first Columns
	if err := p.ReadShard(0, &first, SelectAll); err != nil {
		t.Fatal(err)
	}
	flipped := edit(func(b []byte) []byte { b[len(b)-3] ^= 0x40; return b })
	os.WriteFile(shard, flipped, 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(shard, later, later)
	if err := p.ReadShard(0, &first, SelectAll); !errors.Is(err, ErrCorruptShard) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a shard changed after its first read: %v, want its sha256 refused", err)
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"truncated header", orig[:100], "truncated"},
		{"truncated payload", orig[:len(orig)-7], "truncated or padded"},
		{"padded", append(append([]byte(nil), orig...), 0), "truncated or padded"},
		{"magic", edit(func(b []byte) []byte { b[0] = 'X'; return b }), "bad magic"},
		{"header bit flip", edit(func(b []byte) []byte { b[20] ^= 1; return b }), "header checksum"},
		{"payload bit flip", edit(func(b []byte) []byte { b[len(b)-3] ^= 0x40; return b }), "corrupt shard"},
		{"rows lie", edit(func(b []byte) []byte { b[16] = 0xff; b[17] = 0xff; b[22] = 0x7f; return fixCRC(b) }), "rows, manifest says 200"},
		{"raw size lie", edit(func(b []byte) []byte { b[32+16+2] = 0x7f; return fixCRC(b) }), "raw bytes, want"},
		{"version", edit(func(b []byte) []byte { b[8] = 9; return fixCRC(b) }), "format version 9"},
		{"codec", edit(func(b []byte) []byte { b[32+1] = 1; return fixCRC(b) }), "features: codec 1, want 2"},
	}
	info := p.m.Shards[0]
	for _, tc := range cases {
		if err := os.WriteFile(shard, tc.b, 0o644); err != nil {
			t.Fatal(err)
		}
		// Every change is caught first by the manifest's size and SHA-256,
		// whatever columns are read.
		p.m.Shards[0] = info
		for _, sel := range []Select{SelectAll, SelectActions} {
			var c Columns
			err := p.ReadShard(0, &c, sel)
			if !errors.Is(err, ErrCorruptShard) || !strings.Contains(err.Error(), "manifest says") || !strings.Contains(err.Error(), shard) {
				t.Errorf("%s: %v, want ErrCorruptShard naming the file and the manifest's size or sha256", tc.name, err)
			}
		}
		if tc.name == "payload bit flip" {
			if err := p.Verify(); !errors.Is(err, ErrCorruptShard) {
				t.Errorf("Verify missed a flipped byte: %v", err)
			}
		}
		// A manifest forged to match: the checks behind the hash hold.
		forgeShard(p, 0, tc.b)
		var c Columns
		err := p.ReadShard(0, &c, SelectAll)
		if !errors.Is(err, ErrCorruptShard) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), shard) {
			t.Errorf("%s: %v, want ErrCorruptShard naming the file and saying %q", tc.name, err, tc.want)
		}
	}
	os.WriteFile(shard, orig, 0o644)
	p.m.Shards[0] = info
	var c Columns
	if err := p.ReadShard(0, &c, SelectAll); err != nil {
		t.Errorf("restored shard: %v", err)
	}
	if err := p.ReadShard(1, &c, SelectAll); err == nil {
		t.Error("read a shard past the end")
	}
}

// forgeShard makes p's manifest agree with shard i's bytes b, as a
// manifest rewritten with a damaged shard would.
func forgeShard(p *Pack, i int, b []byte) {
	sum := sha256.Sum256(b)
	p.m.Shards[i].Bytes, p.m.Shards[i].SHA256 = int64(len(b)), hex.EncodeToString(sum[:])
}

// fixCRC recomputes the header checksum after an edit of the header, so
// that the check behind it is reached.
func fixCRC(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[headerSize-4:], crc32.ChecksumIEEE(b[:headerSize-4]))
	return b
}

// TestShardBadValues writes shards whose bytes are well-formed but whose
// values are not (as a buggy writer might): the reader refuses them.
func TestShardBadValues(t *testing.T) {
	src := t.TempDir()
	writeDataset(t, src, "a.jsonl", 10, 3, 2)
	dir := filepath.Join(t.TempDir(), "p")
	packDir(t, dir, PackOptions{}, filepath.Join(src, "a.jsonl"))
	p, err := OpenPack(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var good Columns
	if err := p.ReadShard(0, &good, SelectAll); err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	defer enc.Close()
	cases := []struct {
		name string
		edit func(c *Columns)
		want string
	}{
		{"action", func(c *Columns) { c.Actions[4] = 3 }, "actions: row 4: action 3"},
		{"feature NaN", func(c *Columns) { c.Features[7] = float32(math.NaN()) }, "features: row 2: NaN"},
		{"reward Inf", func(c *Columns) { c.Rewards[1] = math.Inf(-1) }, "rewards: row 1: -Inf"},
		{"logprob > 0", func(c *Columns) { c.LogProbs[0] = 0.5 }, "logprobs: row 0: 0.5"},
		{"group id", func(c *Columns) { c.Groups[9] = uint32(len(c.GroupNames)) }, "groups: row 9: group"},
		// what the decoder's bit tests must tell apart as well
		{"feature -Inf", func(c *Columns) { c.Features[len(c.Features)-1] = float32(math.Inf(-1)) }, fmt.Sprintf("features: row %d: -Inf", c0(&good)-1)},
		{"reward NaN", func(c *Columns) { c.Rewards[c0(&good)-1] = math.NaN() }, fmt.Sprintf("rewards: row %d: NaN", c0(&good)-1)},
		{"logprob -Inf", func(c *Columns) { c.LogProbs[3] = math.Inf(-1) }, "logprobs: row 3: -Inf"},
		{"logprob +Inf", func(c *Columns) { c.LogProbs[3] = math.Inf(1) }, "logprobs: row 3: +Inf"},
		{"group id huge", func(c *Columns) { c.Groups[2] = 1 << 31 }, "groups: row 2: group 2147483648"},
	}
	for _, tc := range cases {
		c := cloneColumns(&good)
		tc.edit(c)
		b, _ := encodeShard(nil, enc, c, 0, nil)
		os.WriteFile(filepath.Join(dir, shardName(0)), b, 0o644)
		forgeShard(p, 0, b)
		var dst Columns
		err := p.ReadShard(0, &dst, SelectAll)
		if !errors.Is(err, ErrCorruptShard) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// c0 is the rows of c.
func c0(c *Columns) int { return len(c.Actions) }

func cloneColumns(c *Columns) *Columns {
	return &Columns{Width: c.Width, rows: c.rows, GroupNames: c.GroupNames,
		Features: append([]float32(nil), c.Features...), Actions: append([]uint8(nil), c.Actions...),
		Rewards: append([]float64(nil), c.Rewards...), LogProbs: append([]float64(nil), c.LogProbs...),
		Groups: append([]uint32(nil), c.Groups...)}
}

func TestManifestChecks(t *testing.T) {
	src := t.TempDir()
	writeDataset(t, src, "a.jsonl", 10, 3, 2)
	dir := filepath.Join(t.TempDir(), "p")
	m := packDir(t, dir, PackOptions{RowsPerShard: 4}, filepath.Join(src, "a.jsonl"))
	cases := []struct {
		edit func(m *Manifest)
		want string
	}{
		{func(m *Manifest) { m.Version = 2 }, "format version 2"},
		{func(m *Manifest) { m.Format = "x" }, `format "x"`},
		{func(m *Manifest) { m.Rows = 11 }, "shards hold 10 rows, manifest says 11"},
		{func(m *Manifest) { m.Shards[1].File = "../../etc/passwd" }, "shard 1 is named"},
		{func(m *Manifest) { m.Shards[0].Rows = 5 }, "shard 0 has 5 rows"},
		{func(m *Manifest) { m.RowsPerShard = 1 << 30 }, "rows per shard"},
		{func(m *Manifest) { m.FeatureWidth = 0 }, "feature width 0"},
	}
	for _, tc := range cases {
		c := *m
		c.Shards = append([]ShardInfo(nil), m.Shards...)
		tc.edit(&c)
		b, _ := json.Marshal(&c)
		os.WriteFile(filepath.Join(dir, ManifestName), b, 0o644)
		if _, err := OpenPack(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
	os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"format":"mpdf-pack","extra":1}`), 0o644)
	if _, err := OpenPack(dir); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("unknown manifest field: %v", err)
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// TestColumnsFromJSONL: the same decisions come out as the same Columns
// from JSON Lines (DecisionStream) and from a pack (Pack.Scan).
func TestColumnsFromJSONL(t *testing.T) {
	src := t.TempDir()
	writeDataset(t, src, "a.jsonl", 50, 4, 11)
	dir := filepath.Join(t.TempDir(), "p")
	packDir(t, dir, PackOptions{RowsPerShard: 20}, filepath.Join(src, "a.jsonl"))
	p, _ := OpenPack(dir)
	defer p.Close()
	r, _ := Open([]string{filepath.Join(src, "a.jsonl")}, ReaderOptions{})
	s, err := NewDecisionStream(r, RewardConfig{})
	if err != nil {
		t.Fatal(err)
	}
	s.BatchRows = 20
	var readers = []ColumnReader{s, p.Scan(SelectAll)}
	for {
		var a, b Columns
		ea, eb := readers[0].ReadColumns(&a), readers[1].ReadColumns(&b)
		if ea != eb {
			t.Fatalf("errors differ: %v vs %v", ea, eb)
		}
		if ea == io.EOF {
			break
		}
		if a.Len() != b.Len() {
			t.Fatalf("batches of %d and %d rows", a.Len(), b.Len())
		}
		if d := cmp.Diff([]any{a.Features, a.Actions, a.Rewards, a.Groups}, []any{b.Features, b.Actions, b.Rewards, b.Groups}); d != "" {
			t.Fatalf("batches differ in features, actions, rewards or groups (-scanner +pack):\n%s", d)
		}
		for i := range a.LogProbs {
			if x, y := a.LogProbs[i], b.LogProbs[i]; x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
				t.Fatalf("logprob %d: %v vs %v", i, x, y)
			}
		}
		for i := range a.Len() {
			if a.GroupNames[a.Groups[i]] != b.GroupNames[b.Groups[i]] {
				t.Fatal("group names differ")
			}
		}
	}
}

func TestStreamMixedWidths(t *testing.T) {
	in := goodDecision + "\n" + goodEpisode + "\n"
	s, _ := NewDecisionStream(NewReader(strings.NewReader(in), "mix", ReaderOptions{}), RewardConfig{})
	if _, _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.Next()
	want := fmt.Sprintf("mix:2: episode gives %d features but earlier decisions have 3", metapolicy.FeatureWidth)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("mixed widths: %v", err)
	}
}
