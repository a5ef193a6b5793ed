package trainer

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"

	"github.com/mpdf/mpdf/nn"
)

// Config is the resolved configuration of a training run. It is stored in
// every checkpoint, so its JSON form is part of the checkpoint format: add
// fields, do not rename them.
type Config struct {
	Seed       uint64  `json:"seed"`
	Hidden     []int   `json:"hidden"`     // hidden layer sizes
	Activation string  `json:"activation"` // tanh or relu
	Backend    string  `json:"backend"`    // kernel or gorgonia
	Estimator  string  `json:"estimator"`  // softrank, grpo, drgrpo, rloo, reinforce
	Tau        float64 `json:"tau"`        // SoftRankPO temperature
	// RewardTransform is applied to every reward before the estimator
	// (ParseRewardTransform: identity, exp, scale:K): an ablation of the
	// reward's scale. "" is the identity, omitted from JSON.
	RewardTransform string `json:"reward_transform,omitempty"`

	Loss        nn.LossConfig `json:"loss"`
	Adam        nn.AdamConfig `json:"adam"`
	MaxGradNorm float64       `json:"max_grad_norm"` // 0: no clip

	Reward data.RewardConfig `json:"reward"`
	SFT    SFTConfig         `json:"sft"`
	RL     RLConfig          `json:"rl"`

	// MaxBadSteps stops training after this many non-finite steps in a row.
	MaxBadSteps int `json:"max_bad_steps"`

	// Features is the feature layout the policy reads
	// (metapolicy.FeaturizerFor); "" is the build's default,
	// metapolicy.FeatureVersion. Only the trainers that say so read it
	// (teacher.Train); the others use the default layout.
	Features string `json:"features,omitempty"`

	// AgentPolicy is which network acts for an agent
	// (metapolicy.ParseAgentPolicy: shared, slot, model; design §4,
	// decoupled agents). "" is shared, omitted from JSON, so a shared
	// run's checkpoints keep their bytes.
	AgentPolicy string `json:"agent_policy,omitempty"`

	// Arch is the network (ParseArch): "" the MLP, ArchAttention the
	// attention network over peer slots (nn.NewAttention, design §3),
	// which reads the layout metapolicy.FeatureVersionPeers. AttnDim is
	// its width d, 0 for DefaultAttnDim. Both omitted when zero, so an
	// MLP run's checkpoints keep their bytes.
	Arch    string `json:"arch,omitempty"`
	AttnDim int    `json:"attn_dim,omitempty"`

	// Credit is which rewards a decision's advantage is taken from
	// (ParseCredit, credit.go): "" the taken action's (ranked in its
	// group), CreditCounterfactual or CreditBaseline the three actions'
	// with the other agents held fixed (a replay). Omitted when "", so
	// configs written before it keep their bytes.
	Credit string `json:"credit,omitempty"`

	// RewardNoise is heavy-tailed noise added to every online decision's
	// reward before its advantage (ParseRewardNoise: "student-t:NU:S";
	// noise.go): the stability study's model of heavy-tailed rewards. ""
	// adds none and is omitted, so configs keep their bytes.
	RewardNoise string `json:"reward_noise,omitempty"`
}

// ArchAttention is Config.Arch's value for the attention network.
const ArchAttention = "attention"

// DefaultAttnDim is the attention width d when Config.AttnDim is 0.
const DefaultAttnDim = 16

// ParseArch parses a network name: "mlp" (stored as "") or "attention".
func ParseArch(s string) (string, error) {
	switch s {
	case "", "mlp":
		return "", nil
	case ArchAttention:
		return ArchAttention, nil
	}
	return "", fmt.Errorf("trainer: arch %q, want mlp or %s", s, ArchAttention)
}

// Attention is the attention width of the configured network: 0 for the
// MLP, AttnDim (or DefaultAttnDim) for the attention network.
func (c *Config) Attention() int {
	switch {
	case c.Arch != ArchAttention:
		return 0
	case c.AttnDim > 0:
		return c.AttnDim
	}
	return DefaultAttnDim
}

// SettleFeatures makes the attention network read its own layout when the
// features were not given explicitly (given false): a recipe's layout (the
// replay recipe's v2) gives way to metapolicy.FeatureVersionPeers. A given
// other layout stays, for Validate to refuse.
func (c *Config) SettleFeatures(given bool) {
	if c.Arch == ArchAttention && !given {
		c.Features = ""
	}
}

// ArchValue is a flag value for Arch (ParseArch): "mlp" is stored as "",
// so MLP configs keep their bytes.
type ArchValue struct{ P *string }

