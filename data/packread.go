package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// maxManifestBytes bounds manifest.json (its group table grows with the
// number of tasks).
const maxManifestBytes = 1 << 30

// Pack is an open packed data set. Its shards are read one at a time into
// a caller's Columns, so memory grows with the shard, not the data set. A
// Pack is not safe for concurrent use: it reuses one decoder and buffers.
type Pack struct {
	dir  string
	m    Manifest
	dec  *zstd.Decoder
	file []byte // one shard file, as stored
	raw  []byte
}

// OpenPack opens the pack in dir, checking its manifest. Each shard is
// checked when read: its size against the manifest, its SHA-256 the first
// time this process reads it (again if the file changed: size or
// modification time), then its header and values. Verify checks every
// shard's hash without decoding.
func OpenPack(dir string) (*Pack, error) {
	path := filepath.Join(dir, ManifestName)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: open pack: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("data: open pack: %w", err)
	}
	if len(b) > maxManifestBytes {
		return nil, fmt.Errorf("data: open pack: %s is over %d bytes", path, maxManifestBytes)
	}
	p := &Pack{dir: dir}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p.m); err != nil {
		return nil, fmt.Errorf("data: open pack: %s: %w", path, err)
	}
	if err := p.m.check(); err != nil {
		return nil, fmt.Errorf("data: open pack: %s: %w", path, err)
	}
	p.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxColumnBytes),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, fmt.Errorf("data: open pack: %w", err)
	}
	return p, nil
}

func (m *Manifest) check() error {
	switch {
	case m.Format != PackFormat:
		return fmt.Errorf("format %q, want %q", m.Format, PackFormat)
	case m.Version != PackVersion:
		return fmt.Errorf("format version %d, this build reads %d", m.Version, PackVersion)
	case m.FeatureWidth < 1:
		return fmt.Errorf("feature width %d, want ≥ 1", m.FeatureWidth)
	case m.RowsPerShard < 1 || int64(m.RowsPerShard)*int64(m.FeatureWidth)*4 > maxColumnBytes:
		return fmt.Errorf("rows per shard %d of width %d, want 1 to %d bytes of features", m.RowsPerShard, m.FeatureWidth, maxColumnBytes)
	case len(m.Shards) == 0:
		return fmt.Errorf("no shards")
	case int64(len(m.Groups)) > math.MaxUint32:
		return fmt.Errorf("%d groups, over 2^32-1", len(m.Groups))
	}
	var rows int64
	for i, s := range m.Shards {
		switch {
		case s.File != shardName(i):
			return fmt.Errorf("shard %d is named %q, want %q", i, s.File, shardName(i))
		case s.Rows < 1 || s.Rows > m.RowsPerShard:
			return fmt.Errorf("shard %d has %d rows, want 1 to %d", i, s.Rows, m.RowsPerShard)
		}
		rows += int64(s.Rows)
	}
	if rows != m.Rows {
		return fmt.Errorf("shards hold %d rows, manifest says %d", rows, m.Rows)
	}
	return nil
}

// Manifest returns the pack's manifest (read-only).
func (p *Pack) Manifest() *Manifest { return &p.m }

// Shards lists the shard files in order.
func (p *Pack) Shards() []ShardInfo { return p.m.Shards }

// Width is the feature width.
func (p *Pack) Width() int { return p.m.FeatureWidth }

// Rows is the number of decisions in the pack.
func (p *Pack) Rows() int64 { return p.m.Rows }

// GroupNames is the group table; Columns.Groups index it.
func (p *Pack) GroupNames() []string { return p.m.Groups }

// ReadShard reads shard i into dst, filling the selected columns and
// emptying the others, reusing dst's capacity. Every value is checked
// (finite features and rewards, actions in range, log-probabilities ≤ 0
// or NaN, group ids in the table); a shard that fails returns an error
// wrapping ErrCorruptShard.
func (p *Pack) ReadShard(i int, dst *Columns, sel Select) error {
	if p.dec == nil {
		return fmt.Errorf("data: pack %s: read after Close", p.dir)
	}
	if i < 0 || i >= len(p.m.Shards) {
		return fmt.Errorf("data: pack %s: no shard %d (it has %d)", p.dir, i, len(p.m.Shards))
	}
	info := p.m.Shards[i]
	path := filepath.Join(p.dir, info.File)
	if err := p.readShard(path, i, dst, sel); err != nil {
		return fmt.Errorf("data: pack: %s: %w", path, err)
	}
	return nil
}

