package run

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkIdentifyData measures the extra read an offline run makes at
// its start to fingerprint its data (SHA-256 of every byte).
func BenchmarkIdentifyData(b *testing.B) {
	path := filepath.Join(b.TempDir(), "data.jsonl")
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if _, err := IdentifyData([]string{path}); err != nil {
			b.Fatal(err)
		}
	}
}