func (a ArchValue) Type() string { return "arch" }
func (a ArchValue) String() string {
	if a.P == nil || *a.P == "" {
		return "mlp"
	}
	return *a.P
}
func (a ArchValue) Set(v string) error {
	k, err := ParseArch(v)
	if err == nil {
		*a.P = k
	}
	return err
}

// AttnDimValue is a flag value for AttnDim that shows 0 as DefaultAttnDim.
type AttnDimValue struct{ P *int }

func (a AttnDimValue) Type() string { return "int" }
func (a AttnDimValue) String() string {
	if a.P == nil || *a.P == 0 {
		return strconv.Itoa(DefaultAttnDim)
	}
	return strconv.Itoa(*a.P)
}
func (a AttnDimValue) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("attention width %q: want a positive integer", v)
	}
	*a.P = n
	if n == DefaultAttnDim {
		*a.P = 0 // the default, so a config that names it keeps the default's bytes
	}
	return nil
}

// FeatureLayout is the feature version the policy reads: Features, or
// for the attention network, which reads only it,
// metapolicy.FeatureVersionPeers when Features is empty.
func (c *Config) FeatureLayout() string {
	if c.Features == "" && c.Arch == ArchAttention {
		return metapolicy.FeatureVersionPeers
	}
	return c.Features
}

// SFTConfig configures the supervised stage.
type SFTConfig struct {
	Epochs    int     `json:"epochs"` // 0 skips the stage
	BatchSize int     `json:"batch_size"`
	LR        float64 `json:"lr"`
	// Labels names the heuristic whose actions the online mode clones
	// ("threshold" by default); offline, the rollouts' own actions are cloned.
	Labels string `json:"labels"`
}

// RLConfig configures SoftRankPO fine-tuning.
type RLConfig struct {
	Iterations   int     `json:"iterations"`    // rollout batches (online) or passes over the data (offline)
	BatchSize    int     `json:"batch_size"`    // rows per minibatch (whole groups, so approximate)
	UpdateEpochs int     `json:"update_epochs"` // passes over each rollout batch
	KLTarget     float64 `json:"kl_target"`     // stop a batch's update epochs once mean KL passes it; 0: never
	Schedule     string  `json:"schedule"`      // constant, linear or cosine decay of Adam's lr
	Warmup       int     `json:"warmup"`        // steps of linear warm-up

	// Online mode: tasks drawn per iteration and episodes sampled per task
	// (the episodes of a task form one SoftRankPO group).
	TasksPerIter    int `json:"tasks_per_iter"`
	EpisodesPerTask int `json:"episodes_per_task"`
	Rounds          int `json:"rounds"`
}

// DefaultConfig is the configuration of `mpdf train` with no flags: a
// 64×64 tanh policy, design §4's loss and Adam, SoftRankPO with τ = 0.8.
func DefaultConfig() Config {
	return Config{
		Seed:       1,
		Hidden:     []int{64, 64},
		Activation: "tanh",
		Backend:    "kernel",
		Estimator:  SoftRankName,
		Tau:        DefaultTau,
		Loss:       nn.DefaultLoss(),
		Adam:       nn.DefaultAdam(),
		Reward:     data.DefaultRewardConfig(),
		SFT:        SFTConfig{Epochs: 5, BatchSize: 256, LR: 3e-3, Labels: "threshold:0.95:0.15"},
		RL: RLConfig{
			Iterations: 40, BatchSize: 512, UpdateEpochs: 4, KLTarget: 0.5,
			Schedule: "constant", TasksPerIter: 64, EpisodesPerTask: 8, Rounds: 3,
		},
		MaxBadSteps: 10,
	}
}

