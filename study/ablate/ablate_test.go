package ablate

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/internal/studytest"
	"github.com/mpdf/mpdf/trainer"
)

func TestAblationSettings(t *testing.T) {
	if _, err := AblationSettings("lr"); err == nil || !strings.Contains(err.Error(), "unknown ablation") {
		t.Errorf("unknown ablation: %v", err)
	}
	want := map[string][]string{
		AblateEstimator:   {SFTOnlyName, "PPO-style (reinforce: raw reward, no critic)", "GRPO", "Dr.GRPO", "RLOO", "SoftRankPO"},
		AblateTau:         {"τ=0.8", "τ=0.4", "τ=0.6", "τ=1", "τ=2", "τ=5"},
		AblateGamma:       {"γ=0", "γ=0.5", "γ=0.9", "γ=1"},
		AblateLoss:        {"clip", "rank-match"},
		AblateTeamSize:    {"mpdf"},
		AblateAgentPolicy: {"shared", "slot", "model"},
		AblateArch:        {ArchMLP, ArchMLPPeers, ArchAttn},
		AblateRLSignal: {SFTOnlyName, RLSignalDefault, RLSignalCounterfactual, RLSignalBaseline, RLSignalTaskRound, RLSignalGamma,
			RLSignalNoSFT, RLSignalLR, RLSignalLong, RLSignalNoKL, RLSignalCFLR, RLSignalBaseLR, RLSignalBaseLong},
		AblateRewardScale: {"softrank ×1", "softrank ×0.1", "softrank ×10", "softrank exp", "grpo ×1", "grpo ×0.1", "grpo ×10", "grpo exp", "drgrpo ×1", "drgrpo ×0.1", "drgrpo ×10", "drgrpo exp"},
	}
	for kind, names := range want {
		ss, err := AblationSettings(kind)
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) != len(names) {
			t.Fatalf("%s: %d settings, want %d", kind, len(ss), len(names))
		}
		for i, s := range ss {
			c := trainer.DefaultConfig()
			s.Apply(&c)
			if s.Name != names[i] || c.Validate() != nil {
				t.Errorf("%s: setting %d %q (config valid: %v), want %q", kind, i, s.Name, c.Validate(), names[i])
			}
			if wantRef := map[bool]int{true: i / 4 * 4, false: 0}[kind == AblateRewardScale]; s.Ref != wantRef {
				t.Errorf("%s: %s: ref %d, want %d", kind, s.Name, s.Ref, wantRef)
			}
		}
	}
	arch, _ := AblationSettings(AblateArch)
	for i, want := range []struct {
		layout string
		attn   int
	}{{"", 0}, {metapolicy.FeatureVersionPeers, 0}, {metapolicy.FeatureVersionPeers, trainer.DefaultAttnDim}} {
		c := trainer.DefaultConfig()
		c.Features = metapolicy.FeatureVersionV2 // a replay recipe's: the attention setting must drop it
		arch[i].Apply(&c)
		if i == 0 {
			c.Features = ""
		}
		if c.FeatureLayout() != want.layout || c.Attention() != want.attn || c.Validate() != nil {
			t.Errorf("arch %s: layout %q, attention %d, %v", arch[i].Name, c.FeatureLayout(), c.Attention(), c.Validate())
		}
	}
	ss, _ := AblationSettings(AblateEstimator)
	c := trainer.DefaultConfig()
	ss[0].Apply(&c)
	if c.RL.Iterations != 0 {
		t.Errorf("SFT only: %d RL iterations", c.RL.Iterations)
	}
}

