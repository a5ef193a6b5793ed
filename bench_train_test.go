package mpdf_test

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// makePack simulates episodes of a random policy and packs their decisions
// (shards of rowsPerShard rows) into a temporary directory. It returns the
// pack's directory and its size on disk.
func makePack(b *testing.B, tasks, episodes, rowsPerShard int) (string, int64) {
	b.Helper()
	dir := b.TempDir()
	sim, err := sim.New(sim.Config{Seed: 1, Tasks: tasks})
	if err != nil {
		b.Fatal(err)
	}
	pol, _ := metapolicy.NewHeuristic("random")
	src := filepath.Join(dir, "episodes.jsonl.zst")
	w, err := data.Create(src)
	if err != nil {
		b.Fatal(err)
	}
	err = env.Play(sim, pol, env.RunOptions{Episodes: episodes, Seed: 2}, func(ep *data.Episode) error { return w.WriteEpisode(ep) })
	if err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	r, err := data.Open([]string{src}, data.ReaderOptions{Hash: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	pack := filepath.Join(dir, "pack")
	if _, err := data.WritePack(pack, r, data.PackOptions{RowsPerShard: rowsPerShard}); err != nil {
		b.Fatal(err)
	}
	var size int64
	entries, _ := os.ReadDir(pack)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			size += fi.Size()
		}
	}
	return pack, size
}

// peakHeap samples the live heap every 100 µs until stop is called, and
// returns the highest value seen.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// BenchmarkTrainPass trains SoftRankPO offline on a packed data set, one
// full pass per iteration — read, decompress, group, reference and behaviour
// log-probabilities, advantages, the update epochs of minibatch steps — as
// `mpdf train` runs it on a pack of `mpdf data pack`'s defaults (the default
// configuration: minibatches of 512, 4 update epochs, KL early stop at 0.5),
// streaming block by block. It reports decisions·epochs/s (each decision
// counted once per update epoch it was trained in, comparable with
// BenchmarkStep's samples/s), the peak live heap during training against
// the packed size of the data (goal: peak/packed < 2), and the process's
// peak RSS during training (Linux: the high-water mark is reset after the
// pack is made; goal ≤ 200 MiB whatever the data's size).
func BenchmarkTrainPass(b *testing.B) {
	pack, packed := makePack(b, 3000, 8, 0)
	cfg := trainer.DefaultConfig()
	policy, err := trainer.NewPolicy(&cfg, metapolicy.FeatureWidth)
	if err != nil {
		b.Fatal(err)
	}
	backend, err := trainer.NewKernelBackend(policy.Sizes, policy.Act, cfg.Loss, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer backend.Close()
	rl, err := trainer.NewRL(backend, policy, policy.Clone(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	ds := &trainer.Dataset{Paths: []string{pack}}
	// The simulator run and the packing before are not the pass's: their
	// heap is collected and returned to the system before the high-water
	// mark is reset, or the peak RSS would count their leftovers.
	debug.FreeOSMemory()
	rssReset := resetPeakRSS()
	stop := peakHeap()
	var rows, rowEpochs int64
	for b.Loop() {
		st, err := ds.Pass(func(s *trainer.Samples) error {
			res, err := rl.Update(s)
			rowEpochs += int64(s.Len()) * int64(res.Epochs)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		rows += st.Rows
	}
	peak := stop()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(packed)/(1<<20), "packed-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(peak)/float64(packed), "peak/packed")
	if rss, ok := peakRSS(); ok && rssReset {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	}
	b.ReportMetric(float64(rows)/sec, "decisions/s")
	b.ReportMetric(float64(rowEpochs)/sec, "decisions·epochs/s")
}

// resetPeakRSS resets the process's peak resident set (Linux's VmHWM), so
// that peakRSS reports what follows; false where it cannot.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS reads the process's peak resident set in bytes (VmHWM).
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
