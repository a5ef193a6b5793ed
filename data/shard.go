package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/klauspost/compress/zstd"
	"github.com/mpdf/mpdf/metapolicy"
)

// Shard file layout, little-endian (docs/rollouts.md has the table):
//
//	0    magic "MPDFSHRD"
//	8    u16 format version (1), u16 column count (5)
//	12   u32 feature width
//	16   u64 rows
//	24   u32 shard index, u32 flags (0)
//	32   5 column entries of 24 bytes:
//	       u8 column id, u8 codec, u16 0, u32 0, u64 stored bytes, u64 raw bytes
//	152  u32 CRC-32 (IEEE) of bytes 0..151
//	156  the columns' zstd frames, back to back in column order
//
// Raw column bytes are the values little-endian. Codec 1 (the one-byte
// actions) stores them as they are; codec 2 (every multi-byte column) stores
// them byte plane by byte plane (every value's byte 0, then every byte 1,
// ...), which lets zstd see the slowly varying high bytes of floats
// together. Each column has its one codec; another is an error.
const (
	shardMagic   = "MPDFSHRD"
	shardVersion = 1
	numColumns   = 5
	headerSize   = 32 + numColumns*24 + 4

	codecZstd        = 1
	codecZstdShuffle = 2

	// maxColumnBytes bounds one raw column, and so what a shard header can
	// make a reader allocate.
	maxColumnBytes = 1 << 31
	// zstdMaxRatio bounds raw/stored bytes of a zstd frame: its densest
	// block (RLE) is 4 bytes for 128 KiB.
	zstdMaxRatio = 1 << 15
)

// ErrCorruptShard is wrapped by every error about a shard whose bytes are
// not what the pack wrote: bad magic, checksum, sizes or values.
var ErrCorruptShard = errors.New("corrupt shard")

// columnElem is the byte size of one value of each column, in file order;
// the features column has width values per row.
var columnElem = [numColumns]int{4, 1, 8, 8, 4}

var columnSelect = [numColumns]Select{SelectFeatures, SelectActions, SelectRewards, SelectLogProbs, SelectGroups}

var columnName = [numColumns]string{"features", "actions", "rewards", "logprobs", "groups"}

type shardHeader struct {
	width, rows, index int
	stored, raw        [numColumns]int64
	codec              [numColumns]uint8
}

// encodeShard appends the shard file of c to dst. raw is scratch space.
func encodeShard(dst []byte, enc *zstd.Encoder, c *Columns, index int, raw []byte) ([]byte, []byte) {
	start := len(dst)
	dst = append(dst, make([]byte, headerSize)...)
	var h shardHeader
	h.width, h.rows, h.index = c.Width, c.rows, index
	for k := range numColumns {
		raw = columnBytes(raw[:0], c, k)
		h.codec[k] = columnCodec(k)
		h.raw[k] = int64(len(raw))
		n := len(dst)
		dst = enc.EncodeAll(raw, dst)
		h.stored[k] = int64(len(dst) - n)
	}
	h.put(dst[start : start+headerSize])
	return dst, raw
}

