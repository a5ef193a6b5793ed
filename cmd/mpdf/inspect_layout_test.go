package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// inspect says a v2 policy runs here (issue 20, item 10: it said any
// policy not of the default layout "cannot run here"), for the checkpoint
// and its export; the default layout still "matches".
func TestInspectV2RunsHere(t *testing.T) {
	dir := t.TempDir()
	pol, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidthV2, 8, metapolicy.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	pol.Init(1)
	ckpt := filepath.Join(dir, "v2.mpdf")
	if err := checkpoints.Save(ckpt, &checkpoints.Checkpoint{
		Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersionV2, Step: 3},
		Policy: pol,
	}); err != nil {
		t.Fatal(err)
	}
	text := mustRun(t, "inspect", ckpt)
	if strings.Contains(text, "cannot run") || !strings.Contains(text, metapolicy.FeatureVersionV2+" (a layout this build runs") {
		t.Errorf("inspect of a v2 checkpoint:\n%s", text)
	}
	var info checkpoints.Info
	if err := json.Unmarshal([]byte(mustRun(t, "inspect", ckpt, "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if !info.RunsHere || info.Usable {
		t.Errorf("inspect --json: runs here %v, matches the default %v; want true, false", info.RunsHere, info.Usable)
	}
	st := filepath.Join(dir, "v2.safetensors")
	mustRun(t, "export", ckpt, "--safetensors", st)
	if text := mustRun(t, "inspect", st); strings.Contains(text, "cannot run") || strings.Contains(text, "warning") {
		t.Errorf("inspect of a v2 export:\n%s", text)
	}
}
