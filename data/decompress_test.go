package data

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestDecompress reads plain, gzip and zstd streams by their magic bytes,
// whatever the name, and refuses a .gz or .zst name over plain bytes.
func TestDecompress(t *testing.T) {
	const text = `{"q": [[], "1"]}`
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(text))
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write([]byte(text))
	zw.Close()
	for _, c := range []struct {
		name string
		raw  []byte
	}{{"a.json", []byte(text)}, {"a.json.gz", gz.Bytes()}, {"a.json.zst", zs.Bytes()}, {"a.json", zs.Bytes()}} {
		r, err := Decompress(bytes.NewReader(c.raw), c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || string(got) != text {
			t.Errorf("%s: read %q, %v", c.name, got, err)
		}
	}
	if _, err := Decompress(strings.NewReader(text), "a.json.zst"); err == nil || !strings.Contains(err.Error(), "a.json.zst") {
		t.Errorf("plain bytes named .zst: %v", err)
	}
}
