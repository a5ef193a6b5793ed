package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/mpdf/mpdf/metapolicy"
)

// Shard file layout, little-endian (docs/rollouts.md has the table):
//
//	0    magic "MPDFSHRD"
//	8    u16 format version (2; 1 still read), u16 column count (5)
//	12   u32 feature width
//	16   u64 rows
//	24   u32 shard index, u32 block rows B (version 1: flags, 0)
//	32   5 column entries of 24 bytes:
//	       u8 column id, u8 codec, u16 0, u32 0, u64 stored bytes, u64 raw bytes
//	152  u32 CRC-32 (IEEE) of bytes 0..151
//	156  version 2: the block table, ceil(rows/B) × 5 u64 stored bytes of
//	     each block's column frames, then its u32 CRC-32; the frames
//	     follow block by block, each block's in column order
//	156  version 1: one zstd frame per column, back to back in column order
//
// Blocks are what bound a reader's memory: it decodes one block of at most
// B rows at a time (PackBlockRows), whatever the shard's size. A version 1
// shard is one block.
//
// Raw column bytes are the values little-endian. Codec 1 (the one-byte
// actions) stores them as they are; codec 2 (every multi-byte column) stores
// them byte plane by byte plane (every value's byte 0, then every byte 1,
// ...) within each frame, which lets zstd see the slowly varying high bytes
// of floats together. Each column has its one codec; another is an error.
const (
	shardMagic    = "MPDFSHRD"
	shardVersion  = 2
	shardVersion1 = 1
	numColumns    = 5
	headerSize    = 32 + numColumns*24 + 4

	codecZstd        = 1
	codecZstdShuffle = 2

	// maxColumnBytes bounds one raw column, and so what a shard header can
	// make a reader allocate.
	maxColumnBytes = 1 << 31
	// zstdMaxRatio bounds raw/stored bytes of a zstd frame: its densest
	// block (RLE) is 4 bytes for 128 KiB.
	zstdMaxRatio = 1 << 15
)

// PackBlockRows is the rows of a shard's block (the last may hold fewer):
// what a reader decodes at a time, and so what a training pass holds
// (DefaultBatchRows, the chunk of a pass over rollout files, too).
const PackBlockRows = DefaultBatchRows

// ErrCorruptShard is wrapped by every error about a shard whose bytes are
// not what the pack wrote: bad magic, checksum, sizes or values.
var ErrCorruptShard = errors.New("corrupt shard")

// columnElem is the byte size of one value of each column, in file order;
// the features column has width values per row.
var columnElem = [numColumns]int{4, 1, 8, 8, 4}

var columnSelect = [numColumns]Select{SelectFeatures, SelectActions, SelectRewards, SelectLogProbs, SelectGroups}

var columnName = [numColumns]string{"features", "actions", "rewards", "logprobs", "groups"}

type shardHeader struct {
	version, width, rows, index int
	blockRows                   int // version 2
	stored, raw                 [numColumns]int64
	codec                       [numColumns]uint8
	blocks                      []shardBlock
}

// shardBlock is where one block's frames are in the file.
type shardBlock struct {
	row, rows int // the first row of the shard it holds, and how many
	off       [numColumns]int64
	stored    [numColumns]int64
}

// rawBytes is the raw size of column k for rows rows.
func (h *shardHeader) rawBytes(k, rows int) int64 {
	n := int64(rows) * int64(columnElem[k])
	if k == 0 {
		n *= int64(h.width)
	}
	return n
}

// tableSize is the bytes of a version 2 block table with its checksum.
func tableSize(blocks int) int64 { return 8*numColumns*int64(blocks) + 4 }

// encodeShard appends the shard file of c to dst, in blocks of
// PackBlockRows rows. raw is scratch space.
func encodeShard(dst []byte, enc *zstd.Encoder, c *Columns, index int, raw []byte) ([]byte, []byte) {
	return encodeShardBlocks(dst, enc, c, index, raw, PackBlockRows)
}

