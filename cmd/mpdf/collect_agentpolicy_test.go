package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// collect plays a policy with a network per agent slot (a checkpoint of
// several networks) against a live server as it plays any policy.
func TestCollectDecoupledPolicy(t *testing.T) {
	srv := newChatServer(t, "40 + 2 = 42, so the total is \\boxed{42}.")
	dir := t.TempDir()
	ref, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 8, nn.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	ref.Init(1)
	ck := &checkpoints.Checkpoint{Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersion},
		Reference: ref, NetKeys: []string{"slot:0", "slot:1"}}
	for k := range 2 {
		m := ref.Clone()
		m.Init(uint64(2 + k))
		ck.Nets = append(ck.Nets, m)
	}
	ck.Policy = ck.Nets[0]
	pol := filepath.Join(dir, "slots.mpdf")
	if err := checkpoints.Save(pol, ck); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id":"a","question":"What is 40 + 2?","gold":"42","kind":"gsm"}`+"\n"), 0o644)
	out := filepath.Join(dir, "live.jsonl")
	stdout := mustRun(t, "collect", "--base-url", srv.URL+"/v1", "--model", "m", "--tasks-file", tasks,
		"--policy", pol, "--rounds", "2", "--agents", "3", "--timeout", "10s", "--retries", "0", "-q", "--out", out)
	if !strings.Contains(stdout, "wrote 1 episodes") {
		t.Errorf("collect summary:\n%s", stdout)
	}
	recs, c := readAll(t, out)
	if c.Episodes != 1 || len(recs[0].Episode.Rounds) != 3 {
		t.Fatalf("counts %+v", c)
	}
}