func (h *shardHeader) put(b []byte) {
	le := binary.LittleEndian
	copy(b, shardMagic)
	le.PutUint16(b[8:], shardVersion)
	le.PutUint16(b[10:], numColumns)
	le.PutUint32(b[12:], uint32(h.width))
	le.PutUint64(b[16:], uint64(h.rows))
	le.PutUint32(b[24:], uint32(h.index))
	le.PutUint32(b[28:], 0)
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
// allocated from it.
func parseShardHeader(b []byte, size int64, width, rows, index int) (*shardHeader, error) {
	le := binary.LittleEndian
	if len(b) < headerSize || string(b[:8]) != shardMagic {
		return nil, fmt.Errorf("%w: not an mpdf shard (bad magic)", ErrCorruptShard)
	}
	if v := le.Uint16(b[8:]); v != shardVersion {
		return nil, fmt.Errorf("%w: format version %d, this build reads %d", ErrCorruptShard, v, shardVersion)
	}
	if got, want := le.Uint32(b[headerSize-4:]), crc32.ChecksumIEEE(b[:headerSize-4]); got != want {
		return nil, fmt.Errorf("%w: header checksum %08x, want %08x", ErrCorruptShard, got, want)
	}
	h := &shardHeader{width: int(le.Uint32(b[12:])), index: int(le.Uint32(b[24:]))}
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
	}
	h.rows = rows
	total := int64(headerSize)
	for k := range numColumns {
		e := b[32+24*k:]
		stored, raw := le.Uint64(e[8:]), le.Uint64(e[16:])
		want := uint64(rows) * uint64(columnElem[k])
		if k == 0 {
			want *= uint64(width)
		}
		switch {
		case e[0] != byte(k+1):
			return nil, fmt.Errorf("%w: column %d has id %d", ErrCorruptShard, k, e[0])
		case e[1] != columnCodec(k):
			return nil, fmt.Errorf("%w: %s: codec %d, want %d", ErrCorruptShard, columnName[k], e[1], columnCodec(k))
		case raw != want:
			return nil, fmt.Errorf("%w: %s: %d raw bytes, want %d for %d rows", ErrCorruptShard, columnName[k], raw, want, rows)
		case raw > maxColumnBytes:
			return nil, fmt.Errorf("%w: %s: %d raw bytes, over the %d limit", ErrCorruptShard, columnName[k], raw, maxColumnBytes)
		case stored > uint64(size):
			return nil, fmt.Errorf("%w: %s: %d stored bytes in a file of %d", ErrCorruptShard, columnName[k], stored, size)
		case raw > stored*zstdMaxRatio+(128<<10):
			return nil, fmt.Errorf("%w: %s: %d raw bytes cannot come from %d stored", ErrCorruptShard, columnName[k], raw, stored)
		}
		h.codec[k], h.stored[k], h.raw[k] = e[1], int64(stored), int64(raw)
		total += int64(stored)
	}
	if total != size {
		return nil, fmt.Errorf("%w: file has %d bytes, header describes %d (truncated or padded)", ErrCorruptShard, size, total)
	}
	return h, nil
}

// columnBytes appends column k of c as raw bytes (byte planes for
// multi-byte values).
func columnBytes(dst []byte, c *Columns, k int) []byte {
	switch k {
	case 0:
		return planes32(dst, len(c.Features), func(j int) uint32 { return math.Float32bits(c.Features[j]) })
	case 1:
		return append(dst, c.Actions...)
	case 2:
		return planes64(dst, len(c.Rewards), func(j int) uint64 { return math.Float64bits(c.Rewards[j]) })
	case 3:
		return planes64(dst, len(c.LogProbs), func(j int) uint64 { return math.Float64bits(c.LogProbs[j]) })
	default:
		return planes32(dst, len(c.Groups), func(j int) uint32 { return c.Groups[j] })
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
// reader trusts afterwards, it checks here once.
func fillColumn(dst *Columns, k int, raw []byte, groups int) error {
	switch k {
	case 0:
		n := len(dst.Features)
		for j := range dst.Features {
			v := math.Float32frombits(get32(raw, n, j))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: features: row %d: %v", ErrCorruptShard, j/max(dst.Width, 1), v)
			}
			dst.Features[j] = v
		}
	case 1:
		for j, a := range raw {
			if a >= metapolicy.NumActions {
				return fmt.Errorf("%w: actions: row %d: action %d", ErrCorruptShard, j, a)
			}
		}
		copy(dst.Actions, raw)
	case 2:
		n := len(dst.Rewards)
		for j := range dst.Rewards {
			v := math.Float64frombits(get64(raw, n, j))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: rewards: row %d: %v", ErrCorruptShard, j, v)
			}
			dst.Rewards[j] = v
		}
	case 3:
		n := len(dst.LogProbs)
		for j := range dst.LogProbs {
			v := math.Float64frombits(get64(raw, n, j))
			if !math.IsNaN(v) && !(v <= 0 && !math.IsInf(v, 0)) {
				return fmt.Errorf("%w: logprobs: row %d: %v", ErrCorruptShard, j, v)
			}
			dst.LogProbs[j] = v
		}
	case 4:
		n := len(dst.Groups)
		for j := range dst.Groups {
			g := get32(raw, n, j)
			if uint64(g) >= uint64(groups) {
				return fmt.Errorf("%w: groups: row %d: group %d of %d", ErrCorruptShard, j, g, groups)
			}
			dst.Groups[j] = g
		}
	}
	return nil
}
