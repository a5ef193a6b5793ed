package trainer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// A pack and the JSONL it was packed from deliver the same decisions.
func TestDatasetPackEqualsJSONL(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	w := data.NewWriter(&buf)
	for i := 0; i < 50; i++ {
		f := make([]float64, metapolicy.FeatureWidth)
		f[1] = float64(i) / 4
		lp := -0.5
		d := data.Decision{Group: fmt.Sprintf("g%d", i/5), Features: f, Action: metapolicy.Action(i % 3), Reward: float64(i % 4), LogProb: &lp}
		if err := w.WriteDecision(&d); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	src := filepath.Join(dir, "d.jsonl")
	os.WriteFile(src, buf.Bytes(), 0o644)
	r, err := data.Open([]string{src}, data.ReaderOptions{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(dir, "pack")
	if _, err := data.WritePack(pack, r, data.PackOptions{RowsPerShard: 7}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	collect := func(path string) (rows []string) {
		_, err := (&Dataset{Paths: []string{path}}).Pass(func(s *Samples) error {
			for i := range s.Actions {
				rows = append(rows, fmt.Sprint(s.Groups[i], s.Features[i*metapolicy.FeatureWidth+1], s.Actions[i], s.Rewards[i], s.LogProb[i]))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	a, b := collect(src), collect(pack)
	if len(a) != 50 || !slices.Equal(a, b) {
		t.Errorf("JSONL gave %d rows, pack %d; equal: %v", len(a), len(b), slices.Equal(a, b))
	}
	// The pack's rows carry its gamma's returns (0 here): a run that
	// asks for another is refused, naming the pack.
	_, err = (&Dataset{Paths: []string{pack}, Reward: data.RewardConfig{WLocal: 1, WGlobal: 1, Gamma: 0.5}}).Pass(func(*Samples) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "gamma") || !strings.Contains(err.Error(), pack) {
		t.Errorf("pack of γ=0 trained with γ=0.5: err %v, want one naming the pack and gamma", err)
	}
	bad := filepath.Join(dir, "nope")
	os.Mkdir(bad, 0o755)
	if _, err := (&Dataset{Paths: []string{bad}}).Pass(func(*Samples) error { return nil }); err == nil {
		t.Error("a directory without a pack accepted")
	}
}

// Offline, a pass over episode records computes each decision's return
// from its own episode (data.Returns), whatever the chunk size: the
// 3-round, 2-agent episode of data's TestReturnsByHand, γ = 0.5.
func TestDatasetGammaReturns(t *testing.T) {
	act := func(a metapolicy.Action) *metapolicy.Action { return &a }
	turns := func(acts []metapolicy.Action, answers ...string) data.Round {
		var r data.Round
		for i, a := range answers {
			u := data.Turn{Answer: a}
			if acts != nil {
				u.Action = act(acts[i])
			}
			r.Turns = append(r.Turns, u)
		}
		return r
	}
	R, P := metapolicy.Refine, metapolicy.Persist
	ep := &data.Episode{Kind: data.KindEpisode, ID: "e", Task: "t", Gold: "4", Agents: 2, Rounds: []data.Round{
		turns(nil, "3", "4"), turns([]metapolicy.Action{R, P}, "3", "4"),
		turns([]metapolicy.Action{R, P}, "4", "4"), turns([]metapolicy.Action{P, R}, "4", "5")}}
	var buf bytes.Buffer
	w := data.NewWriter(&buf)
	for range 3 {
		if err := w.WriteEpisode(ep); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	src := filepath.Join(t.TempDir(), "e.jsonl")
	os.WriteFile(src, buf.Bytes(), 0o644)
	want := []float64{-0.25, -0.25, 1.5, -0.5, 1, -1}
	for _, chunk := range []int{1, 4, 0} {
		var got []float64
		ds := &Dataset{Paths: []string{src}, ChunkRows: chunk, Reward: data.RewardConfig{WLocal: 1, WGlobal: 1, Gamma: 0.5}}
		if _, err := ds.Pass(func(s *Samples) error { got = append(got, s.Rewards...); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3*len(want) {
			t.Fatalf("chunk %d: %d rows", chunk, len(got))
		}
		for i, r := range got {
			if r != want[i%len(want)] {
				t.Errorf("chunk %d: row %d return %v, want %v", chunk, i, r, want[i%len(want)])
			}
		}
	}
}

// A pack trains as its rollout files do when its blocks have the rows of
// a JSONL chunk (PackBlockRows and DefaultBatchRows, the defaults): the
// same rollout batches, row for row, whatever its shard size — so the
// same run, and memory that follows the block, not the shard.
func TestDatasetPackChunksAsJSONL(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	w := data.NewWriter(&buf)
	for i := range 97 {
		f := make([]float64, metapolicy.FeatureWidth)
		f[2] = float64(i)
		d := data.Decision{Group: fmt.Sprintf("g%d", i/4), Features: f, Action: metapolicy.Action(i % 3), Reward: float64(i % 5)}
		if err := w.WriteDecision(&d); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	src := filepath.Join(dir, "d.jsonl")
	os.WriteFile(src, buf.Bytes(), 0o644)
	chunks := func(ds *Dataset) (out [][]float32) {
		if _, err := ds.Pass(func(s *Samples) error {
			var c []float32
			for i := range s.Len() {
				c = append(c, s.Features[i*metapolicy.FeatureWidth+2])
			}
			out = append(out, c)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := chunks(&Dataset{Paths: []string{src}, ChunkRows: 10})
	if len(want) < 9 {
		t.Fatalf("%d chunks from the JSONL: the test needs several", len(want))
	}
	for _, rowsPerShard := range []int{10, 30, 1000} {
		r, err := data.Open([]string{src}, data.ReaderOptions{Hash: true})
		if err != nil {
			t.Fatal(err)
		}
		pack := filepath.Join(dir, fmt.Sprint("pack", rowsPerShard))
		if _, err := data.WritePack(pack, r, data.PackOptions{RowsPerShard: rowsPerShard, BlockRows: 10}); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if d := cmp.Diff(want, chunks(&Dataset{Paths: []string{pack}})); d != "" {
			t.Errorf("shards of %d rows: chunks (-JSONL +pack):\n%s", rowsPerShard, d)
		}
	}
}

// A run reads its data once a pass: what the log says of the data (a
// rejected record, the counts) it says on the first pass, not again on
// every later one, while every pass still counts what it rejected.
func TestDatasetLogsTheFirstPassOnly(t *testing.T) {
	var buf bytes.Buffer
	w := data.NewWriter(&buf)
	for k := range 2 {
		d := data.Decision{Group: "g", Features: make([]float64, metapolicy.FeatureWidth), Action: metapolicy.Refine, Reward: float64(k)}
		if err := w.WriteDecision(&d); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	buf.WriteString("{\"kind\":\"decision\",\"group\":7}\n")
	path := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	ds := &Dataset{Paths: []string{path}, Skip: true, Log: &log}
	for pass := range 3 {
		st, err := ds.Pass(func(*Samples) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if st.Rows != 2 || st.Counts.Rejected != 1 {
			t.Errorf("pass %d: %d rows, %d rejected; want 2 and 1", pass, st.Rows, st.Counts.Rejected)
		}
	}
	if n := strings.Count(log.String(), "d.jsonl:3"); n != 1 {
		t.Errorf("the rejected record logged %d times over 3 passes, want once:\n%s", n, log.String())
	}
	if n := strings.Count(log.String(), "read ["); n != 1 {
		t.Errorf("the counts logged %d times over 3 passes, want once:\n%s", n, log.String())
	}
}