func (p *Pack) readShard(path string, i int, dst *Columns, sel Select) error {
	info := p.m.Shards[i]
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != info.Bytes {
		return fmt.Errorf("%w: %d bytes, manifest says %d", ErrCorruptShard, fi.Size(), info.Bytes)
	}
	if fi.Size() < headerSize {
		return fmt.Errorf("%w: truncated: %d bytes, shorter than the %d-byte header", ErrCorruptShard, fi.Size(), headerSize)
	}
	// The whole shard is read and, the first time, hashed, whatever
	// columns are selected: a shard whose bytes are not those the manifest
	// recorded is refused before any value is used.
	p.file = grow(p.file, int(fi.Size()))
	if _, err := io.ReadFull(f, p.file); err != nil {
		return err
	}
	if err := verifyShard(path, fi, p.file, info.SHA256); err != nil {
		return err
	}
	h, err := parseShardHeader(p.file[:headerSize], fi.Size(), p.m.FeatureWidth, info.Rows, i)
	if err != nil {
		return err
	}
	dst.resize(h.width, h.rows, sel)
	off := int64(headerSize)
	for k := range numColumns {
		n := h.stored[k]
		if sel&columnSelect[k] == 0 {
			off += n
			continue
		}
		if off+n > int64(len(p.file)) {
			return fmt.Errorf("%w: %s: %d stored bytes past the end of the file", ErrCorruptShard, columnName[k], n)
		}
		stored := p.file[off : off+n]
		off += n
		p.raw = grow(p.raw, int(h.raw[k]))
		raw, err := p.dec.DecodeAll(stored, p.raw[:0:h.raw[k]])
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorruptShard, columnName[k], err)
		}
		if int64(len(raw)) != h.raw[k] {
			return fmt.Errorf("%w: %s: decoded %d bytes, header says %d", ErrCorruptShard, columnName[k], len(raw), h.raw[k])
		}
		if err := fillColumn(dst, k, raw, len(p.m.Groups)); err != nil {
			return err
		}
	}
	dst.GroupNames = p.m.Groups
	return nil
}

// verified remembers the shards whose SHA-256 this process has checked,
// with the size and modification time they had: training reads every
// shard once per epoch, and hashing it each time would cost as much as
// decoding it. A shard rewritten since is hashed again.
var verified sync.Map // path + "\x00" + sha256 → shardStamp

type shardStamp struct {
	size  int64
	mtime time.Time
}

// verifyShard checks b, the bytes of the shard file at path, against the
// manifest's SHA-256, unless this process checked the same file before.
func verifyShard(path string, fi os.FileInfo, b []byte, want string) error {
	key := path + "\x00" + want
	stamp := shardStamp{fi.Size(), fi.ModTime()}
	if v, ok := verified.Load(key); ok && v.(shardStamp).size == stamp.size && v.(shardStamp).mtime.Equal(stamp.mtime) {
		return nil
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
		return fmt.Errorf("%w: sha256 %x, manifest says %s", ErrCorruptShard, sum, want)
	}
	verified.Store(key, stamp)
	return nil
}

// Verify checks every shard file's size and SHA-256 against the manifest.
func (p *Pack) Verify() error {
	for _, s := range p.m.Shards {
		path := filepath.Join(p.dir, s.File)
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("data: pack: %w", err)
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("data: pack: %s: %w", path, err)
		}
		if sum := hex.EncodeToString(h.Sum(nil)); n != s.Bytes || sum != s.SHA256 {
			return fmt.Errorf("data: pack: %s: %w: %d bytes with sha256 %s, manifest says %d bytes with %s",
				path, ErrCorruptShard, n, sum, s.Bytes, s.SHA256)
		}
	}
	return nil
}

// Scan returns a ColumnReader over the shards in order, one shard per
// ReadColumns, filling the selected columns.
func (p *Pack) Scan(sel Select) *PackScanner { return &PackScanner{p: p, sel: sel} }

// Close releases the decoder.
func (p *Pack) Close() error {
	if p.dec != nil {
		p.dec.Close()
		p.dec = nil
	}
	return nil
}

// PackScanner reads a pack shard by shard (Pack.Scan).
type PackScanner struct {
	p    *Pack
	sel  Select
	next int
}

// ReadColumns reads the next shard into dst, or returns io.EOF.
func (s *PackScanner) ReadColumns(dst *Columns) error {
	if s.next >= len(s.p.m.Shards) {
		return io.EOF
	}
	s.next++
	return s.p.ReadShard(s.next-1, dst, s.sel)
}
