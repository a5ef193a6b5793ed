package checkpoints

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// bombFile is a checkpoint file with a sound prefix and CRC whose zstd
// frame holds head followed by zeros up to rawLen bytes: a few KB on disk
// that decompress to rawLen.
func bombFile(t testing.TB, head []byte, rawLen int) []byte {
	t.Helper()
	var frame bytes.Buffer
	zw, err := zstd.NewWriter(&frame, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithWindowSize(windowSize))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(head)
	zeros := make([]byte, 1<<20)
	for n := rawLen - len(head); n > 0; n -= len(zeros) {
		zw.Write(zeros[:min(n, len(zeros))])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, prefixLen, prefixLen+frame.Len()+trailerLen)
	copy(b, Magic)
	binary.LittleEndian.PutUint32(b[offVersion:], FormatVersion)
	binary.LittleEndian.PutUint64(b[offRawLen:], uint64(rawLen))
	binary.LittleEndian.PutUint64(b[offFrameLen:], uint64(frame.Len()))
	b = append(b, frame.Bytes()...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// TestBombRefusedBeforeDecompressing reads a 256 MiB decompression bomb
// (issue 34, cause 1: a 33 KB file whose body unpacks to 1 GiB cost ~1 GB
// before "corrupt header"): a body whose header does not account for its
// length is refused after decompressing the header alone, allocating a few
// MiB, not the body.
func TestBombRefusedBeforeDecompressing(t *testing.T) {
	const rawLen = 256 << 20
	for _, c := range []struct {
		name string
		head []byte
	}{
		// A garbage header: 2 bytes "{}", no model.
		{"empty-header", append(binary.LittleEndian.AppendUint32(nil, 2), "{}"...)},
		// A header of 1 GiB announced: over maxHeaderBytes.
		{"huge-header", binary.LittleEndian.AppendUint32(nil, 1<<30)},
		// A sound header of a small model: the body is far longer.
		{"small-model", func() []byte {
			js := []byte(`{"feature_version":"x","step":0,"seed":0,"model":{"sizes":[4,5,3],"activation":"tanh"},"reference":false,"rng_bytes":0}`)
			return append(binary.LittleEndian.AppendUint32(nil, uint32(len(js))), js...)
		}()},
	} {
		b := bombFile(t, c.head, rawLen)
		t.Logf("%s: %d-byte file, body %d bytes", c.name, len(b), rawLen)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := Unmarshal(b)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: %v, want ErrCorrupt", c.name, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
			t.Errorf("%s: allocated %d MiB reading the bomb, want under 32 MiB (%v)", c.name, got>>20, err)
		}
	}
}
