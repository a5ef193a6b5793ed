package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
)

// checkWeights fails unless dir's policy.safetensors holds exactly the
// weights of dir's checkpoint file name, with its step and SHA-256.
func checkWeights(t *testing.T, dir, name string) *checkpoints.Checkpoint {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := checkpoints.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	m, meta, err := checkpoints.LoadSafetensors(filepath.Join(dir, WeightsName))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Params, c.Policy.Params) || !slices.Equal(m.Sizes, c.Policy.Sizes) || m.Act != c.Policy.Act {
		t.Errorf("%s does not hold %s's weights (sizes %v, %v)", WeightsName, name, m.Sizes, c.Policy.Sizes)
	}
	sum := sha256.Sum256(data)
	want := map[string]string{
		MetaCheckpoint: name, MetaCheckpointSHA256: hex.EncodeToString(sum[:]),
		MetaStep: strconv.FormatInt(c.Header.Step, 10), MetaWeights: "policy", MetaHidden: "8",
		checkpoints.MetaActivation: "tanh", checkpoints.MetaFeatureVersion: c.Header.FeatureVersion,
		checkpoints.MetaConfidenceSource: checkpoints.ConfidenceGiven,
	}
	for k, v := range want {
		if meta[k] != v {
			t.Errorf("%s metadata %s = %q, want %q", WeightsName, k, meta[k], v)
		}
	}
	return c
}

// policy.safetensors is best.mpdf's weights, not the last step's: here
// the best metric (the supervised loss) only the step-0 checkpoint has,
// so that best.mpdf is step 0 and the run ends two iterations later.
func TestWeightsAreBest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := simConfig(t)
	cfg.Dir, cfg.BestMetric = dir, "-sft_loss"
	res, err := Train(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	best := checkWeights(t, dir, checkpoints.BestName)
	if best.Header.Step != 0 || res.Steps == 0 || slices.Equal(best.Policy.Params, res.Policy.Params) {
		t.Fatalf("best.mpdf at step %d, run ended at step %d: the test needs them apart", best.Header.Step, res.Steps)
	}

	// A run killed between writing best.mpdf and its weights leaves the
	// previous weights (here: the last step's, as a run used to write);
	// the next resume or finish puts best.mpdf's back.
	last, err := checkpoints.Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := checkpoints.Load(last)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, WeightsName)
	if err := checkpoints.SaveSafetensors(stale, lc.Policy, map[string]string{MetaCheckpoint: checkpoints.BestName}); err != nil {
		t.Fatal(err)
	}
	if err := syncWeights(dir); err != nil {
		t.Fatal(err)
	}
	checkWeights(t, dir, checkpoints.BestName)
}

// With the default metric, policy.safetensors follows best.mpdf through
// the run; a run without a best.mpdf (no RL iteration) exports its latest
// checkpoint and says which.
func TestWeightsFollowBest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cfg := simConfig(t)
	cfg.Dir = dir
	cfg.Train.RL.Iterations = 4
	var seen []string // the step policy.safetensors records after each iteration
	hooks := Hooks{Iteration: func(it Iteration) {
		_, meta, err := checkpoints.LoadSafetensors(filepath.Join(dir, WeightsName))
		if err != nil {
			t.Errorf("iteration %d: %v", it.Iter, err)
			return
		}
		seen = append(seen, meta[MetaStep])
		checkWeights(t, dir, checkpoints.BestName)
	}}
	if _, err := Train(context.Background(), cfg, hooks); err != nil {
		t.Fatal(err)
	}
	checkWeights(t, dir, checkpoints.BestName)
	if len(seen) != 4 {
		t.Errorf("weights seen after %d iterations, want 4", len(seen))
	}

	none := filepath.Join(t.TempDir(), "none")
	cfg = simConfig(t)
	cfg.Dir = none
	cfg.Train.RL.Iterations, cfg.Train.SFT.Epochs = 0, 0
	if _, err := Train(context.Background(), cfg, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(none, checkpoints.BestName)); err == nil {
		t.Fatal("a run without RL or supervised loss wrote best.mpdf")
	}
	checkWeights(t, none, checkpoints.StepName(0))
}
