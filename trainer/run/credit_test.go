package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/trainer"
)

// Counterfactual credit on the simulator (which draws its outcomes afresh)
// is refused before anything trains or is written.
func TestCreditRefusedOffReplay(t *testing.T) {
	c := simConfig(t)
	c.Train.Credit = trainer.CreditCounterfactual
	c.Dir = filepath.Join(t.TempDir(), "run")
	if _, err := Train(context.Background(), c, Hooks{}); !errors.Is(err, env.ErrNoCounterfactual) {
		t.Fatalf("%v, want ErrNoCounterfactual", err)
	}
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote %s (%v)", c.Dir, err)
	}
}

// Reward noise is added to online rollouts only: an offline run, whose
// rewards are its data's, refuses it before it trains.
func TestRewardNoiseRefusedOffline(t *testing.T) {
	cfg := trainer.DefaultConfig()
	cfg.RewardNoise = "student-t:2:0.5"
	_, err := Train(context.Background(), Config{Train: cfg, Data: &chunkedSource{memSource: memRows()}}, Hooks{})
	if err == nil || !strings.Contains(err.Error(), "reward noise") {
		t.Fatalf("%v, want a refusal naming the reward noise", err)
	}
}