// A stub trainer makes the settings' policies known: the SFT-only run
// (no iteration) persists, γ = 0 debates, every γ > 0 plays random. The
// rows then follow: γ = 0's accuracy is debate's (same episode seeds),
// the γ > 0 rows are alike, and their Δ is random − debate by hand.
func TestAblateGammaStub(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 30, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[float64]int{}
	stub := func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
		mu.Lock()
		seen[cfg.Reward.Gamma]++
		mu.Unlock()
		switch {
		case cfg.RL.Iterations == 0:
			return metapolicy.ParseHeuristic("persist")
		case cfg.Reward.Gamma == 0:
			return metapolicy.ParseHeuristic("debate")
		}
		return metapolicy.ParseHeuristic("random")
	}
	cfg := study.Config{Folds: 3, Seeds: 2, Episodes: 2, Lambdas: []float64{0.1, 0.5}, Baselines: []string{"debate", "majority"}, Trainer: stub, Workers: 2}
	a, err := Ablate(sim, cfg, AblateGamma)
	if err != nil {
		t.Fatal(err)
	}
	if a.Lambda != 0.1 {
		t.Errorf("λ %v, want the first, 0.1", a.Lambda)
	}
	// 3 folds × 2 seeds per run: SFT only (γ=0) and one run per γ.
	if seen[0] != 12 || seen[0.5] != 6 || seen[0.9] != 6 || seen[1] != 6 {
		t.Errorf("trainer calls by γ: %v", seen)
	}
	var debate study.PolicyStats
	for _, p := range a.Baselines {
		if p.Policy == "debate" {
			debate = p
		}
	}
	if len(a.Rows) != 4 || a.Rows[0].Accuracy != debate.Accuracy || a.Rows[0].PersistRL != 0 || a.Rows[0].Delta != nil {
		t.Fatalf("γ=0 row %+v, want debate's accuracy %+v, no persist, no Δ", a.Rows[0], debate.Accuracy)
	}
	// Δ by hand: mean over task × seed rows of random − debate.
	acc := map[string]map[[2]int]float64{}
	for _, r := range a.Study.Rows {
		if acc[r.Policy] == nil {
			acc[r.Policy] = map[[2]int]float64{}
		}
		acc[r.Policy][[2]int{int(r.Seed), r.Index}] = float64(r.Correct) / float64(r.Scored)
	}
	var sum float64
	for k, v := range acc["γ=0.5"] {
		sum += v - acc["γ=0"][k]
	}
	want := sum / float64(len(acc["γ=0.5"]))
	for _, r := range a.Rows[1:] {
		if r.PersistSFT != 1 || r.Ref != "γ=0" || r.Delta == nil || math.Abs(r.Delta.Estimate-want) > 1e-12 || r.Accuracy != a.Rows[1].Accuracy {
			t.Errorf("%s: %+v, want persist after SFT 1 and Δ %v vs γ=0", r.Setting, r, want)
		}
	}
	var md bytes.Buffer
	if err := a.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"# mpdf ablation: gamma", "| γ=0 |", "| γ=0.9 |", "vs γ=0:", "| debate |", "λ = 0.1"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, md.String())
		}
	}
}

// The real trainer, shortened: the reward-scale ablation runs every
// setting, reports the advantage moves (Dr.GRPO's ×10 scales its
// advantages by 10; SoftRankPO's do not move under ×K), and gives the same
// bytes whatever the workers.
func TestAblateRewardScaleDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 13 × 2 small policies")
	}
	sim, err := sim.New(sim.Config{Tasks: 24, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	cfg := study.DefaultConfig()
	cfg.Folds, cfg.Seeds, cfg.Lambdas, cfg.Baselines = 2, 1, []float64{0}, []string{"debate"}
	cfg.Train.SFT.Epochs = 1
	cfg.Train.RL.Iterations, cfg.Train.RL.TasksPerIter, cfg.Train.RL.EpisodesPerTask = 1, 4, 2
	cfg.Bootstrap.Resamples = 200
	report := func(workers int) []byte {
		c := cfg
		c.Workers = workers
		a, err := Ablate(sim, c, AblateRewardScale)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := a.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		if err := a.Study.WriteResults(&b); err != nil {
			t.Fatal(err)
		}
		for _, m := range a.Moves {
			switch {
			case m.Estimator == trainer.DrGRPOName && m.Transform == "scale:10" && math.Abs(m.Scale-10) > 1e-9:
				t.Errorf("drgrpo ×10: scale %v, want 10", m.Scale)
			case m.Estimator == trainer.SoftRankName && strings.HasPrefix(m.Transform, "scale:") && m.Change > 1e-9:
				t.Errorf("softrank %s: change %v, want 0", m.Transform, m.Change)
			}
		}
		if len(a.Moves) != 3*len(trainer.EstimatorNames()) {
			t.Errorf("%d advantage moves", len(a.Moves))
		}
		return b.Bytes()
	}
	a, b := report(2), report(1)
	if !bytes.Equal(a, b) {
		t.Fatal("same config: the ablation differs between 2 workers and 1")
	}
	if !bytes.Contains(a, []byte("| drgrpo exp |")) || !bytes.Contains(a, []byte("vs drgrpo ×1:")) {
		t.Errorf("report lacks the Dr.GRPO rows:\n%s", a)
	}
}

// The arch ablation with a stub trainer that tells the settings apart by
// their config: its attention row comes twice, against the MLP and against
// the control, with the Δ of each by hand.
func TestAblateArchStub(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 24, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	stub := func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
		switch {
		case cfg.Attention() > 0:
			return metapolicy.ParseHeuristic("random")
		case cfg.FeatureLayout() == metapolicy.FeatureVersionPeers:
			return metapolicy.ParseHeuristic("majority")
		}
		return metapolicy.ParseHeuristic("debate")
	}
	a, err := Ablate(sim, study.Config{Folds: 2, Seeds: 2, Episodes: 1, Baselines: []string{"debate"}, Trainer: stub, Workers: 2}, AblateArch)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rows) != 4 {
		t.Fatalf("%d rows, want mlp, control, attention twice", len(a.Rows))
	}
	refs := []string{"", ArchMLP, ArchMLP, ArchMLPPeers}
	acc := map[string]float64{}
	for _, r := range a.Study.Rows {
		acc[r.Policy] += float64(r.Correct) / float64(r.Scored)
	}
	for i, r := range a.Rows {
		if r.Ref != refs[i] {
			t.Errorf("row %d (%s): ref %q, want %q", i, r.Setting, r.Ref, refs[i])
		}
		if r.Ref == "" {
			continue
		}
		n := float64(r.Rows)
		if want := (acc[r.Setting] - acc[r.Ref]) / n; r.Delta == nil || math.Abs(r.Delta.Estimate-want) > 1e-12 {
			t.Errorf("%s vs %s: Δ %+v, want %v", r.Setting, r.Ref, r.Delta, want)
		}
	}
}

