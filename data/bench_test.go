package data

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// BenchmarkRead measures how fast training decisions reach Columns, the
// trainer's input: from JSON Lines decision records, from episodes (reward
// and features computed on the fly), and from a pack. MB/s counts the
// bytes as stored; records/s counts decisions delivered.
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	const n = 20000
	writeDataset(b, dir, "d.jsonl", n, metapolicy.FeatureWidth, 1)
	writeDataset(b, dir, "d.jsonl.zst", n, metapolicy.FeatureWidth, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	w, _ := Create(filepath.Join(dir, "e.jsonl"))
	for i := range n / 8 {
		ep := randomEpisode(rng, i)
		ep.Gold = "1"
		w.WriteEpisode(ep)
	}
	w.Close()
	pack := filepath.Join(dir, "pack")
	packDir(b, pack, PackOptions{RowsPerShard: 4096}, filepath.Join(dir, "d.jsonl"))

	size := func(paths ...string) int64 {
		var s int64
		for _, p := range paths {
			fi, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			s += fi.Size()
		}
		return s
	}
	fromJSONL := func(name string) func(b *testing.B) {
		return func(b *testing.B) {
			path := filepath.Join(dir, name)
			b.SetBytes(size(path))
			b.ReportAllocs()
			var cols Columns
			rows := 0
			for b.Loop() {
				r, err := Open([]string{path}, ReaderOptions{})
				if err != nil {
					b.Fatal(err)
				}
				s, _ := NewDecisionStream(r, RewardConfig{})
				rows += drain(b, s, &cols)
				r.Close()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "records/s")
		}
	}
	b.Run("format=jsonl/kind=decision", fromJSONL("d.jsonl"))
	b.Run("format=jsonl.zst/kind=decision", fromJSONL("d.jsonl.zst"))
	b.Run("format=jsonl/kind=episode", fromJSONL("e.jsonl"))
	b.Run("format=packed/kind=decision", func(b *testing.B) {
		p, err := OpenPack(pack)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		var total int64
		for _, s := range p.Shards() {
			total += s.Bytes
		}
		b.SetBytes(total)
		b.ReportAllocs()
		var cols Columns
		rows := 0
		for b.Loop() {
			rows += drain(b, p.Scan(SelectAll), &cols)
		}
		b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "records/s")
	})
}

func drain(b *testing.B, src ColumnReader, cols *Columns) int {
	rows := 0
	for {
		err := src.ReadColumns(cols)
		if err == io.EOF {
			return rows
		}
		if err != nil {
			b.Fatal(err)
		}
		rows += cols.Len()
	}
}
