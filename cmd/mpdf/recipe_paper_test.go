package main

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/serve"
	"github.com/mpdf/mpdf/trainer"
)

// `mpdf train --recipe paper` end to end: it says what it set and a flag
// given wins; the checkpoint holds a network per slot, each an attention
// network trained with rank-match and γ = 0.9; two iterations and a resume
// to three write the checkpoint of three at once; `mpdf export --safetensors`,
// `mpdf serve` (over HTTP) and the checkpoint give each agent its own
// network's probabilities; `mpdf eval` and `mpdf view` play it.
func TestTrainRecipePaper(t *testing.T) {
	dir := t.TempDir()
	straight, split := filepath.Join(dir, "straight"), filepath.Join(dir, "split")
	_, stderr, err := trainErr(t, straight, "--recipe", "paper", "--iterations", "3", "--eval-tasks", "20")
	if err != nil {
		t.Fatalf("train --recipe paper: %v\n%s", err, stderr)
	}
	if want := "recipe paper sets --agent-policy slot --arch attention --loss rank-match --estimator softrank --tau 0.8 --gamma 0.9"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q: want %q", stderr, want)
	}
	ck, err := checkpoints.Load(filepath.Join(straight, checkpoints.BestName), checkpoints.WithFeatureVersion(metapolicy.FeatureVersionPeers))
	if err != nil {
		t.Fatal(err)
	}
	var cfg trainer.Config
	if err := json.Unmarshal(ck.Header.Train, &cfg); err != nil {
		t.Fatal(err)
	}
	if !cfg.Loss.RankMatch() || cfg.Arch != trainer.ArchAttention || cfg.AgentPolicy != "slot" || cfg.Reward.Gamma != trainer.PaperGamma || cfg.Tau != trainer.PaperTau {
		t.Errorf("checkpoint config %+v: want the paper's recipe", cfg)
	}
	if len(ck.NetKeys) != 3 || ck.Policy.Attn == 0 {
		t.Fatalf("checkpoint networks %q, attention width %d", ck.NetKeys, ck.Policy.Attn)
	}

	// A flag given wins over the recipe, and the command says so.
	_, stderr, err = trainErr(t, filepath.Join(dir, "given"), "--recipe", "paper", "--gamma", "0.5", "--iterations", "1")
	if err != nil {
		t.Fatalf("train --recipe paper --gamma 0.5: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "given, kept: --gamma") || strings.Contains(stderr, "--gamma 0.9") {
		t.Errorf("stderr %q: want --gamma named as given, not set", stderr)
	}
	if _, _, err := trainErr(t, filepath.Join(dir, "bad"), "--recipe", "papers"); err == nil || !strings.Contains(err.Error(), "--recipe") {
		t.Errorf("--recipe papers: %v, want a refusal naming --recipe", err)
	}

	// Resumed: byte for byte the run that never stopped.
	if _, stderr, err := trainErr(t, split, "--recipe", "paper", "--iterations", "2", "--eval-tasks", "20"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if out, err := resume(t, split, "--recipe", "paper", "--iterations", "3"); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !bytes.Equal(latest(t, straight), latest(t, split)) {
		t.Error("2 iterations + resume to 3 differs from 3 at once")
	}
	// Export, serve over HTTP, and the checkpoint: one policy.
	best := filepath.Join(straight, checkpoints.BestName)
	exported := filepath.Join(dir, "paper.safetensors")
	mustRun(t, "export", best, "--safetensors", exported)
	want, err := checkpoints.LoadPolicy(best, "ckpt")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := want.(*metapolicy.DecoupledPolicy); !ok {
		t.Fatalf("best.mpdf loads as %T, want a decoupled policy", want)
	}
	for _, path := range []string{exported, best} {
		checkServedProbs(t, path, want)
	}

	// eval and view play it.
	out := mustRun(t, "eval", "--tasks", "10", "-q", "--policy", best)
	if !strings.Contains(out, "best.mpdf") {
		t.Errorf("eval:\n%s", out)
	}
	page := filepath.Join(dir, "view.html")
	if _, stderr, err := execute("view", "--policy", best, "--tasks", "5", "--out", page); err != nil {
		t.Fatalf("view: %v\n%s", err, stderr)
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.Contains(b, []byte("best.mpdf")) {
		t.Errorf("view page: %d bytes, %v; want the policy named", len(b), err)
	}
	if _, stderr, err := execute("view", straight, "--out", filepath.Join(dir, "run.html")); err != nil {
		t.Fatalf("view of the run: %v\n%s", err, stderr)
	}
}

// `mpdf study --recipe paper` trains every fold with the paper's recipe
// (recorded in results.json) and says what it set; a flag given wins.
func TestStudyRecipePaper(t *testing.T) {
	dir := t.TempDir()
	_, stderr, err := execute("study", "--sim-tasks", "30", "--folds", "2", "--seeds", "1", "--lambdas", "0",
		"--iterations", "1", "--tasks-per-iter", "8", "--episodes-per-task", "2", "--sft-epochs", "1", "--hidden", "8",
		"--baselines", "gate", "--resamples", "100", "--recipe", "paper", "--loss", "clip", "--out", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatalf("study --recipe paper: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "study: recipe paper sets --agent-policy slot --arch attention --estimator softrank --tau 0.8 --gamma 0.9; given, kept: --loss") {
		t.Errorf("stderr %q: want the settings set and --loss kept", stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "s", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "- recipe paper: agent policy slot, arch attention, loss clip, estimator softrank, τ 0.8, γ 0.9, features mpdf-features/peers-v1"; !bytes.Contains(b, []byte(want)) {
		t.Errorf("report.md lacks %q:\n%s", want, b)
	}
}

// checkServedProbs serves the policy at path over HTTP and holds each
// agent's served probabilities, for a four-agent deliberation, to want's.
func checkServedProbs(t *testing.T, path string, want metapolicy.Policy) {
	t.Helper()
	s, err := serve.New(serve.Config{PolicyPath: path})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	answers := []string{"12", "12", "7", "3"}
	conf := []float64{0.9, 0.4, 0.6, 0.2}
	var req serve.DecideRequest
	req.Round, req.Rounds = 1, 3
	for i := range answers {
		a, c := answers[i], conf[i]
		req.Agents = append(req.Agents, serve.Agent{Answer: &a, Confidence: &c})
	}
	body, _ := json.Marshal(&req)
	resp, err := http.Post(hs.URL+"/v1/decide", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var got serve.DecideResponse
	err = json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	hs.Close()
	if err != nil || resp.StatusCode != http.StatusOK || got.Result == nil {
		t.Fatalf("%s: POST /v1/decide: %d, %v, %+v", path, resp.StatusCode, err, got)
	}
	obs := metapolicy.Observation{Round: 1, Rounds: 3}
	for i := range answers {
		obs.Agents = append(obs.Agents, metapolicy.AgentState{Answer: answers[i], Confidence: conf[i],
			Profile: metapolicy.Profile{SelfConfidence: metapolicy.Missing}})
	}
	for self, d := range got.Result.Agents {
		obs.Self = self
		var p [metapolicy.NumActions]float64
		if err := want.Probs(&p, &obs); err != nil {
			t.Fatal(err)
		}
		for k, v := range d.Probs {
			if math.Abs(v-p[k]) > 1e-6 {
				t.Errorf("%s: agent %d: served %v, checkpoint %v", filepath.Base(path), self, d.Probs, p)
			}
		}
	}
}