// encodeShardBlocks is encodeShard in blocks of blockRows rows.
func encodeShardBlocks(dst []byte, enc *zstd.Encoder, c *Columns, index int, raw []byte, blockRows int) ([]byte, []byte) {
	le := binary.LittleEndian
	start := len(dst)
	nb := (c.rows + blockRows - 1) / blockRows
	table := start + headerSize
	dst = append(dst, make([]byte, headerSize+int(tableSize(nb)))...)
	h := shardHeader{version: shardVersion, width: c.Width, rows: c.rows, index: index, blockRows: blockRows}
	for b := range nb {
		lo, hi := b*blockRows, min(c.rows, (b+1)*blockRows)
		for k := range numColumns {
			raw = columnBytes(raw[:0], c, k, lo, hi)
			h.codec[k] = columnCodec(k)
			h.raw[k] += int64(len(raw))
			n := len(dst)
			dst = enc.EncodeAll(raw, dst)
			h.stored[k] += int64(len(dst) - n)
			le.PutUint64(dst[table+8*(b*numColumns+k):], uint64(len(dst)-n))
		}
	}
	h.put(dst[start : start+headerSize])
	end := table + 8*numColumns*nb
	le.PutUint32(dst[end:], crc32.ChecksumIEEE(dst[table:end]))
	return dst, raw
}

func (h *shardHeader) put(b []byte) {
	le := binary.LittleEndian
	copy(b, shardMagic)
	le.PutUint16(b[8:], uint16(h.version))
	le.PutUint16(b[10:], numColumns)
	le.PutUint32(b[12:], uint32(h.width))
	le.PutUint64(b[16:], uint64(h.rows))
	le.PutUint32(b[24:], uint32(h.index))
	le.PutUint32(b[28:], uint32(h.blockRows))
	for k := range numColumns {
		e := b[32+24*k:]
		e[0], e[1] = byte(k+1), h.codec[k]
		le.PutUint16(e[2:], 0)
		le.PutUint32(e[4:], 0)
		le.PutUint64(e[8:], uint64(h.stored[k]))
		le.PutUint64(e[16:], uint64(h.raw[k]))
	}
	le.PutUint32(b[headerSize-4:], crc32.ChecksumIEEE(b[:headerSize-4]))
}

