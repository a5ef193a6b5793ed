package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/trainer"
)

// A UTF-8 byte order mark before a JSON input is skipped (issue 20, item
// 10: "got 'ï'"): train's --config, the simulator's parameters file. The
// rollout and transcript readers have their own tests.
func TestJSONInputsAcceptBOM(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "cfg.json")
	os.WriteFile(cfgPath, []byte("\xef\xbb\xbf{\"seed\": 11}"), 0o644)
	cfg, err := resolveConfig(trainer.DefaultConfig(), cfgPath, pflag.NewFlagSet("t", pflag.ContinueOnError))
	if err != nil || cfg.Seed != 11 {
		t.Fatalf("--config with a BOM: seed %d, %v", cfg.Seed, err)
	}
	b, err := sim.DefaultParams().MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	simPath := filepath.Join(dir, "sim.json")
	os.WriteFile(simPath, append([]byte("\xef\xbb\xbf"), b...), 0o644)
	if _, err := sim.ReadParams(simPath); err != nil {
		t.Fatalf("simulator parameters with a BOM: %v", err)
	}
}
