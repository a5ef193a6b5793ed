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

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// maxManifestBytes bounds manifest.json (its group table grows with the
// number of tasks).
const maxManifestBytes = 1 << 30

// Pack is an open packed data set. Its shards are read one block at a time
// (Scan: at most PackBlockRows rows of a shard written by this build) into a
// caller's Columns, so memory grows with the block, not the shard or the
// data set. A Pack is not safe for concurrent use: it reuses one decoder
// and buffers.
type Pack struct {
	dir   string
	m     Manifest
	dec   *zstd.Decoder
	frame []byte // one column frame of a block, as stored
	raw   []byte
	buf   []byte // hashing and the block table
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
	if err := jsonscan.CheckStrict(b, &p.m); err != nil { // a key twice: which value wins?
		return nil, fmt.Errorf("data: open pack: %w", jsonscan.InFile(path, err))
	}
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
		return fmt.Errorf("rows per shard %d of width %d, want 1 to %d bytes of features", m.RowsPerShard, m.FeatureWidth, int64(maxColumnBytes))
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

// ReadShard reads the whole of shard i into dst, filling the selected
// columns and emptying the others, reusing dst's capacity. Every value is
// checked (finite features and rewards, actions in range, log-probabilities
// ≤ 0 or NaN, group ids in the table); a shard that fails returns an error
// wrapping ErrCorruptShard. Scan reads block by block instead, in less
// memory.
func (p *Pack) ReadShard(i int, dst *Columns, sel Select) error {
	sh, err := p.openShard(i)
	if err != nil {
		return err
	}
	defer sh.close()
	dst.resize(p.m.FeatureWidth, sh.h.rows, sel)
	for b := range sh.h.blocks {
		blk := &sh.h.blocks[b]
		if err := p.readBlock(sh, blk, dst.view(blk.row, blk.row+blk.rows), sel); err != nil {
			return fmt.Errorf("data: pack: %s: %w", sh.path, err)
		}
	}
	dst.GroupNames = p.m.Groups
	return nil
}

// shardFile is a shard open for reading, its header and blocks checked.
type shardFile struct {
	f    *os.File
	path string
	h    *shardHeader
}

func (s *shardFile) close() { s.f.Close() }

// openShard opens shard i: its size against the manifest, its SHA-256 the
// first time this process reads it, whatever columns will be asked for (a
// shard whose bytes are not those the manifest recorded is refused before
// any value is used), then its header and block table.
func (p *Pack) openShard(i int) (*shardFile, error) {
	if p.dec == nil {
		return nil, fmt.Errorf("data: pack %s: read after Close", p.dir)
	}
	if i < 0 || i >= len(p.m.Shards) {
		return nil, fmt.Errorf("data: pack %s: no shard %d (it has %d)", p.dir, i, len(p.m.Shards))
	}
	info := p.m.Shards[i]
	path := filepath.Join(p.dir, info.File)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: pack: %w", err)
	}
	sh := &shardFile{f: f, path: path}
	if sh.h, err = p.checkShard(f, i); err != nil {
		f.Close()
		return nil, fmt.Errorf("data: pack: %s: %w", path, err)
	}
	return sh, nil
}

