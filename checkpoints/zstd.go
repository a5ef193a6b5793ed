package checkpoints

import (
	"sync"

	"github.com/klauspost/compress/zstd"
)

// One encoder and one decoder serve the whole package. Their settings are
// fixed so that the same body always compresses to the same bytes: a single
// goroutine per call (EncodeAll with concurrency 1 is deterministic), the
// default level, and no zstd content checksum (the file's CRC-32C covers the
// frame). EncodeAll and DecodeAll are safe for concurrent use.
var (
	codecOnce sync.Once
	encoder   *zstd.Encoder
	decoder   *zstd.Decoder
	codecErr  error
)

func codecs() (*zstd.Encoder, *zstd.Decoder, error) {
	codecOnce.Do(func() {
		encoder, codecErr = zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false),
			zstd.WithWindowSize(windowSize),
		)
		if codecErr != nil {
			return
		}
		// DecodeAll is limited to the capacity of the destination, which
		// the caller sizes from the checked header, so a frame cannot
		// expand past the length the file announces.
		decoder, codecErr = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecodeAllCapLimit(true),
			zstd.WithDecoderMaxWindow(windowSize),
		)
	})
	return encoder, decoder, codecErr
}

// windowSize is the zstd window of every frame we write (and the most a
// reader accepts): 8 MiB, the default of zstd's default level.
const windowSize = 8 << 20

// maxExpansion bounds how many bytes a zstd frame can decode to per byte of
// frame: an RLE block of 4 bytes (3-byte header + 1 byte) yields at most a
// 128 KiB block. Reading a body of u bytes from a frame of c bytes needs
// u ≤ c·maxExpansion, checked before anything is allocated.
const maxExpansion = (128 << 10) / 4

// compressBound is the largest frame zstd produces for n input bytes:
// incompressible blocks are stored raw, 3 header bytes per 128 KiB block,
// plus an 18-byte frame header at most. Padded generously.
func compressBound(n uint64) uint64 { return n + n/1024 + 64 }
