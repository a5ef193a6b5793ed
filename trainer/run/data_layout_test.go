package run

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// TestOfflineAttention: rollout files train the attention network offline,
// their episodes featurized in peers-v1 (CheckDataIn, Dataset.Layout); a
// pack must have been packed in that layout; the checkpoint records it.
func TestOfflineAttention(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	s, err := sim.New(sim.Config{Seed: 1, Tasks: 40})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := metapolicy.ParseHeuristic(metapolicy.HeuristicRandom)
	eps, err := env.Collect(s, pol, env.RunOptions{NumTasks: 40, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	w, err := data.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range eps {
		if err := w.WriteEpisode(&eps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := CheckDataIn([]string{path}, 0, metapolicy.FeatureVersionPeers)
	if err != nil {
		t.Fatal(err)
	}
	if d.Width != metapolicy.FeatureWidthPeers || d.Layout != metapolicy.FeatureVersionPeers {
		t.Fatalf("data %+v", d)
	}
	cfg := trainer.DefaultConfig()
	cfg.Arch, cfg.SFT.Epochs, cfg.RL.Iterations, cfg.Hidden = trainer.ArchAttention, 1, 1, []int{8}
	res, err := Train(context.Background(), Config{Train: cfg, Data: &trainer.Dataset{Paths: []string{path}, Reward: cfg.Reward, Width: d.Width, Layout: d.Layout},
		DataID: d.ID, FeatureWidth: d.Width, FeatureVersion: d.FeatureVersion, Threads: 1}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Policy.Attn != trainer.DefaultAttnDim {
		t.Errorf("trained a network of attention width %d", res.Policy.Attn)
	}
	// A pack in the default layout is refused, naming the flag that fixes it.
	r, err := data.Open([]string{path}, data.ReaderOptions{Hash: true})
	if err != nil {
		t.Fatal(err)
	}
	pack := filepath.Join(dir, "p")
	if _, err := data.WritePack(pack, r, data.PackOptions{Reward: cfg.Reward}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := CheckDataIn([]string{pack}, 0, metapolicy.FeatureVersionPeers); err == nil || !strings.Contains(err.Error(), "--features "+metapolicy.FeatureVersionPeers) {
		t.Errorf("a v1 pack for a peers-v1 policy: %v", err)
	}
}
