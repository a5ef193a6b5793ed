package checkpoints

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// Magic opens every checkpoint file.
const Magic = "MPDFCKPT"

// FormatVersion is the version of the file layout this build writes. Readers
// accept exactly the versions they know (today only 1) and report any other
// as ErrVersion.
const FormatVersion uint32 = 1

// Layout of the fixed prefix and trailer (see the package doc).
const (
	offVersion  = 8
	offRawLen   = 12
	offFrameLen = 20
	prefixLen   = 28
	trailerLen  = 4
	minBodyLen  = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Marshal returns the file bytes of c. The same checkpoint always gives the
// same bytes. c is checked first with the rules Unmarshal applies, so that
// whatever is written can be read back.
func Marshal(c *Checkpoint) ([]byte, error) {
	body, err := encodeBody(c)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: encode: %w", err)
	}
	enc, _, err := codecs()
	if err != nil {
		return nil, fmt.Errorf("checkpoints: zstd: %w", err)
	}
	out := make([]byte, prefixLen, prefixLen+int(compressBound(uint64(len(body))))+trailerLen)
	copy(out, Magic)
	binary.LittleEndian.PutUint32(out[offVersion:], FormatVersion)
	binary.LittleEndian.PutUint64(out[offRawLen:], uint64(len(body)))
	out = enc.EncodeAll(body, out)
	binary.LittleEndian.PutUint64(out[offFrameLen:], uint64(len(out)-prefixLen))
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, castagnoli)), nil
}

// Encode writes the file bytes of c to w (see Marshal).
func Encode(w io.Writer, c *Checkpoint) error {
	b, err := Marshal(c)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("checkpoints: write: %w", err)
	}
	return nil
}

// Unmarshal decodes a whole checkpoint file held in b. Bytes after the
// checksum are an error (ErrCorrupt).
func Unmarshal(b []byte, opts ...Option) (*Checkpoint, error) {
	c, err := decode(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	return c, nil
}

// Decode reads one checkpoint from r, consuming exactly its bytes; it does
// not look at what follows. What it allocates grows with the bytes r really
// delivers, never with what the prefix claims.
func Decode(r io.Reader, opts ...Option) (*Checkpoint, error) {
	c, err := decode(r, -1, opts)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	return c, nil
}

// decode reads a checkpoint from r; size is the exact input length when
// known (a file or a slice), -1 for a stream. Errors are not prefixed.
func decode(r io.Reader, size int64, opts []Option) (*Checkpoint, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	var prefix [prefixLen]byte
	n, err := io.ReadFull(r, prefix[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("read: %w", err)
	}
	rawLen, frameLen, err := checkPrefix(prefix[:n], size, o.maxBytes)
	if err != nil {
		return nil, err
	}

	// The frame and the checksum: from a slice or a sized file the length
	// was checked above; from a stream, read what is really there.
	rest, err := readN(r, int64(frameLen)+trailerLen, size >= 0)
	if err != nil {
		return nil, err
	}
	frame := rest[:frameLen]
	want := binary.LittleEndian.Uint32(rest[frameLen:])
	if got := crc32.Update(crc32.Checksum(prefix[:], castagnoli), castagnoli, frame); got != want {
		end := prefixLen + frameLen
		return nil, errf(ErrCorrupt, "offset %d: CRC-32C of bytes [0,%d) is %#08x, file says %#08x", end, end, got, want)
	}

	_, dec, err := codecs()
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	body, err := dec.DecodeAll(frame, make([]byte, 0, rawLen))
	if err != nil {
		return nil, errf(ErrCorrupt, "offset %d: zstd: %v", prefixLen, err)
	}
	if uint64(len(body)) != rawLen {
		return nil, errf(ErrCorrupt, "offset %d: zstd frame decodes to %d bytes, prefix says %d", prefixLen, len(body), rawLen)
	}
	return decodeBody(body, o.featureVersion)
}

// checkPrefix validates the fixed prefix p (possibly short) before anything
// is allocated from it and returns the body and frame lengths. The order of
// the checks fixes which error a damaged file gets: magic, version,
// truncation of the prefix, limits, then the file length.
func checkPrefix(p []byte, size int64, maxBytes int64) (rawLen, frameLen uint64, err error) {
	m := min(len(p), len(Magic))
	if !bytes.Equal(p[:m], []byte(Magic[:m])) {
		return 0, 0, errf(ErrNotCheckpoint, "offset 0: magic %q, want %q", p[:m], Magic)
	}
	if len(p) >= offVersion+4 {
		if v := binary.LittleEndian.Uint32(p[offVersion:]); v != FormatVersion {
			return 0, 0, errf(ErrVersion, "offset %d: version %d, this build reads %d", offVersion, v, FormatVersion)
		}
	}
	if len(p) < prefixLen {
		return 0, 0, errf(ErrTruncated, "%d bytes, shorter than the %d-byte prefix", len(p), prefixLen)
	}
	rawLen = binary.LittleEndian.Uint64(p[offRawLen:])
	frameLen = binary.LittleEndian.Uint64(p[offFrameLen:])
	switch {
	case rawLen > uint64(maxBytes):
		return 0, 0, errf(ErrTooLarge, "offset %d: body of %d bytes, limit %d (WithMaxBytes)", offRawLen, rawLen, maxBytes)
	case rawLen < minBodyLen:
		return 0, 0, errf(ErrCorrupt, "offset %d: body of %d bytes, want ≥ %d", offRawLen, rawLen, minBodyLen)
	case frameLen == 0 || frameLen > compressBound(rawLen):
		return 0, 0, errf(ErrCorrupt, "offset %d: zstd frame of %d bytes cannot hold a body of %d", offFrameLen, frameLen, rawLen)
	case rawLen > frameLen*maxExpansion:
		return 0, 0, errf(ErrCorrupt, "offset %d: a %d-byte zstd frame cannot decode to %d bytes", offRawLen, frameLen, rawLen)
	}
	if size >= 0 {
		want := prefixLen + int64(frameLen) + trailerLen
		if size < want {
			return 0, 0, errf(ErrTruncated, "%d bytes, the prefix announces %d", size, want)
		}
		if size > want {
			return 0, 0, errf(ErrCorrupt, "%d bytes after the checksum at offset %d", size-want, want-trailerLen)
		}
	}
	return rawLen, frameLen, nil
}
