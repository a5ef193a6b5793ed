package ablate

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/trainer"
)

// Ablations (issue 22's list), all run by Ablate (team-size through
// AblateTeams: its settings are environments, not training
// configurations).
const (
	AblateEstimator   = "estimator"
	AblateTau         = "tau"
	AblateRewardScale = "reward-scale"
	AblateGamma       = "gamma"
	AblateAgentPolicy = "agent-policy"
	AblateLoss        = "loss"
	AblateTeamSize    = "team-size"
	AblateArch        = "arch"
	AblateRLSignal    = "rl-signal"
)

// AblationNames lists the ablations Ablate and AblateTeams run.
func AblationNames() []string {
	return []string{AblateEstimator, AblateTau, AblateRewardScale, AblateGamma, AblateLoss, AblateTeamSize, AblateAgentPolicy, AblateArch, AblateRLSignal}
}

// TauGrid is the paper's grid of SoftRankPO temperatures (its best: 0.8).
var TauGrid = []float64{0.4, 0.6, 0.8, 1.0, 2.0, 5.0}

// GammaGrid is the grid of return discounts of the gamma ablation.
var GammaGrid = []float64{0, 0.5, 0.9, 1}

// RewardTransforms are the reward-scale ablation's transforms
// (trainer.ParseRewardTransform), identity first: ×0.1, ×10 and exp,
// monotone but not affine.
var RewardTransforms = []string{trainer.TransformIdentity, "scale:0.1", "scale:10", trainer.TransformExp}

// RewardScaleEstimators are the estimators the reward-scale ablation
// trains with: SoftRankPO and the two that the scale moves differently
// (GRPO divides by the std, Dr.GRPO does not).
var RewardScaleEstimators = []string{trainer.SoftRankName, trainer.GRPOName, trainer.DrGRPOName}

// SFTOnlyName is the setting of the estimator ablation without an RL stage.
const SFTOnlyName = "SFT only"

// Setting is one row of an ablation: a change to the fold's training
// configuration, and the setting its paired Δ is taken against.
type Setting struct {
	Name  string
	Apply func(*trainer.Config)
	// Ref is the index of the setting this one is compared with (0, the
	// first, unless a group of rows has its own reference).
	Ref int
	// Also are further settings this one is compared with, a row each
	// after its own.
	Also []int
	// AlsoFixed are fixed protocols this one is compared with, a row
	// each after Also's (when the study played them).
	AlsoFixed []string
}

// Arch ablation's settings: the MLP on the recipe's features (the
// default), the MLP on the attention network's features (the control:
// the same information without attention), and the attention network.
const (
	ArchMLP      = "mlp"
	ArchMLPPeers = "mlp, peers-v1 features"
	ArchAttn     = "attention"
)

