package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
)

// The flag groups: the reward group takes data's defaults and words a
// constant reward as its flags; --kind and --critic become parts of --env
// before the command runs; a bad --layout is refused naming the flag.
func TestGroups(t *testing.T) {
	cmd := &cobra.Command{Use: "stats"}
	var r rewardFlags
	r.Add(cmd)
	if c, err := r.Config(); err != nil || c != data.DefaultRewardConfig() || r.Changed(cmd) {
		t.Errorf("defaults: %+v, %v, changed %v", c, err, r.Changed(cmd))
	}
	if err := cmd.ParseFlags([]string{"--w-local", "0", "--w-global", "0", "--lambda", "0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Config(); err == nil || !strings.HasPrefix(err.Error(), "--w-local, --w-global and --lambda are all 0") || !r.Changed(cmd) {
		t.Errorf("constant reward: %v", err)
	}

	spec := "replay:a.json"
	train := &cobra.Command{Use: "train", SilenceErrors: true, SilenceUsage: true, RunE: func(*cobra.Command, []string) error { return nil }}
	envKind(train, &spec)
	envCritic(train, &spec)
	train.SetArgs([]string{"--kind", "gsm8k", "--critic"})
	if err := train.Execute(); err != nil || spec != "replay:a.json,kind=gsm8k,critic=on" {
		t.Errorf("--kind and --critic into --env: %q, %v", spec, err)
	}
	spec = "sim"
	train.SetArgs([]string{"--kind", "math"})
	if err := train.Execute(); err == nil || !strings.HasPrefix(err.Error(), "--kind math and --env: ") {
		t.Errorf("--kind on the simulator: %v", err)
	}

	var tr transcriptFlags
	imp := &cobra.Command{Use: "import"}
	tr.Add(imp.Flags())
	if err := imp.ParseFlags([]string{"--layout", "nope"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tr.Inputs(nil); err == nil || !strings.HasPrefix(err.Error(), "--layout: ") {
		t.Errorf("bad layout: %v", err)
	}
}
