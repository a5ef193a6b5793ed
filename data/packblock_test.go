package data

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"
)

// Shards of several blocks come back whole through ReadShard and block
// by block through Scan, each read at most BlockRows rows.
func TestPackBlocksRoundTrip(t *testing.T) {
	src := t.TempDir()
	want := writeDataset(t, src, "a.jsonl", 100, 5, 9)
	dir := filepath.Join(t.TempDir(), "pack")
	packDir(t, dir, PackOptions{RowsPerShard: 40, BlockRows: 7}, filepath.Join(src, "a.jsonl"))
	p, err := OpenPack(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var sizes []int
	var got []Decision
	var cols Columns
	sc := p.Scan(SelectAll)
	for {
		err := sc.ReadColumns(&cols)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, cols.Len())
		for i := range cols.Len() {
			got = append(got, cols.Decision(i))
		}
	}
	// Shards of 40, 40, 20 rows; blocks of 7 within each.
	wantSizes := []int{7, 7, 7, 7, 7, 5, 7, 7, 7, 7, 7, 5, 7, 7, 6}
	if d := cmp.Diff(wantSizes, sizes); d != "" {
		t.Errorf("block sizes (-want +got):\n%s", d)
	}
	if len(got) != len(want) {
		t.Fatalf("%d decisions, want %d", len(got), len(want))
	}
	for i := range want {
		if d := cmp.Diff(want[i], &got[i]); d != "" {
			t.Fatalf("decision %d (-want +got):\n%s", i, d)
		}
	}
	var whole Columns
	if err := p.ReadShard(1, &whole, SelectAll); err != nil {
		t.Fatal(err)
	}
	for i := range whole.Len() {
		if d := cmp.Diff(want[40+i], ptr(whole.Decision(i))); d != "" {
			t.Fatalf("ReadShard: shard 1 row %d (-want +got):\n%s", i, d)
		}
	}
	// Only the selected columns are decoded; the others stay empty.
	var part Columns
	if err := p.ReadShard(2, &part, SelectRewards|SelectGroups); err != nil {
		t.Fatal(err)
	}
	if len(part.Features) != 0 || len(part.Actions) != 0 || len(part.Rewards) != 20 || len(part.Groups) != 20 || part.Rewards[13] != want[93].Reward {
		t.Errorf("partial read: %d features, %d actions, %d rewards, %d groups", len(part.Features), len(part.Actions), len(part.Rewards), len(part.Groups))
	}
}

// A shard written before blocks existed (format version 1: one frame per
// column) still reads, as one block.
func TestPackReadsVersion1Shards(t *testing.T) {
	src := t.TempDir()
	want := writeDataset(t, src, "a.jsonl", 30, 4, 2)
	dir := filepath.Join(t.TempDir(), "pack")
	packDir(t, dir, PackOptions{}, filepath.Join(src, "a.jsonl"))
	p, err := OpenPack(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var c Columns
	if err := p.ReadShard(0, &c, SelectAll); err != nil {
		t.Fatal(err)
	}
	enc, _ := newShardEncoder()
	defer enc.Close()
	old := encodeShardV1(enc, &c, 0)
	if err := os.WriteFile(filepath.Join(dir, shardName(0)), old, 0o644); err != nil {
		t.Fatal(err)
	}
	forgeShard(p, 0, old)
	got := unpackOpen(t, p)
	if len(got) != len(want) {
		t.Fatalf("%d decisions from a version 1 shard, want %d", len(got), len(want))
	}
	for i := range want {
		if d := cmp.Diff(want[i], &got[i]); d != "" {
			t.Fatalf("decision %d (-want +got):\n%s", i, d)
		}
	}
}

// encodeShardV1 is the version 1 writer, kept to test that such shards
// still read: one zstd frame per column after the header.
func encodeShardV1(enc *zstd.Encoder, c *Columns, index int) []byte {
	dst := make([]byte, headerSize)
	h := shardHeader{version: shardVersion1, width: c.Width, rows: c.rows, index: index}
	var raw []byte
	for k := range numColumns {
		raw = columnBytes(raw[:0], c, k, 0, c.rows)
		h.codec[k], h.raw[k] = columnCodec(k), int64(len(raw))
		n := len(dst)
		dst = enc.EncodeAll(raw, dst)
		h.stored[k] = int64(len(dst) - n)
	}
	h.put(dst[:headerSize])
	return dst
}

func unpackOpen(t *testing.T, p *Pack) []Decision {
	t.Helper()
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

// A damaged block table, a frame of another size or a bad value in a
// later block is refused, naming what and where (the shard's row).
func TestPackBlockDamage(t *testing.T) {
	src := t.TempDir()
	writeDataset(t, src, "a.jsonl", 20, 3, 5)
	dir := filepath.Join(t.TempDir(), "pack")
	packDir(t, dir, PackOptions{BlockRows: 6}, filepath.Join(src, "a.jsonl"))
	p, err := OpenPack(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var good Columns
	if err := p.ReadShard(0, &good, SelectAll); err != nil {
		t.Fatal(err)
	}
	enc, _ := newShardEncoder()
	defer enc.Close()
	orig, _ := encodeShardBlocks(nil, enc, &good, 0, nil, 6)
	le := binary.LittleEndian
	table := headerSize
	nb := 4
	end := table + 8*numColumns*nb
	cases := []struct {
		name string
		b    func() []byte
		want string
	}{
		{"table checksum", func() []byte {
			b := append([]byte(nil), orig...)
			b[table+3] ^= 1
			return b
		}, "block table checksum"},
		{"frame sizes", func() []byte {
			b := append([]byte(nil), orig...)
			// Move a byte from block 0's features frame to block 1's.
			le.PutUint64(b[table:], le.Uint64(b[table:])-1)
			le.PutUint64(b[table+8*numColumns:], le.Uint64(b[table+8*numColumns:])+1)
			le.PutUint32(b[end:], crc32.ChecksumIEEE(b[table:end]))
			return b
		}, "features: rows 0–5"},
		{"block rows 0", func() []byte {
			b := append([]byte(nil), orig...)
			le.PutUint32(b[28:], 0)
			return fixCRC(b)
		}, "block rows 0"},
		{"column total", func() []byte {
			b := append([]byte(nil), orig...)
			le.PutUint64(b[table+8*(numColumns+2):], le.Uint64(b[table+8*(numColumns+2):])+1)
			le.PutUint32(b[end:], crc32.ChecksumIEEE(b[table:end]))
			return b
		}, "rewards: blocks hold"},
		{"bad value in block 3", func() []byte {
			c := cloneColumns(&good)
			c.Actions[19] = 7
			b, _ := encodeShardBlocks(nil, enc, c, 0, nil, 6)
			return b
		}, "actions: row 19: action 7"},
	}
	for _, tc := range cases {
		b := tc.b()
		os.WriteFile(filepath.Join(dir, shardName(0)), b, 0o644)
		forgeShard(p, 0, b)
		var dst Columns
		err := p.ReadShard(0, &dst, SelectAll)
		if !errors.Is(err, ErrCorruptShard) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), shardName(0)) {
			t.Errorf("%s: %v, want ErrCorruptShard naming the shard and saying %q", tc.name, err, tc.want)
		}
		sc := p.Scan(SelectAll)
		for err = nil; err == nil; err = sc.ReadColumns(&dst) {
		}
		if !errors.Is(err, ErrCorruptShard) {
			t.Errorf("%s: Scan: %v, want ErrCorruptShard", tc.name, err)
		}
	}
}