// AblationSettings returns the settings of ablation kind, the reference
// first: estimator — SFT only (no RL iteration), then each estimator of
// trainer.EstimatorNames with reinforce standing for a PPO-style
// objective without a learned critic; tau — SoftRankPO at τ = 0.8 (the
// default) then the rest of TauGrid; reward-scale — for each of
// RewardScaleEstimators its rewards as they are (each group's reference),
// ×0.1, ×10 and exp; gamma — GammaGrid, 0 (the default) first; loss —
// the clip surrogate (the default) then rank-match; team-size — one
// setting, the recipe as it is (AblateTeams plays it per team size);
// arch — ArchMLP, ArchMLPPeers and ArchAttn, each against the MLP and the
// attention network also against the control.
func AblationSettings(kind string) ([]Setting, error) {
	var out []Setting
	switch kind {
	case AblateEstimator:
		out = append(out, Setting{Name: SFTOnlyName, Apply: func(c *trainer.Config) { c.RL.Iterations = 0 }})
		names := map[string]string{trainer.ReinforceName: "PPO-style (reinforce: raw reward, no critic)",
			trainer.GRPOName: "GRPO", trainer.DrGRPOName: "Dr.GRPO", trainer.RLOOName: "RLOO", trainer.SoftRankName: "SoftRankPO"}
		for _, e := range []string{trainer.ReinforceName, trainer.GRPOName, trainer.DrGRPOName, trainer.RLOOName, trainer.SoftRankName} {
			out = append(out, Setting{Name: names[e], Apply: func(c *trainer.Config) { c.Estimator = e }})
		}
	case AblateTau:
		taus := []float64{trainer.DefaultTau}
		for _, t := range TauGrid {
			if t != trainer.DefaultTau {
				taus = append(taus, t)
			}
		}
		for _, t := range taus {
			out = append(out, Setting{Name: "τ=" + strconv.FormatFloat(t, 'g', -1, 64),
				Apply: func(c *trainer.Config) { c.Estimator, c.Tau = trainer.SoftRankName, t }})
		}
	case AblateRewardScale:
		for _, e := range RewardScaleEstimators {
			ref := len(out)
			for _, tr := range RewardTransforms {
				name := e + " " + map[string]string{trainer.TransformIdentity: "×1", "scale:0.1": "×0.1", "scale:10": "×10", trainer.TransformExp: "exp"}[tr]
				out = append(out, Setting{Name: name, Ref: ref, Apply: func(c *trainer.Config) { c.Estimator, c.RewardTransform = e, tr }})
			}
		}
	case AblateGamma:
		for _, g := range GammaGrid {
			out = append(out, Setting{Name: "γ=" + strconv.FormatFloat(g, 'g', -1, 64), Apply: func(c *trainer.Config) { c.Reward.Gamma = g }})
		}
	case AblateLoss:
		for _, k := range []string{nn.LossClip, nn.LossRankMatch} {
			out = append(out, Setting{Name: k, Apply: func(c *trainer.Config) { c.Loss.Kind = k }})
		}
	case AblateTeamSize:
		out = append(out, Setting{Name: "mpdf", Apply: func(*trainer.Config) {}})
	case AblateArch:
		out = append(out,
			Setting{Name: ArchMLP, Apply: func(c *trainer.Config) { c.Arch, c.AttnDim = "", 0 }},
			Setting{Name: ArchMLPPeers, Apply: func(c *trainer.Config) {
				c.Arch, c.AttnDim, c.Features = "", 0, metapolicy.FeatureVersionPeers
			}},
			Setting{Name: ArchAttn, Also: []int{1}, Apply: func(c *trainer.Config) {
				c.Arch, c.Features = trainer.ArchAttention, "" // reads peers-v1; AttnDim as configured
			}})
	case AblateAgentPolicy:
		for _, a := range []metapolicy.AgentPolicy{metapolicy.AgentShared, metapolicy.AgentSlot, metapolicy.AgentModel} {
			out = append(out, Setting{Name: string(a), Apply: func(c *trainer.Config) {
				if c.AgentPolicy = string(a); a == metapolicy.AgentShared {
					c.AgentPolicy = "" // the default, as a shared run's config spells it
				}
			}})
		}
	case AblateRLSignal:
		out = rlSignalSettings()
	default:
		return nil, fmt.Errorf("study: unknown ablation %q (want one of %v)", kind, AblationNames())
	}
	return out, nil
}

// AblationRow is one setting's pooled result.
type AblationRow struct {
	Setting       string         `json:"setting"`
	Rows          int            `json:"rows"` // task × seed rows with a scored episode
	Accuracy      stats.Interval `json:"accuracy"`
	TokensPerTask float64        `json:"tokens_per_task"`
	// Ref names the setting of the paired difference; Delta is "this −
	// Ref" in accuracy (same task, same seed, bootstrap by question),
	// nil for a reference itself; DeltaTokens the mean difference of
	// tokens per task.
	Ref   string          `json:"ref,omitempty"`
	Delta *stats.Interval `json:"delta,omitempty"`
	// Note says when the setting's networks trained nothing the test side
	// plays (untrainedModels), so that its row is not read as a result.
	Note        string  `json:"note,omitempty"`
	DeltaTokens float64 `json:"delta_tokens_per_task"`
	// DeltaTokensCI is DeltaTokens with its interval (the same bootstrap
	// by question), for the rl-signal ablation.
	DeltaTokensCI *stats.Interval `json:"delta_tokens_ci,omitempty"`
	// PersistSFT is the share of persist decisions of the policy after
	// the supervised stage alone (the same stage for every setting),
	// PersistRL of this setting's policy, both on the test side.
	PersistSFT float64 `json:"persist_after_sft"`
	PersistRL  float64 `json:"persist_after_rl"`
}