// parseShardHeader checks b (headerSize bytes of a file of size bytes)
// against what the manifest says the shard holds, before anything is
// allocated from it. A version 1 shard's one block is filled in; a version
// 2 shard's come from its table (parseBlockTable).
func parseShardHeader(b []byte, size int64, width, rows, index int) (*shardHeader, error) {
	le := binary.LittleEndian
	if len(b) < headerSize || string(b[:8]) != shardMagic {
		return nil, fmt.Errorf("%w: not an mpdf shard (bad magic)", ErrCorruptShard)
	}
	v := int(le.Uint16(b[8:]))
	if v != shardVersion && v != shardVersion1 {
		return nil, fmt.Errorf("%w: format version %d, this build reads %d and %d", ErrCorruptShard, v, shardVersion1, shardVersion)
	}
	if got, want := le.Uint32(b[headerSize-4:]), crc32.ChecksumIEEE(b[:headerSize-4]); got != want {
		return nil, fmt.Errorf("%w: header checksum %08x, want %08x", ErrCorruptShard, got, want)
	}
	h := &shardHeader{version: v, width: int(le.Uint32(b[12:])), index: int(le.Uint32(b[24:])), blockRows: int(le.Uint32(b[28:]))}
	r := le.Uint64(b[16:])
	switch {
	case le.Uint16(b[10:]) != numColumns:
		return nil, fmt.Errorf("%w: %d columns, want %d", ErrCorruptShard, le.Uint16(b[10:]), numColumns)
	case h.width != width:
		return nil, fmt.Errorf("%w: feature width %d, manifest says %d", ErrCorruptShard, h.width, width)
	case r != uint64(rows):
		return nil, fmt.Errorf("%w: %d rows, manifest says %d", ErrCorruptShard, r, rows)
	case h.index != index:
		return nil, fmt.Errorf("%w: shard index %d, want %d", ErrCorruptShard, h.index, index)
	case v == shardVersion1 && h.blockRows != 0:
		return nil, fmt.Errorf("%w: flags %d, want 0", ErrCorruptShard, h.blockRows)
	case v == shardVersion && h.blockRows < 1:
		return nil, fmt.Errorf("%w: block rows %d, want ≥ 1", ErrCorruptShard, h.blockRows)
	}
	h.rows = rows
	total := int64(headerSize)
	if v == shardVersion {
		total += tableSize(h.blocksLen())
	}
	for k := range numColumns {
		e := b[32+24*k:]
		stored, raw := le.Uint64(e[8:]), le.Uint64(e[16:])
		want := uint64(h.rawBytes(k, rows))
		switch {
		case e[0] != byte(k+1):
			return nil, fmt.Errorf("%w: column %d has id %d", ErrCorruptShard, k, e[0])
		case e[1] != columnCodec(k):
			return nil, fmt.Errorf("%w: %s: codec %d, want %d", ErrCorruptShard, columnName[k], e[1], columnCodec(k))
		case raw != want:
			return nil, fmt.Errorf("%w: %s: %d raw bytes, want %d for %d rows", ErrCorruptShard, columnName[k], raw, want, rows)
		case raw > maxColumnBytes:
			return nil, fmt.Errorf("%w: %s: %d raw bytes, over the %d limit", ErrCorruptShard, columnName[k], raw, int64(maxColumnBytes))
		case stored > uint64(size):
			return nil, fmt.Errorf("%w: %s: %d stored bytes in a file of %d", ErrCorruptShard, columnName[k], stored, size)
		case v == shardVersion1 && raw > stored*zstdMaxRatio+(128<<10):
			return nil, fmt.Errorf("%w: %s: %d raw bytes cannot come from %d stored", ErrCorruptShard, columnName[k], raw, stored)
		}
		h.codec[k], h.stored[k], h.raw[k] = e[1], int64(stored), int64(raw)
		total += int64(stored)
	}
	if total != size {
		return nil, fmt.Errorf("%w: file has %d bytes, header describes %d (truncated or padded)", ErrCorruptShard, size, total)
	}
	if v == shardVersion1 {
		blk := shardBlock{rows: rows, stored: h.stored}
		off := int64(headerSize)
		for k := range numColumns {
			blk.off[k] = off
			off += h.stored[k]
		}
		h.blocks = []shardBlock{blk}
	}
	return h, nil
}

// blocksLen is the number of blocks of a version 2 shard.
func (h *shardHeader) blocksLen() int {
	return (h.rows + h.blockRows - 1) / h.blockRows
}

// parseBlockTable reads a version 2 shard's block table (tableSize bytes
// at headerSize; parseShardHeader has checked that the file holds them)
// into h.blocks, checking its checksum, that its frames add up to the
// column entries, and that no frame claims more raw bytes than zstd can
// expand it to.
func (h *shardHeader) parseBlockTable(t []byte) error {
	le := binary.LittleEndian
	nb := h.blocksLen()
	end := 8 * numColumns * nb
	if got, want := le.Uint32(t[end:]), crc32.ChecksumIEEE(t[:end]); got != want {
		return fmt.Errorf("%w: block table checksum %08x, want %08x", ErrCorruptShard, got, want)
	}
	h.blocks = make([]shardBlock, nb)
	off := int64(headerSize) + tableSize(nb)
	var sum [numColumns]int64
	for b := range h.blocks {
		blk := &h.blocks[b]
		blk.row = b * h.blockRows
		blk.rows = min(h.rows-blk.row, h.blockRows)
		for k := range numColumns {
			s := le.Uint64(t[8*(b*numColumns+k):])
			if s > uint64(h.stored[k]) {
				return fmt.Errorf("%w: block %d: %s: %d stored bytes, the column has %d", ErrCorruptShard, b, columnName[k], s, h.stored[k])
			}
			if raw := h.rawBytes(k, blk.rows); raw > int64(s)*zstdMaxRatio+(128<<10) {
				return fmt.Errorf("%w: block %d: %s: %d raw bytes cannot come from %d stored", ErrCorruptShard, b, columnName[k], raw, s)
			}
			blk.off[k], blk.stored[k] = off, int64(s)
			off += int64(s)
			sum[k] += int64(s)
		}
	}
	for k := range numColumns {
		if sum[k] != h.stored[k] {
			return fmt.Errorf("%w: %s: blocks hold %d stored bytes, the header says %d", ErrCorruptShard, columnName[k], sum[k], h.stored[k])
		}
	}
	return nil
}

