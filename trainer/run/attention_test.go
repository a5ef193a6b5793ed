package run

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// An online run of the attention network on the simulator, on both
// backends: the checkpoint records the arch, the layout peers-v1 and the
// network's width; a run stopped after one iteration and resumed ends with
// the bits of one that never stopped; the export says arch attention.
func TestRunAttention(t *testing.T) {
	for _, backend := range []string{"kernel", "gorgonia"} {
		t.Run(backend, func(t *testing.T) {
			base := simConfig(t)
			base.Train.Backend, base.Train.Arch, base.Train.AttnDim = backend, trainer.ArchAttention, 8
			whole := base
			whole.Dir = filepath.Join(t.TempDir(), "whole")
			res, err := Train(context.Background(), whole, Hooks{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Policy.Attn != 8 || res.Policy.In() != metapolicy.FeatureWidthPeers {
				t.Fatalf("trained a network of width %d reading %d features", res.Policy.Attn, res.Policy.In())
			}
			rs, err := Latest(whole.Dir)
			if err != nil {
				t.Fatal(err)
			}
			var stored trainer.Config
			if err := json.Unmarshal(rs.Checkpoint.Header.Train, &stored); err != nil {
				t.Fatal(err)
			}
			if stored.Arch != trainer.ArchAttention || stored.AttnDim != 8 || rs.Checkpoint.Header.FeatureVersion != metapolicy.FeatureVersionPeers {
				t.Errorf("checkpoint: arch %q, width %d, features %q", stored.Arch, stored.AttnDim, rs.Checkpoint.Header.FeatureVersion)
			}
			_, meta, err := checkpoints.LoadSafetensors(filepath.Join(whole.Dir, "policy.safetensors"), checkpoints.WithFeatureVersion(metapolicy.FeatureVersionPeers))
			if err != nil || meta[checkpoints.MetaArch] != checkpoints.ArchAttention || meta[checkpoints.MetaAttnDim] != "8" {
				t.Errorf("export: %v, metadata %v", err, meta)
			}

			part := base
			part.Dir = filepath.Join(t.TempDir(), "part")
			part.Train.RL.Iterations = 1
			if _, err := Train(context.Background(), part, Hooks{}); err != nil {
				t.Fatal(err)
			}
			if part.Resume, err = Latest(part.Dir); err != nil {
				t.Fatal(err)
			}
			part.Train.RL.Iterations = base.Train.RL.Iterations
			resumed, err := Train(context.Background(), part, Hooks{})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if !slices.Equal(resumed.Policy.Params, res.Policy.Params) || resumed.Steps != res.Steps {
				t.Errorf("resumed run differs from the whole run (%d and %d steps)", resumed.Steps, res.Steps)
			}
		})
	}
}