// Ablation is a finished ablation: one cross-validated study per setting,
// with the same folds, seeds and episode seeds, pooled into one table.
type Ablation struct {
	Kind   string        `json:"ablation"`
	Lambda float64       `json:"lambda"`
	Rows   []AblationRow `json:"rows"`
	// Baselines are the fixed protocols on the same tasks and seeds, for
	// context (played once).
	Baselines []study.PolicyStats `json:"baselines"`
	// Moves is the reward-scale ablation's account of how each
	// estimator's advantages move under each transform.
	Moves []AdvantageMove `json:"advantage_moves,omitempty"`
	// Study holds every row: the baselines', the SFT-only policy's
	// (policy SFTOnlyName) and each setting's (policy: its name).
	Study   *study.Study   `json:"-"`
	Summary *study.Summary `json:"summary"`
}

// Ablate runs ablation kind on e: the study of cfg (its folds, seeds,
// episodes, bootstrap and training recipe) once per setting, training at
// the first token cost of cfg.Lambdas only (0 when none is given). First
// the supervised stage alone is trained and played (the persist share
// "after SFT", and the estimator ablation's first row), with cfg's
// baselines; then each setting's policies, without baselines. The same
// cfg and Env give the same result, whatever cfg.Workers. cfg.Progress,
// when set, sees the jobs of all the studies as one count.
//
// The team-size ablation plays one study per team size (TeamsOf e,
// AblateTeams).
func Ablate(e env.Env, cfg study.Config, kind string) (*Ablation, error) {
	if kind == AblateStability {
		return nil, fmt.Errorf("study: %s is curves over seeds, not a table of settings: RunStability", kind)
	}
	if kind == AblateTeamSize {
		teams, err := TeamsOf(e)
		if err != nil {
			return nil, err
		}
		return AblateTeams(teams, cfg)
	}
	return ablate(e, cfg, kind)
}

// ablate is Ablate of one environment.
func ablate(e env.Env, cfg study.Config, kind string) (*Ablation, error) {
	settings, err := AblationSettings(kind)
	if err != nil {
		return nil, err
	}
	if cfg.Lambdas == nil {
		cfg.Lambdas = []float64{0}
	}
	if err := cfg.FillDefaults(); err != nil {
		return nil, err
	}
	lambda := 0.0
	if len(cfg.Lambdas) > 0 {
		lambda = cfg.Lambdas[0]
	}
	cfg.Lambdas = []float64{lambda}
	merged, err := crossValidateSettings(e, cfg, kind, settings, study.LearnedName(lambda))
	if err != nil {
		return nil, err
	}
	sum, err := merged.Summarise()
	if err != nil {
		return nil, err
	}
	a := &Ablation{Kind: kind, Lambda: lambda, Study: merged, Summary: sum}
	all := sum.Scopes[0]
	stat := map[string]study.PolicyStats{}
	for _, p := range all.Policies {
		stat[p.Policy] = p
		if slices.Contains(merged.Fixed, p.Policy) {
			a.Baselines = append(a.Baselines, p)
		}
	}
	if a.Rows, err = ablationRows(e, cfg, kind, settings, merged, stat); err != nil {
		return nil, err
	}
	if kind == AblateRewardScale {
		if a.Moves, err = AdvantageMoves(e, cfg.Train, lambda, merged.Rounds, cfg.Seed); err != nil {
			return nil, fmt.Errorf("study: ablation %s: %w", kind, err)
		}
	}
	return a, nil
}