func (p *Pack) checkShard(f *os.File, i int) (*shardHeader, error) {
	info := p.m.Shards[i]
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() != info.Bytes {
		return nil, fmt.Errorf("%w: %d bytes, manifest says %d", ErrCorruptShard, fi.Size(), info.Bytes)
	}
	if fi.Size() < headerSize {
		return nil, fmt.Errorf("%w: truncated: %d bytes, shorter than the %d-byte header", ErrCorruptShard, fi.Size(), headerSize)
	}
	p.buf = grow(p.buf, 1<<20)
	if err := verifyShard(f, fi, info.SHA256, p.buf); err != nil {
		return nil, err
	}
	hb := p.buf[:headerSize]
	if _, err := f.ReadAt(hb, 0); err != nil {
		return nil, err
	}
	h, err := parseShardHeader(hb, fi.Size(), p.m.FeatureWidth, info.Rows, i)
	if err != nil {
		return nil, err
	}
	if h.version == shardVersion {
		t := grow(p.buf, int(tableSize(h.blocksLen())))
		p.buf = t
		if _, err := f.ReadAt(t, headerSize); err != nil {
			return nil, err
		}
		if err := h.parseBlockTable(t); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// readBlock decodes the selected columns of block blk of sh into dst,
// which has the block's rows.
func (p *Pack) readBlock(sh *shardFile, blk *shardBlock, dst *Columns, sel Select) error {
	for k := range numColumns {
		if sel&columnSelect[k] == 0 {
			continue
		}
		p.frame = grow(p.frame, int(blk.stored[k]))
		if _, err := sh.f.ReadAt(p.frame, blk.off[k]); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorruptShard, columnName[k], err)
		}
		want := sh.h.rawBytes(k, blk.rows)
		p.raw = grow(p.raw, int(want))
		raw, err := p.dec.DecodeAll(p.frame, p.raw[:0:want])
		if err != nil {
			return fmt.Errorf("%w: %s: rows %d–%d: %v", ErrCorruptShard, columnName[k], blk.row, blk.row+blk.rows-1, err)
		}
		if int64(len(raw)) != want {
			return fmt.Errorf("%w: %s: rows %d–%d: decoded %d bytes, want %d", ErrCorruptShard, columnName[k], blk.row, blk.row+blk.rows-1, len(raw), want)
		}
		if err := fillColumn(dst, k, raw, len(p.m.Groups), blk.row); err != nil {
			return err
		}
	}
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

// verifyShard checks the bytes of the shard file f against the manifest's
// SHA-256, unless this process checked the same file before. It streams
// the file through buf: the whole shard is never held in memory.
func verifyShard(f *os.File, fi os.FileInfo, want string, buf []byte) error {
	key := f.Name() + "\x00" + want
	stamp := shardStamp{fi.Size(), fi.ModTime()}
	if v, ok := verified.Load(key); ok && v.(shardStamp).size == stamp.size && v.(shardStamp).mtime.Equal(stamp.mtime) {
		return nil
	}
	h := sha256.New()
	if _, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, fi.Size()), buf); err != nil {
		return err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != want {
		return fmt.Errorf("%w: sha256 %s, manifest says %s", ErrCorruptShard, sum, want)
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

// Scan returns a ColumnReader over the pack's blocks in order (a shard
// written before blocks existed is one block), filling the selected
// columns: at most PackBlockRows rows a read for a pack of this build.
func (p *Pack) Scan(sel Select) *PackScanner { return &PackScanner{p: p, sel: sel} }

// Close releases the decoder.
func (p *Pack) Close() error {
	if p.dec != nil {
		p.dec.Close()
		p.dec = nil
	}
	return nil
}

// PackScanner reads a pack block by block (Pack.Scan).
type PackScanner struct {
	p     *Pack
	sel   Select
	shard int // the next shard to open
	sh    *shardFile
	block int // the next block of sh
}

// ReadColumns reads the next block into dst, or returns io.EOF. A
// scanner that has returned an error or io.EOF has closed its file.
func (s *PackScanner) ReadColumns(dst *Columns) error {
	for s.sh == nil || s.block >= len(s.sh.h.blocks) {
		if s.sh != nil {
			s.sh.close()
			s.sh = nil
		}
		if s.shard >= len(s.p.m.Shards) {
			return io.EOF
		}
		sh, err := s.p.openShard(s.shard)
		if err != nil {
			return err
		}
		s.sh, s.shard, s.block = sh, s.shard+1, 0
	}
	blk := &s.sh.h.blocks[s.block]
	s.block++
	dst.resize(s.p.m.FeatureWidth, blk.rows, s.sel)
	if err := s.p.readBlock(s.sh, blk, dst, s.sel); err != nil {
		path := s.sh.path
		s.sh.close()
		s.sh = nil
		return fmt.Errorf("data: pack: %s: %w", path, err)
	}
	dst.GroupNames = s.p.m.Groups
	return nil
}
