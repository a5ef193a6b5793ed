package trainer

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

func TestDefaultConfigIsValid(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	// The config is stored in checkpoints: it must survive JSON.
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if b2, _ := json.Marshal(back); string(b2) != string(b) {
		t.Errorf("config changed through JSON:\n%s\n%s", b, b2)
	}
}

func TestConfigValidateNamesTheField(t *testing.T) {
	for field, mutate := range map[string]func(*Config){
		"hidden":               func(c *Config) { c.Hidden = []int{64, 0} },
		"activation":           func(c *Config) { c.Activation = "gelu" },
		"backend":              func(c *Config) { c.Backend = "cuda" },
		"tau":                  func(c *Config) { c.Tau = 0 },
		"eps_low":              func(c *Config) { c.Loss.EpsLow = 1 },
		"beta":                 func(c *Config) { c.Loss.Beta = math.NaN() },
		"lr":                   func(c *Config) { c.Adam.LR = -1 },
		"max_grad_norm":        func(c *Config) { c.MaxGradNorm = math.Inf(1) },
		"sft.batch_size":       func(c *Config) { c.SFT.BatchSize = 0 },
		"rl.update_epochs":     func(c *Config) { c.RL.UpdateEpochs = 0 },
		"rl.kl_target":         func(c *Config) { c.RL.KLTarget = -0.1 },
		"rl.schedule":          func(c *Config) { c.RL.Schedule = "step" },
		"rl.episodes_per_task": func(c *Config) { c.RL.EpisodesPerTask = 0 },
		"max_bad_steps":        func(c *Config) { c.MaxBadSteps = 0 },
		"reward":               func(c *Config) { c.Reward.Lambda = -1 },
	} {
		c := DefaultConfig()
		mutate(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: accepted", field)
			continue
		}
		if !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %q does not name the field", field, err)
		}
	}
}

func TestScheduleLR(t *testing.T) {
	const base = 1.0
	for _, c := range []struct {
		s        Schedule
		step     int64
		warmup   int64
		progress float64
		want     float64
	}{
		{Constant, 5, 0, 0.7, 1},
		{Constant, 0, 4, 0, 0.25},
		{Constant, 3, 4, 0, 1},
		{Linear, 10, 0, 0.25, 0.75},
		{Linear, 10, 0, 1, 0},
		{Cosine, 10, 0, 0, 1},
		{Cosine, 10, 0, 0.5, 0.5},
		{Cosine, 10, 0, 1, 0},
		{Linear, 1, 4, 0.9, 0.5}, // warm-up first
	} {
		if got := c.s.LR(base, c.step, c.warmup, c.progress); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v.LR(step %d, warmup %d, progress %v) = %v, want %v", c.s, c.step, c.warmup, c.progress, got, c.want)
		}
	}
	if _, err := ParseSchedule("exp"); err == nil {
		t.Error("unknown schedule accepted")
	}
}

// The loss form is stored in the config's loss object; clip, the default,
// is stored as before the form existed (no "kind"), so the configs of old
// checkpoints read as clip and a clip run's config keeps its bytes.
func TestConfigLossKind(t *testing.T) {
	b, err := json.Marshal(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"kind"`) {
		t.Errorf("default config names a loss kind: %s", b)
	}
	var old Config
	if err := json.Unmarshal([]byte(`{"loss":{"eps_low":0.2,"eps_high":0.2,"beta":0.05,"entropy":0}}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.Loss.RankMatch() || nn.LossName(old.Loss.Kind) != "clip" {
		t.Errorf("a config without a loss kind reads as %q, want clip", nn.LossName(old.Loss.Kind))
	}
	c := DefaultConfig()
	c.Loss.Kind = nn.LossRankMatch
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(c)
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || back.Loss.Kind != nn.LossRankMatch {
		t.Errorf("rank-match through JSON: %q, %v", back.Loss.Kind, err)
	}
	c.Loss.Kind = "dpo"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "kind") {
		t.Errorf("loss kind dpo: %v, want an error naming the field", err)
	}
}

// The config is stored in every checkpoint: the fields added for credit
// across rounds and the reward-scale ablation are absent from the JSON at
// their defaults (old checkpoints keep their bytes), and a checkpoint
// without them reads γ = 0 and no transform.
func TestConfigGammaJSON(t *testing.T) {
	c := DefaultConfig()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "gamma") || strings.Contains(string(b), "reward_transform") {
		t.Errorf("default config JSON names gamma or reward_transform: %s", b)
	}
	var old Config
	if err := json.Unmarshal(b, &old); err != nil || old.Reward.Gamma != 0 || old.RewardTransform != "" {
		t.Errorf("config without gamma: γ %v, transform %q, err %v", old.Reward.Gamma, old.RewardTransform, err)
	}
	c.Reward.Gamma, c.RewardTransform = 0.9, "exp"
	b, _ = json.Marshal(c)
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || back.Reward.Gamma != 0.9 || back.RewardTransform != "exp" || back.Validate() != nil {
		t.Errorf("round trip: γ %v, transform %q, err %v", back.Reward.Gamma, back.RewardTransform, err)
	}
	c.Reward.Gamma = 1.5
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "gamma") {
		t.Errorf("γ=1.5: %v", err)
	}
}
