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

// collect plays an attention network's export (peers-v1) against a live
// server as it plays any learned policy, each decision's probability
// recorded.
func TestCollectAttentionPolicy(t *testing.T) {
	srv := newChatServer(t, "40 + 2 = 42, so the total is \\boxed{42}.")
	dir := t.TempDir()
	m, err := nn.NewAttention[float32](8, []int{nn.AttnSelf + 8, 8, nn.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(4)
	pol := filepath.Join(dir, "attn.safetensors")
	if err := checkpoints.SaveSafetensors(pol, m, map[string]string{checkpoints.MetaFeatureVersion: metapolicy.FeatureVersionPeers}); err != nil {
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
	for _, turn := range recs[0].Episode.Rounds[1].Turns {
		if turn.Action == nil || turn.LogProb == nil || *turn.LogProb >= 0 {
			t.Fatalf("round 1 turn without an action or its log-probability: %+v", turn)
		}
	}
}