// Validate reports the first field outside its domain, by its JSON name.
func (c *Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("trainer: config: %s: %v, want %s", field, v, want)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if len(c.Hidden) == 0 {
		return bad("hidden", c.Hidden, "at least one layer")
	}
	for _, h := range c.Hidden {
		if h <= 0 || h > 1<<16 {
			return bad("hidden", c.Hidden, "sizes in [1, 65536]")
		}
	}
	if _, err := nn.ParseActivation(c.Activation); err != nil {
		return bad("activation", c.Activation, "tanh or relu")
	}
	if c.Backend != "kernel" && c.Backend != "gorgonia" {
		return bad("backend", c.Backend, "kernel or gorgonia")
	}
	if !(c.Tau > 0) || !finite(c.Tau) {
		return bad("tau", c.Tau, "a finite value > 0")
	}
	if _, err := NewEstimator(c.Estimator, c.Tau); err != nil {
		return fmt.Errorf("trainer: config: estimator/tau: %w", err)
	}
	if _, err := ParseRewardTransform(c.RewardTransform); err != nil {
		return fmt.Errorf("trainer: config: reward_transform: %w", err)
	}
	if _, err := ParseRewardNoise(c.RewardNoise); err != nil {
		return fmt.Errorf("trainer: config: reward_noise: %w", err)
	}
	if c.RewardNoise != "" && c.Credit != "" {
		return fmt.Errorf("trainer: config: reward_noise %q with credit %q: the counterfactual rewards would stay noiseless; use one or the other", c.RewardNoise, c.Credit)
	}
	if err := c.Loss.Validate(); err != nil {
		return fmt.Errorf("trainer: config: %w", err)
	}
	if err := c.Reward.Validate(); err != nil {
		return fmt.Errorf("trainer: config: reward: %w", err)
	}
	if err := c.Adam.Validate(); err != nil {
		return fmt.Errorf("trainer: config: %w", err)
	}
	switch {
	case !(c.MaxGradNorm >= 0) || !finite(c.MaxGradNorm):
		return bad("max_grad_norm", c.MaxGradNorm, "a finite value ≥ 0")
	case c.SFT.Epochs < 0:
		return bad("sft.epochs", c.SFT.Epochs, "≥ 0")
	case c.SFT.Epochs > 0 && c.SFT.BatchSize <= 0:
		return bad("sft.batch_size", c.SFT.BatchSize, "> 0")
	case !(c.SFT.LR >= 0) || !finite(c.SFT.LR):
		return bad("sft.lr", c.SFT.LR, "a finite value ≥ 0")
	case c.RL.Iterations < 0:
		return bad("rl.iterations", c.RL.Iterations, "≥ 0")
	case c.RL.BatchSize <= 0:
		return bad("rl.batch_size", c.RL.BatchSize, "> 0")
	case c.RL.UpdateEpochs <= 0:
		return bad("rl.update_epochs", c.RL.UpdateEpochs, "> 0")
	case !(c.RL.KLTarget >= 0) || !finite(c.RL.KLTarget):
		return bad("rl.kl_target", c.RL.KLTarget, "a finite value ≥ 0 (0: no early stop)")
	case c.RL.Warmup < 0:
		return bad("rl.warmup", c.RL.Warmup, "≥ 0")
	case c.RL.TasksPerIter <= 0:
		return bad("rl.tasks_per_iter", c.RL.TasksPerIter, "> 0")
	case c.RL.EpisodesPerTask <= 0:
		return bad("rl.episodes_per_task", c.RL.EpisodesPerTask, "> 0")
	case c.RL.Rounds <= 0 || c.RL.Rounds > 64:
		return bad("rl.rounds", c.RL.Rounds, "in [1, 64]")
	case c.MaxBadSteps <= 0:
		return bad("max_bad_steps", c.MaxBadSteps, "> 0")
	}
	if _, err := metapolicy.FeaturizerFor(c.Features); err != nil {
		return fmt.Errorf("trainer: config: features: %w", err)
	}
	if _, err := ParseArch(c.Arch); err != nil || c.Arch == "mlp" {
		return bad("arch", c.Arch, "\"\" (the MLP) or "+ArchAttention)
	}
	switch {
	case c.AttnDim < 0 || c.AttnDim > 4096:
		return bad("attn_dim", c.AttnDim, "in [1, 4096] (0: the default)")
	case c.AttnDim != 0 && c.Arch != ArchAttention:
		return bad("attn_dim", c.AttnDim, "0 unless arch is "+ArchAttention)
	case c.Arch == ArchAttention && c.FeatureLayout() != metapolicy.FeatureVersionPeers:
		return bad("features", c.Features, metapolicy.FeatureVersionPeers+" (or empty): the attention network reads peer slots")
	}
	if _, err := ParseSchedule(c.RL.Schedule); err != nil {
		return fmt.Errorf("trainer: config: rl.schedule: %w", err)
	}
	if err := c.validateCredit(); err != nil {
		return err
	}
	if _, err := metapolicy.ParseAgentPolicy(c.AgentPolicy); err != nil {
		return fmt.Errorf("trainer: config: agent_policy: %w", err)
	}
	return nil
}

// Agents is the parsed AgentPolicy (Validate has checked it).
func (c *Config) Agents() metapolicy.AgentPolicy {
	a, _ := metapolicy.ParseAgentPolicy(c.AgentPolicy)
	return a
}

// Sizes are the network's layer sizes for features inputs.
func (c *Config) Sizes(features int) []int {
	s := append([]int{features}, c.Hidden...)
	return append(s, nn.NumActions)
}
