package checkpoints

// File format, version 1.
//
// All integers are little-endian.
//
//	offset  size  field
//	0       8     magic "MPDFCKPT"
//	8       4     format version, uint32 (1)
//	12      8     body length U, uint64: the uncompressed body
//	20      8     frame length C, uint64
//	28      C     one zstd frame (RFC 8878) holding the body; window ≤ 8 MiB,
//	              no zstd content checksum
//	28+C    4     CRC-32C (Castagnoli) of bytes [0, 28+C), uint32
//
// The file ends there: its size is exactly 32+C. The body is
//
//	offset  size  field
//	0       4     header length H, uint32
//	4       H     header, JSON
//	4+H     4P    policy parameters, float32, the flat layout of nn.MLP
//	              (layer 0 first, weights [out, in] row-major, then biases)
//	        4P    reference parameters, when "reference" is true
//	        4P    Adam's first moments M, when "adam" is present
//	        4P    Adam's second moments V, when "adam" is present
//	        R     RNG state, R = "rng_bytes" opaque bytes
//
// where P is the parameter count of "model"."sizes", and the body ends there.
// Each float32 array is stored as four byte planes, the shuffle filter of
// HDF5 and Blosc: byte 0 of each little-endian value x[0..P), then byte 1 of
// each, byte 2, byte 3. The planes of sign and exponent are repetitive and
// zstd shrinks them; interleaved with random mantissas it cannot (a 1M-
// parameter checkpoint compresses to about 85% instead of 100%).
// The header is one JSON object: the fields of Header (feature_version, step,
// seed, metrics, train, data_pos) followed by
//
//	"model":     {"sizes": [in, h1, ..., out], "activation": "tanh"|"relu"}
//	"reference": true|false
//	"adam":      {"config": {"lr", "beta1", "beta2", "eps"}, "step": n}  (absent without Adam)
//	"rng_bytes": R
//
// for example {"feature_version":"mpdf-features/v1","step":3,"seed":7,
// "metrics":{"loss":0.125},"train":{...},"data_pos":{...},"model":{"sizes":[4,5,3],
// "activation":"tanh"},"reference":true,"adam":{...},"rng_bytes":20}.
// Readers ignore unknown header fields; a change that older readers would
// misread gets a new format version instead.
//
// Reading untrusted files: Load, Unmarshal and Decode check, in this order, and stop at the first
// failure, so that each kind of damage gets its own error:
//
//  1. the magic (ErrNotCheckpoint), then the version (ErrVersion);
//  2. a prefix shorter than 28 bytes (ErrTruncated);
//  3. U against the limit, 1 GiB unless WithMaxBytes says otherwise
//     (ErrTooLarge); U ≥ 4, C no larger than zstd's bound for U, and U no
//     more than a C-byte frame can decode to, 32768 bytes per frame byte
//     (ErrCorrupt);
//  4. the file size against 32+C: shorter is ErrTruncated, longer is
//     ErrCorrupt (Unmarshal and Load; Decode reads a stream and stops at the
//     checksum);
//  5. the CRC-32C (ErrCorrupt);
//  6. the body's header, decompressed alone (at most 16 MiB), accounts for
//     exactly U bytes: header, the arrays of the model it describes, the RNG
//     state (ErrCorrupt), so a small frame that expands to the limit is
//     refused before the rest is decompressed; then the frame decodes to
//     exactly U bytes, into a buffer of capacity U that the decoder may not
//     outgrow (ErrCorrupt);
//  7. the body: header JSON, sizes and activation, the body length implied by
//     the header, finite values, V ≥ 0, a valid Adam configuration
//     (ErrCorrupt);
//  8. the feature-schema version against the expected one (ErrFeatureSchema):
//     metapolicy.FeatureVersion unless WithFeatureVersion says otherwise;
//     WithFeatureVersion("") accepts any.
//
// Nothing is allocated from an unchecked length: the lengths are checked
// against the limit, against each other and against the file size first, and
// a stream reader's buffers grow with the bytes that really arrive. A 100-byte
// file cannot make Load allocate more than about 3 MB. Every error names the
// file (Load), the byte offset where it applies, and what was expected, and
// wraps exactly one of the Err values, for errors.Is.
//
// Marshal, Encode, Save and Manager.Save refuse a checkpoint that a reader
// would reject (nil policy, empty feature version, negative step, NaN weight
// or metric, moments of the wrong length, ...), so every file written reads
// back.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zstd"
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

	if err := checkFrameHeader(frame, rawLen); err != nil {
		return nil, err
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

// checkFrameHeader decompresses only the head of the body, its header, and
// checks that the header accounts for exactly rawLen bytes (the model's
// arrays and the RNG state) before the body is decompressed whole: a small
// frame that expands to the limit (a decompression bomb) with a header that
// does not describe that much data is refused after reading at most
// maxHeaderBytes, not after allocating and filling the whole body.
func checkFrameHeader(frame []byte, rawLen uint64) error {
	zr, err := zstd.NewReader(bytes.NewReader(frame),
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(windowSize),
		zstd.WithDecoderLowmem(true),
	)
	if err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	defer zr.Close()
	var n [4]byte
	if _, err := io.ReadFull(zr, n[:]); err != nil {
		return errf(ErrCorrupt, "offset %d: zstd: %v", prefixLen, err)
	}
	hlen := uint64(binary.LittleEndian.Uint32(n[:]))
	if hlen > rawLen-4 {
		return errf(ErrCorrupt, "body offset 0: header of %d bytes in a body of %d", hlen, rawLen)
	}
	if hlen > maxHeaderBytes {
		return errf(ErrCorrupt, "body offset 0: header of %d bytes, limit %d", hlen, maxHeaderBytes)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(zr, hb); err != nil {
		return errf(ErrCorrupt, "offset %d: zstd: %v", prefixLen, err)
	}
	h, err := parseHeader(hb)
	if err != nil {
		return err
	}
	if _, err := checkHeader(h, rawLen-4-hlen); err != nil {
		return errf(ErrCorrupt, "body offset %d: %v", 4+hlen, err)
	}
	return nil
}