// crossValidateSettings cross-validates the SFT-only run, then each
// setting of the ablation (the learned policy alone), and merges their
// rows into one study: the baselines once, the SFT-only run's learned
// policy as SFTOnlyName and each setting's under its name.
func crossValidateSettings(e env.Env, cfg study.Config, kind string, settings []Setting, learned string) (*study.Study, error) {
	runs := len(settings) + 1
	if sftFirst(kind) {
		runs-- // its first setting is the SFT-only run
	}
	progress := cfg.Progress
	k := 0
	run := func(c study.Config) (*study.Study, error) {
		if progress != nil {
			c.Progress = func(done, total int) { progress(k*total+done, runs*total) }
		}
		s, err := study.CrossValidate(e, c)
		k++
		return s, err
	}
	sftCfg := cfg
	sftCfg.Train.RL.Iterations = 0
	sft, err := run(sftCfg)
	if err != nil {
		return nil, fmt.Errorf("study: ablation %s: SFT only: %w", kind, err)
	}
	merged := *sft
	merged.Config.Train = cfg.Train // the base recipe, not the SFT-only run's
	merged.Rows = nil
	merged.Learned = nil
	var sftRows []study.ResultRow
	for _, r := range sft.Rows {
		if r.Policy == learned {
			r.Policy = SFTOnlyName
			sftRows = append(sftRows, r)
			continue
		}
		merged.Rows = append(merged.Rows, r)
	}
	byName := map[string][]study.ResultRow{}
	for i, st := range settings {
		if sftFirst(kind) && i == 0 {
			byName[st.Name] = sftRows
			continue
		}
		c := cfg
		c.Baselines = []string{}
		st.Apply(&c.Train)
		if err := c.Train.Validate(); err != nil {
			return nil, fmt.Errorf("study: ablation %s: %s: %w", kind, st.Name, err)
		}
		s, err := run(c)
		if err != nil {
			return nil, fmt.Errorf("study: ablation %s: %s: %w", kind, st.Name, err)
		}
		for _, r := range s.Rows {
			if r.Policy == learned {
				r.Policy = st.Name
				byName[st.Name] = append(byName[st.Name], r)
			}
		}
	}
	if !sftFirst(kind) {
		merged.Rows = append(merged.Rows, sftRows...)
		merged.Learned = append(merged.Learned, SFTOnlyName)
	}
	for _, st := range settings {
		merged.Rows = append(merged.Rows, byName[st.Name]...)
		merged.Learned = append(merged.Learned, st.Name)
	}
	return &merged, nil
}

// ablationRows are the ablation's table: a row per setting, against its
// reference setting (st.Ref), then one more against each of st.Also and
// the baselines of st.AlsoFixed the study played.
func ablationRows(e env.Env, cfg study.Config, kind string, settings []Setting, merged *study.Study, stat map[string]study.PolicyStats) ([]AblationRow, error) {
	var rows []AblationRow
	persistSFT := stat[SFTOnlyName].Persist
	for i, st := range settings {
		p := stat[st.Name]
		row := AblationRow{Setting: st.Name, Rows: p.Rows, Accuracy: p.Accuracy, TokensPerTask: p.TokensPerTask,
			PersistSFT: persistSFT, PersistRL: p.Persist}
		if kind == AblateAgentPolicy && st.Name == string(metapolicy.AgentModel) {
			row.Note = untrainedModels(e, cfg.GroupBy)
		}
		if st.Ref != i {
			var err error
			if row, err = againstRef(merged, kind, row, settings[st.Ref].Name); err != nil {
				return nil, err
			}
		}
		rows = append(rows, row)
		refs := []string{}
		for _, j := range st.Also {
			refs = append(refs, settings[j].Name)
		}
		for _, f := range st.AlsoFixed {
			if slices.Contains(merged.Fixed, f) {
				refs = append(refs, f)
			}
		}
		for _, ref := range refs {
			also, err := againstRef(merged, kind, row, ref)
			if err != nil {
				return nil, err
			}
			rows = append(rows, also)
		}
	}
	return rows, nil
}

// againstRef is row compared with the policy ref: the paired accuracy
// difference and the tokens' (with its interval in an rl-signal
// ablation).
func againstRef(merged *study.Study, kind string, row AblationRow, ref string) (AblationRow, error) {
	d, dt, err := merged.PairedDelta(row.Setting, ref)
	if err != nil {
		return row, fmt.Errorf("study: ablation %s: %s − %s: %w", kind, row.Setting, ref, err)
	}
	row.Ref, row.Delta, row.DeltaTokens = ref, d, dt
	if kind == AblateRLSignal {
		if row.DeltaTokensCI, err = merged.PairedTokens(row.Setting, ref); err != nil {
			return row, err
		}
	}
	return row, nil
}

// untrainedModels is the note of the agent-policy ablation's model row
// when its per-model networks cannot have decided on the test side: the
// environment's agents name no model (the simulator's), so the untrained
// fallback network decides for every agent; or the folds are the models,
// so each test fold's model had no network trained. "" otherwise.
func untrainedModels(e env.Env, by study.GroupBy) string {
	if _, ok := e.(*replay.Env); !ok {
		return "trained nothing: the agents name no model, so the untrained fallback network decided for all of them"
	}
	if by == study.ByModel {
		return "trained nothing: the folds are the models, so each test fold's model has no network trained and the untrained fallback decided"
	}
	return ""
}
