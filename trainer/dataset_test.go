package trainer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// A group is delivered whole even when a read boundary falls inside it, and
// every row is delivered exactly once.
func TestDatasetKeepsContiguousGroupsWhole(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	w := data.NewWriter(&buf)
	sizes := []int{3, 5, 1, 7, 2, 4}
	total := 0
	for g, n := range sizes {
		for k := 0; k < n; k++ {
			f := make([]float64, metapolicy.FeatureWidth)
			f[0] = float64(total)
			d := data.Decision{Group: fmt.Sprintf("g%d", g), Features: f, Action: metapolicy.Refine, Reward: float64(k)}
			if err := w.WriteDecision(&d); err != nil {
				t.Fatal(err)
			}
			total++
		}
	}
	w.Flush()
	path := filepath.Join(dir, "d.jsonl")
	os.WriteFile(path, buf.Bytes(), 0o644)
	for _, chunk := range []int{1, 2, 4, 6, 100} {
		ds := &Dataset{Paths: []string{path}, ChunkRows: chunk}
		seen := map[float32]int{}
		groupsSeen := map[string]int{}
		st, err := ds.Pass(func(s *Samples) error {
			in := map[string]int{}
			for i, g := range s.Groups {
				in[g]++
				seen[s.Features[i*metapolicy.FeatureWidth]]++
			}
			for g, n := range in {
				groupsSeen[g]++
				var want int
				fmt.Sscanf(g, "g%d", &want)
				if n != sizes[want] {
					t.Errorf("chunk rows %d: group %s delivered with %d of %d rows", chunk, g, n, sizes[want])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if st.Rows != int64(total) || len(seen) != total {
			t.Errorf("chunk rows %d: %d rows delivered, %d distinct, want %d", chunk, st.Rows, len(seen), total)
		}
		for r, n := range seen {
			if n != 1 {
				t.Errorf("chunk rows %d: row %v delivered %d times", chunk, r, n)
			}
		}
		for g, n := range groupsSeen {
			if n != 1 {
				t.Errorf("chunk rows %d: group %s in %d chunks", chunk, g, n)
			}
		}
	}
}