// columnBytes appends column k of rows [lo, hi) of c as raw bytes (byte
// planes for multi-byte values).
func columnBytes(dst []byte, c *Columns, k, lo, hi int) []byte {
	switch k {
	case 0:
		f := c.Features[lo*c.Width : hi*c.Width]
		return planes32(dst, len(f), func(j int) uint32 { return math.Float32bits(f[j]) })
	case 1:
		return append(dst, c.Actions[lo:hi]...)
	case 2:
		r := c.Rewards[lo:hi]
		return planes64(dst, len(r), func(j int) uint64 { return math.Float64bits(r[j]) })
	case 3:
		l := c.LogProbs[lo:hi]
		return planes64(dst, len(l), func(j int) uint64 { return math.Float64bits(l[j]) })
	default:
		g := c.Groups[lo:hi]
		return planes32(dst, len(g), func(j int) uint32 { return g[j] })
	}
}

func planes32(dst []byte, n int, v func(int) uint32) []byte {
	s := len(dst)
	dst = append(dst, make([]byte, 4*n)...)
	p := dst[s:]
	for j := range n {
		x := v(j)
		p[j], p[n+j], p[2*n+j], p[3*n+j] = byte(x), byte(x>>8), byte(x>>16), byte(x>>24)
	}
	return dst
}

func planes64(dst []byte, n int, v func(int) uint64) []byte {
	s := len(dst)
	dst = append(dst, make([]byte, 8*n)...)
	p := dst[s:]
	for j := range n {
		x := v(j)
		for b := range 8 {
			p[b*n+j] = byte(x >> (8 * b))
		}
	}
	return dst
}

// columnCodec is the codec of column k.
func columnCodec(k int) uint8 {
	if columnElem[k] > 1 {
		return codecZstdShuffle
	}
	return codecZstd
}

// get32 returns value j of n from 4-byte planes.
func get32(raw []byte, n, j int) uint32 {
	return uint32(raw[j]) | uint32(raw[n+j])<<8 | uint32(raw[2*n+j])<<16 | uint32(raw[3*n+j])<<24
}

// get64 returns value j of n from 8-byte planes.
func get64(raw []byte, n, j int) uint64 {
	var x uint64
	for b := range 8 {
		x |= uint64(raw[b*n+j]) << (8 * b)
	}
	return x
}

// fillColumn decodes raw column k into dst and checks its values: what a
// reader trusts afterwards, it checks here once. first is the shard row
// of dst's row 0, for the messages. Every pass of training decodes every
// block again, so the planes are read as whole slices (no bounds check a
// byte) and a value is checked on its bits; the first bad value is then
// found again by badValue, which words the error.
func fillColumn(dst *Columns, k int, raw []byte, groups, first int) error {
	ok := true
	switch k {
	case 0:
		// float32 and uint32 have one size: the bits are stored as they are.
		bits := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(dst.Features))), len(dst.Features))
		exp := unplane32(bits, raw)
		ok = exp&0x7f800000 != 0x7f800000 || finite32(bits)
	case 1:
		for _, a := range raw {
			ok = ok && a < metapolicy.NumActions
		}
		copy(dst.Actions, raw)
	case 2:
		unplane64(dst.Rewards, raw)
		for _, v := range dst.Rewards {
			ok = ok && v-v == 0 // finite: NaN and ±Inf give NaN
		}
	case 3:
		unplane64(dst.LogProbs, raw)
		for _, v := range dst.LogProbs {
			ok = ok && (v != v || v <= 0 && v-v == 0) // NaN (absent), or finite and ≤ 0
		}
	case 4:
		top := unplane32(dst.Groups, raw)
		ok = uint64(top) < uint64(groups) || below(dst.Groups, groups)
	}
	if ok {
		return nil
	}
	return badValue(dst, k, raw, groups, first)
}

