package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
)

// sharedFiles lists every shared transcript file (as mpdf import
// ../shared/data/debates/*/*/*.json reads them) and their total size.
func sharedFiles(b *testing.B) ([]string, int64) {
	paths := testenv.Debates(b, "*/*/*.json")
	var n int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	return paths, n
}

// perCPU runs the loop body and reports MB per CPU-second (cpuTime) beside
// ns/op: with GOMAXPROCS=1, what one core reads, whatever else runs.
func perCPU(b *testing.B, size int64, body func()) {
	c0 := cpuTime()
	for b.Loop() {
		body()
	}
	if c := cpuTime() - c0; c > 0 && c0 > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/c.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkImportShared imports every shared transcript into one
// .jsonl.zst, as mpdf import does: MB/s of transcript read.
func BenchmarkImportShared(b *testing.B) {
	paths, size := sharedFiles(b)
	out := filepath.Join(b.TempDir(), "all.jsonl.zst")
	b.SetBytes(size)
	b.ReportAllocs()
	perCPU(b, size, func() {
		if _, err := Import(out, paths, ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkEachShared reads every shared transcript with Each, as mpdf data
// corpus does, and keeps nothing: MB/s of transcript read, by the fast
// path and by the encoding/json path alone (the choice of decoder).
func BenchmarkEachShared(b *testing.B) {
	paths, size := sharedFiles(b)
	for _, slow := range []bool{false, true} {
		name := "path=fast"
		if slow {
			name = "path=encoding-json"
		}
		b.Run(name, func(b *testing.B) {
			slowOnly = slow
			defer func() { slowOnly = false }()
			b.SetBytes(size)
			b.ReportAllocs()
			perCPU(b, size, func() {
				for _, p := range paths {
					f, err := os.Open(p)
					if err != nil {
						b.Fatal(err)
					}
					_, err = Each(f, p, Options{SkipCritic: true}, func(*Question) error { return nil })
					f.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkPlainJSONShared is the peer of the two above: encoding/json
// decoding every shared file into an empty interface, reading no answer.
func BenchmarkPlainJSONShared(b *testing.B) {
	paths, size := sharedFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	perCPU(b, size, func() {
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
