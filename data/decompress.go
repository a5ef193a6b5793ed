package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Decompress returns a reader of r's content, decompressed when it starts
// with gzip's or zstd's magic bytes (whatever the name says); a name
// ending in .gz or .zst over a stream without those bytes is an error.
// Close releases the decoder, not r. It lets packages that read other
// formats (transcript) take compressed files without importing the
// compression libraries, which this package owns.
func Decompress(r io.Reader, name string) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, _ := br.Peek(4)
	ext := strings.ToLower(filepath.Ext(name))
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("data: %s: gzip: %w", name, err)
		}
		return gz, nil
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zd, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("data: %s: zstd: %w", name, err)
		}
		return zd.IOReadCloser(), nil
	case ext == ".gz" || ext == ".zst":
		return nil, fmt.Errorf("data: %s: not a %s stream (bad magic bytes %x)", name, ext[1:], magic)
	}
	return plain{br}, nil
}

// plain is an uncompressed stream from Decompress.
type plain struct{ io.Reader }

func (plain) Close() error { return nil }

// Compressed reports whether r, from Decompress, decompresses: an early
// end of its stream then means a truncated file (gzip's trailer missing,
// say), which a reader's message should say.
func Compressed(r io.Reader) bool {
	_, p := r.(plain)
	return !p
}