// The rl-signal ablation compares every setting with the supervised stage
// alone and with gate, accuracy and tokens paired (tokens with their
// interval). A stub trainer makes the policies known: the SFT-only run
// (no iteration) plays majority, the baseline credit debate, the rest
// gate; the Δ then follow by hand.
func TestAblateRLSignalStub(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 24, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	stub := func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
		switch {
		case cfg.RL.Iterations == 0:
			return metapolicy.ParseHeuristic("majority")
		case cfg.Credit == trainer.CreditBaseline:
			return metapolicy.ParseHeuristic("debate")
		}
		return metapolicy.ParseHeuristic("gate")
	}
	a, err := Ablate(sim, study.Config{Folds: 2, Seeds: 2, Episodes: 1, Baselines: []string{"gate"}, Trainer: stub, Workers: 2}, AblateRLSignal)
	if err != nil {
		t.Fatal(err)
	}
	settings, _ := AblationSettings(AblateRLSignal)
	if len(a.Rows) != 2*len(settings) {
		t.Fatalf("%d rows, want each of %d settings against SFT only (or the reference) and against gate", len(a.Rows), len(settings))
	}
	acc, tok := map[string]float64{}, map[string]float64{}
	for _, r := range a.Study.Rows {
		acc[r.Policy] += float64(r.Correct) / float64(r.Scored)
		tok[r.Policy] += float64(r.Tokens) / float64(r.Episodes)
	}
	for i, r := range a.Rows {
		want := []string{"", "gate"}[i%2]
		if i > 1 && i%2 == 0 {
			want = SFTOnlyName
		}
		if r.Ref != want {
			t.Errorf("row %d (%s): ref %q, want %q", i, r.Setting, r.Ref, want)
		}
		if r.Ref == "" {
			continue
		}
		n := float64(r.Rows)
		if d := (acc[r.Setting] - acc[r.Ref]) / n; r.Delta == nil || math.Abs(r.Delta.Estimate-d) > 1e-12 {
			t.Errorf("%s vs %s: Δ %+v, want %v", r.Setting, r.Ref, r.Delta, d)
		}
		if d := (tok[r.Setting] - tok[r.Ref]) / n; r.DeltaTokensCI == nil || math.Abs(r.DeltaTokensCI.Estimate-d) > 1e-6 ||
			math.Abs(r.DeltaTokens-d) > 1e-6 || r.DeltaTokensCI.Low > d || r.DeltaTokensCI.High < d {
			t.Errorf("%s vs %s: Δ tokens %v %+v, want %v inside its interval", r.Setting, r.Ref, r.DeltaTokens, r.DeltaTokensCI, d)
		}
	}
	if r := a.Rows[2*3]; r.Setting != RLSignalBaseline || r.Delta.Estimate == 0 {
		t.Errorf("row %+v: want the baseline credit's (debate) Δ against SFT only (majority), not 0", r)
	}
}

// The agent-policy ablation's model row is marked where its per-model
// networks cannot have decided: agents that name no model (the
// simulator), or folds that are the models; a replay folded by question is
// not marked (issue 33).
func TestUntrainedModelsMarked(t *testing.T) {
	s, err := sim.New(sim.Config{Tasks: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := untrainedModels(s, study.ByQuestion); !strings.HasPrefix(n, "trained nothing: the agents name no model") {
		t.Errorf("simulator: %q", n)
	}
	r := studytest.Shared(t, "slm-debate/gsm/*Qwen3-0.6B*agents3*.json")
	if n := untrainedModels(r, study.ByQuestion); n != "" {
		t.Errorf("replay by question: %q, want no note", n)
	}
	if n := untrainedModels(r, study.ByModel); !strings.Contains(n, "the folds are the models") {
		t.Errorf("replay by model: %q", n)
	}
}
