package ablate

import (
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/trainer"
)

// The rl-signal ablation (issue 32): where the replay's RL stage can get a
// signal. Its first row is the supervised stage alone (SFTOnlyName, the
// reference of every row); each row is also compared with gate. The token
// cost λ is the study's (--lambdas: run it at several).
const (
	RLSignalDefault        = "SoftRankPO, by task (default)"
	RLSignalCounterfactual = "credit counterfactual"
	RLSignalBaseline       = "credit baseline"
	RLSignalTaskRound      = "groups by task+round"
	RLSignalGamma          = "γ=0.9"
	RLSignalNoSFT          = "no SFT stage"
	RLSignalLR             = "lr ×10"
	RLSignalLong           = "iterations ×4"
	RLSignalNoKL           = "no KL (β=0)"
	RLSignalCFLR           = "credit counterfactual, lr ×10"
	RLSignalBaseLR         = "credit baseline, lr ×10"
	RLSignalBaseLong       = "credit baseline, iterations ×4"
)

// rlSignalSettings are the rl-signal ablation's settings.
func rlSignalSettings() []Setting {
	gate := []string{"gate"}
	s := func(name string, apply func(*trainer.Config)) Setting {
		return Setting{Name: name, Apply: apply, AlsoFixed: gate}
	}
	return []Setting{
		s(SFTOnlyName, func(c *trainer.Config) { c.RL.Iterations = 0 }),
		s(RLSignalDefault, func(*trainer.Config) {}),
		s(RLSignalCounterfactual, func(c *trainer.Config) { c.Credit = trainer.CreditCounterfactual }),
		s(RLSignalBaseline, func(c *trainer.Config) { c.Credit = trainer.CreditBaseline }),
		s(RLSignalTaskRound, func(c *trainer.Config) { c.Reward.GroupBy = data.GroupByTaskRound }),
		s(RLSignalGamma, func(c *trainer.Config) { c.Reward.Gamma = 0.9 }),
		s(RLSignalNoSFT, func(c *trainer.Config) { c.SFT.Epochs = 0 }),
		s(RLSignalLR, func(c *trainer.Config) { c.Adam.LR *= 10 }),
		s(RLSignalLong, func(c *trainer.Config) { c.RL.Iterations *= 4 }),
		s(RLSignalNoKL, func(c *trainer.Config) { c.Loss.Beta = 0 }),
		s(RLSignalCFLR, func(c *trainer.Config) { c.Credit, c.Adam.LR = trainer.CreditCounterfactual, c.Adam.LR*10 }),
		s(RLSignalBaseLR, func(c *trainer.Config) { c.Credit, c.Adam.LR = trainer.CreditBaseline, c.Adam.LR*10 }),
		s(RLSignalBaseLong, func(c *trainer.Config) { c.Credit, c.RL.Iterations = trainer.CreditBaseline, c.RL.Iterations*4 }),
	}
}

// sftFirst reports whether ablation kind's first setting is the
// supervised stage alone (its rows are the SFT-only run's).
func sftFirst(kind string) bool { return kind == AblateEstimator || kind == AblateRLSignal }