// unplane32 assembles the values of 4-byte planes into dst and returns
// the OR of them all: a quick test that no bit a bad value needs is set.
func unplane32(dst []uint32, raw []byte) uint32 {
	n := len(dst)
	p0, p1, p2, p3 := raw[:n], raw[n:2*n], raw[2*n:3*n], raw[3*n:4*n]
	p1, p2, p3, dst = p1[:len(p0)], p2[:len(p0)], p3[:len(p0)], dst[:len(p0)]
	var or uint32
	for j, b := range p0 {
		x := uint32(b) | uint32(p1[j])<<8 | uint32(p2[j])<<16 | uint32(p3[j])<<24
		or |= x
		dst[j] = x
	}
	return or
}

// finite32 reports whether no float32 of bits is NaN or ±Inf (its exponent
// all ones).
func finite32(bits []uint32) bool {
	for _, x := range bits {
		if x&0x7f800000 == 0x7f800000 {
			return false
		}
	}
	return true
}

// below reports whether every group index is under groups.
func below(g []uint32, groups int) bool {
	for _, x := range g {
		if uint64(x) >= uint64(groups) {
			return false
		}
	}
	return true
}

// unplane64 assembles the float64 values of 8-byte planes into dst.
func unplane64(dst []float64, raw []byte) {
	n := len(dst)
	p0 := raw[:n]
	p1, p2, p3 := raw[n : 2*n][:len(p0)], raw[2*n : 3*n][:len(p0)], raw[3*n : 4*n][:len(p0)]
	p4, p5, p6, p7 := raw[4*n : 5*n][:len(p0)], raw[5*n : 6*n][:len(p0)], raw[6*n : 7*n][:len(p0)], raw[7*n : 8*n][:len(p0)]
	dst = dst[:len(p0)]
	for j, b := range p0 {
		x := uint64(b) | uint64(p1[j])<<8 | uint64(p2[j])<<16 | uint64(p3[j])<<24 |
			uint64(p4[j])<<32 | uint64(p5[j])<<40 | uint64(p6[j])<<48 | uint64(p7[j])<<56
		dst[j] = math.Float64frombits(x)
	}
}

// badValue is the error of the first value of column k that fillColumn
// refused.
func badValue(dst *Columns, k int, raw []byte, groups, first int) error {
	switch k {
	case 0:
		n := len(dst.Features)
		for j := range dst.Features {
			v := math.Float32frombits(get32(raw, n, j))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: features: row %d: %v", ErrCorruptShard, first+j/max(dst.Width, 1), v)
			}
		}
	case 1:
		for j, a := range raw {
			if a >= metapolicy.NumActions {
				return fmt.Errorf("%w: actions: row %d: action %d", ErrCorruptShard, first+j, a)
			}
		}
	case 2:
		n := len(dst.Rewards)
		for j := range dst.Rewards {
			v := math.Float64frombits(get64(raw, n, j))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: rewards: row %d: %v", ErrCorruptShard, first+j, v)
			}
		}
	case 3:
		n := len(dst.LogProbs)
		for j := range dst.LogProbs {
			v := math.Float64frombits(get64(raw, n, j))
			if !math.IsNaN(v) && !(v <= 0 && !math.IsInf(v, 0)) {
				return fmt.Errorf("%w: logprobs: row %d: %v", ErrCorruptShard, first+j, v)
			}
		}
	case 4:
		n := len(dst.Groups)
		for j := range dst.Groups {
			if g := get32(raw, n, j); uint64(g) >= uint64(groups) {
				return fmt.Errorf("%w: groups: row %d: group %d of %d", ErrCorruptShard, first+j, g, groups)
			}
		}
	}
	return fmt.Errorf("%w: %s: a value refused but not found again", ErrCorruptShard, columnName[k]) // unreachable: the checks agree
}
