package run

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

// Source is offline training data, streamed pass by pass: a
// trainer.Dataset over files or a pack, or rows held in memory.
type Source interface {
	Pass(each func(*trainer.Samples) error) (trainer.PassStats, error)
}

// Config is one training run. Online runs give Env (and HeldOutEnv to
// evaluate on); offline runs give Data. Everything is checked before the
// run directory is touched.
type Config struct {
	Train trainer.Config

	// Dir is the run directory: checkpoints, metrics.jsonl, curve.png,
	// policy.safetensors, eval.json. Empty trains in memory: nothing is
	// written and Result.Policy is the only output.
	Dir string
	// Resume continues the run in Dir from this checkpoint (see Latest).
	Resume *Resumable
	// Overwrite lets a fresh run start in a Dir that holds another run's
	// files, removing them first. Without it (and without Resume) such a
	// Dir is refused.
	Overwrite bool

	// Init, when set, is the starting network (else one is initialised
	// from Train.Seed); its shape wins over Train.Hidden and Activation.
	Init *nn.MLP[float32]
	// Keep is how many step checkpoints to keep besides best.mpdf; 0
	// keeps them all.
	Keep int
	// BestMetric picks best.mpdf: a metrics.jsonl name, sft_loss,
	// sft_agreement, or online team_accuracy and tokens_per_episode;
	// prefixed by "-" when lower is better. Empty: team_accuracy online,
	// -loss offline.
	BestMetric string
	// Threads bounds the kernel backend's threads; 0 uses every core.
	Threads int
	// EvalTasks is how many held-out tasks the final evaluation plays
	// (online, with HeldOutEnv); 0 skips it.
	EvalTasks int
	// EvalEvery is the period, in RL iterations, of the held-out points
	// metrics.jsonl logs (online, with HeldOutEnv and EvalTasks > 0: the
	// policy as it stands on up to 200 held-out tasks, one episode each;
	// HeldOut): 0 is DefaultEvalEvery, a negative value takes none. They
	// change nothing the run trains.
	EvalEvery int
	// CurveSeed is the episode seed of the held-out points; 0 is
	// Train.Seed + 7, the final evaluation's. A caller comparing runs of
	// several training seeds (study/ablate's RunStability) gives them one, so
	// that their points play the same episodes.
	CurveSeed uint64
	// MetricsEvery is the grain of metrics.jsonl: MetricsEveryStep or
	// MetricsEveryIteration. Empty: per iteration offline (where a pass
	// over millions of decisions is thousands of steps), per step online.
	MetricsEvery string

	// Greedy makes the final evaluation's verdict (env.Judge) judge the
	// learned policy's most probable actions instead of its samples.
	Greedy bool
	// Notes say what the defaults chose for this run (a recipe, a
	// teacher's fallback); eval.json records them.
	Notes []string

	// Teacher, when set, labels the online supervised stage instead of
	// the heuristic Train.SFT.Labels (a hindsight teacher, say).
	Teacher *Teacher

	// Online: the environment trained in, the one evaluated on, and how
	// they were made (recorded for resume). Online runs read the feature
	// layout Train.Features.
	Env        env.Env
	HeldOutEnv env.Env
	EnvName    string
	HeldOut    float64
	SplitSeed  uint64
	envID      string // EnvID of Env and HeldOutEnv, for runs with a Dir

	// Offline: the data, what it is (recorded, and checked on resume), the
	// width of its decisions (0: metapolicy.FeatureWidth) and the feature
	// version checkpoints record (empty: metapolicy.FeatureVersion for
	// that width).
	Data           Source
	DataID         *DataID
	SkipInvalid    bool // recorded only: Data itself skips or not
	AllowOtherData bool // resume on data other than the run's
	FeatureWidth   int
	FeatureVersion string
}

// Teacher gives the online supervised stage its labelled decisions (rows
// of features in the run's layout, and actions), in place of a heuristic
// playing every action. Label is called first with clone nil; then, for
// each of Again rounds (DAgger), with the policy cloned so far: its rows
// are added to the earlier ones and the clone trained again for
// Train.SFT.Epochs epochs, with the same optimiser. Nothing is labelled
// when Train.SFT.Epochs is 0.
type Teacher struct {
	Name  string // what SFTResult.What reports
	Again int
	// Label labels tasks (every task of the Env, in the order
	// trainer.IterTasks(seed, -1, n, n) gives) of e.
	Label func(e env.Env, tasks []int, clone metapolicy.Policy) (x []float32, actions []uint8, err error)
}

// ErrNoLabels is what a Teacher's Label returns (wrapped) when it labels
// no decision: the run then skips the supervised stage and says so
// (SFTResult.Reason, Config.Notes in eval.json, a warning to the Logger).
var ErrNoLabels = errors.New("no labelled decision")

// Hooks report a run as it goes. Every field may be nil; each is called
// from the goroutine that called Train.
type Hooks struct {
	// Logger receives what the run reports on the way: skipped steps,
	// rejected records (at Warn). Nil discards.
	Logger *slog.Logger
	// Start is called once the network is known, before any training.
	Start func(Start)
	// Progress is called as each stage advances.
	Progress func(Progress)
	// SFT is called when the supervised stage ends (or is skipped).
	SFT func(SFTResult)
	// Iteration is called after each RL iteration, once its checkpoint is
	// saved.
	Iteration func(Iteration)
}

// Start describes the run about to train.
type Start struct {
	Config   trainer.Config // resolved: Hidden and Activation are the network's
	Mode     string         // online or offline
	Resumed  string         // the checkpoint resumed from, or ""
	Step     int64          // the optimiser step the run starts at
	Iter     int            // the iteration it starts at
	Features int            // the network's input width
}

// Progress is a stage's advance: "check" (the offline data), "sft"
// (epochs), "rl" (iterations), "curve" (curve.png) or "eval" (episodes).
type Progress struct {
	Stage       string
	Done, Total int
	Desc        string
}

// SFTResult summarises the supervised stage.
type SFTResult struct {
	Skipped         bool
	Reason          string // why it was skipped, when not sft.epochs 0
	What            string // the labels cloned
	Rows            int    // decisions per epoch
	Epochs, Steps   int
	FirstLoss, Loss float64 // mean cross-entropy of the first and last epoch
	Agreement       float64 // share of the last epoch's decisions the policy's mode matches
}

// Iteration is one RL iteration's outcome.
type Iteration struct {
	Iter    int // iterations completed
	Step    int64
	Metrics trainer.Metrics // of the update (row-weighted mean over steps)
	// Online only.
	TeamAccuracy, TokensPerEpisode float64
}

// Result is what a run leaves.
type Result struct {
	// RLChange is, online with a final evaluation, what the RL stage
	// changed against the supervised policy alone (nil without RL).
	RLChange *RLChange
	// HeldOut are the held-out points of this process's run (resumes:
	// those metrics.jsonl kept too), Config.EvalEvery; in memory as in a
	// directory.
	HeldOut []HeldOutPoint
	Mode    string
	Policy  *nn.MLP[float32] // the trained network (a decoupled policy's first)
	// Networks are a decoupled policy's networks (trainer.Config's
	// agent_policy slot or model) once RL has made them; nil otherwise.
	// PolicyOver reads whichever the run trained.
	Networks   *checkpoints.Networks
	SFT        SFTResult
	Iterations int   // RL iterations completed, over the whole run
	Steps      int64 // optimiser steps, over the whole run
	Skipped    int64 // steps skipped as non-finite in this process
	// Untrained counts the online decisions, in this process, that the
	// fallback took and that trained no network (agent policy model:
	// agents naming no backbone model, as the simulator's).
	Untrained int64
	RLTime    time.Duration
	Shares    *Shares      // action shares, first and last fifth of the run's iterations; nil under 2
	Eval      env.Results  // the final evaluation, when it ran
	Verdict   *env.Verdict // the learned policy against the fixed protocols, with Eval
	EvalTasks int
	// EvalCheckpoint is the file the evaluation played (best.mpdf) and
	// EvalStep its step; empty when it played the policy as training left
	// it (no best kept).
	EvalCheckpoint string
	EvalStep       int64
	// EvalPlay is what the final evaluation played, to play it again
	// (the same episodes: a viewer of its questions); nil when none ran.
	EvalPlay *EvalPlay
	Files    []string // what was written to Dir
}

// EvalPlay is what a final evaluation played: the held-out environment,
// the policies (the learned one sampled and greedy, then the baselines)
// and the options (tasks, episodes, rounds, seed; no progress or context),
// so that env.Play of each policy gives the evaluation's own episodes.
type EvalPlay struct {
	Env      env.Env
	Policies []metapolicy.Policy
	Options  env.RunOptions
}

// Shares are the action shares of the sampled decisions, in action order,
// averaged over the first and the last fifth of the iterations of the
// whole run (resumes included), from the metrics log.
type Shares struct {
	First, Last [metapolicy.NumActions]float64
}

// bestMetric resolves Config.BestMetric for a mode.
func (c *Config) bestMetric(offline bool) (name string, higher bool, err error) {
	return ParseBestMetric(c.BestMetric, offline)
}

// ParseBestMetric resolves a best-metric name ("" for the mode's default;
// "-" prefixed when lower is better) for an offline or online run; an
// unknown one is a *SettingError.
func ParseBestMetric(best string, offline bool) (name string, higher bool, err error) {
	switch {
	case best != "":
	case offline:
		best = "-loss" // offline rewards are the data's, the same every pass
	default:
		best = "team_accuracy"
	}
	if best == checkpoints.BestLast {
		return best, true, nil // the latest checkpoint: its step, higher better
	}
	metric := strings.TrimPrefix(best, "-")
	known := slices.Contains(trainer.MetricNames(), metric) || metric == "sft_loss" || metric == "sft_agreement" ||
		(!offline && (metric == "team_accuracy" || metric == "tokens_per_episode"))
	if !known || metric == "step_time" {
		return "", false, errmark.Bad("run", "best_metric", fmt.Sprintf("%q", best), "not a metric this run records")
	}
	return metric, !strings.HasPrefix(best, "-"), nil
}

// check validates c before anything is written.
func (c *Config) check() error {
	if err := c.checkOptions(); err != nil {
		return err
	}
	if err := c.Train.Validate(); err != nil {
		return err
	}
	offline := c.Data != nil
	fz, err := c.featurizer()
	if err != nil {
		return err
	}
	switch {
	case offline && c.Env != nil:
		return fmt.Errorf("run: both offline data and an online environment given")
	case !offline && c.Env == nil:
		return fmt.Errorf("run: neither offline data nor an online environment given")
	case !offline && c.FeatureWidth != 0 && c.FeatureWidth != fz.Width:
		return fmt.Errorf("run: feature width %d online: the environments encode %d features (%s)", c.FeatureWidth, fz.Width, fz.Version)
	case !offline && c.FeatureVersion != "" && c.FeatureVersion != fz.Version:
		return fmt.Errorf("run: feature version %q online: the run reads %s (its features setting)", c.FeatureVersion, fz.Version)
	case offline && c.Train.FeatureLayout() != "" && c.featureVersion() != fz.Version:
		return fmt.Errorf("run: features %s: the offline data's are %s", fz.Version, c.featureVersion())
	case offline && c.Teacher != nil:
		return fmt.Errorf("run: a teacher labels online runs only")
	case offline && c.Train.RewardNoise != "":
		return fmt.Errorf("run: reward noise %s: added to online rollouts only (an offline run's rewards are its data's)", c.Train.RewardNoise)
	case c.Train.Credit != "" && (offline || c.Env.NumTasks() == 0 || !env.IsUnseeded(c.Env, 0)):
		// Refused before the supervised stage runs (Iterate would, after it).
		return fmt.Errorf("run: credit %s: %w", c.Train.Credit, env.ErrNoCounterfactual)
	case c.Teacher != nil && c.Teacher.Label == nil:
		return fmt.Errorf("run: teacher %q without a Label function", c.Teacher.Name)
	case c.Teacher != nil && c.Teacher.Again < 0:
		return fmt.Errorf("run: teacher %q: %d DAgger rounds, want ≥ 0", c.Teacher.Name, c.Teacher.Again)
	case c.Resume != nil && c.Dir == "":
		return fmt.Errorf("run: resume needs the run directory")
	case offline && c.Train.Agents().Decoupled():
		// A decision row of a rollout file or a pack does not say which
		// agent took it; online, the episode does.
		return fmt.Errorf("run: agent policy %s trains online only (offline rows do not record the agent's slot or model)", c.Train.AgentPolicy)
	}
	if _, _, err := c.bestMetric(offline); err != nil {
		return err
	}
	if !offline && c.Resume == nil && c.Teacher == nil {
		if _, err := metapolicy.ParseHeuristic(c.Train.SFT.Labels); err != nil {
			return fmt.Errorf("run: sft labels: %w", err)
		}
	}
	if !offline && c.Dir != "" {
		id, err := EnvID(c.Env, c.HeldOutEnv)
		if err != nil {
			return err
		}
		c.envID = id
	}
	if r := c.Resume; r != nil {
		p := r.Position
		switch {
		case p.Mode == "offline" && !offline:
			return fmt.Errorf("run: resume: %s is an offline run; give it its data (it will not go on online)", r.Path)
		case p.Mode == "online" && offline:
			return fmt.Errorf("run: resume: %s is an online run (%s); it cannot go on offline", r.Path, p.Env)
		case offline && !c.AllowOtherData && p.Data != nil && !p.Data.Same(c.DataID):
			return fmt.Errorf("run: resume: the data differ from what %s trained on (%v, sha256 %.12s…); give the same data, or allow other data explicitly", r.Path, p.Data.Paths, p.Data.SHA256)
		case !offline && c.EnvName != "" && p.Env != "" && c.EnvName != p.Env:
			return fmt.Errorf("run: resume: %s trained on %s, not %s", r.Path, p.Env, c.EnvName)
		case !offline && p.Env != "" && (c.HeldOut != p.HeldOut || c.SplitSeed != p.SplitSeed):
			// Another split would move training questions to the held-out side.
			return fmt.Errorf("run: resume: %s split its questions with held-out %g and split seed %d, not %g and %d: give the same split",
				r.Path, p.HeldOut, p.SplitSeed, c.HeldOut, c.SplitSeed)
		case !offline && p.EnvID != "" && c.envID != p.EnvID:
			return fmt.Errorf("run: resume: the tasks differ from what %s trained on (%s, identity %.12s…, now %.12s…): the environment matches other files now, or its split differs",
				r.Path, p.Env, p.EnvID, c.envID)
		}
	}
	return nil
}

// featurizer is the layout of an online run: Train.FeatureLayout.
func (c *Config) featurizer() (metapolicy.Featurizer, error) {
	fz, err := metapolicy.FeaturizerFor(c.Train.FeatureLayout())
	if err != nil {
		return fz, fmt.Errorf("run: %w", err)
	}
	return fz, nil
}

// width is the network's input width.
func (c *Config) width() int {
	if c.FeatureWidth > 0 {
		return c.FeatureWidth
	}
	if c.Data == nil {
		if fz, err := c.featurizer(); err == nil {
			return fz.Width
		}
	}
	return metapolicy.FeatureWidth
}

// featureVersion is what checkpoints record as the features trained on.
func (c *Config) featureVersion() string {
	if c.Data == nil {
		if fz, err := c.featurizer(); err == nil {
			return fz.Version
		}
	}
	switch {
	case c.FeatureVersion != "":
		return c.FeatureVersion
	case c.width() == metapolicy.FeatureWidth:
		return metapolicy.FeatureVersion
	}
	return fmt.Sprintf("custom-%d", c.width())
}

// metricsEvery is the grain of metrics.jsonl, the default resolved.
func (c *Config) metricsEvery() string {
	if c.MetricsEvery != "" {
		return c.MetricsEvery
	}
	return c.defaultMetricsEvery()
}

// defaultMetricsEvery is the mode's grain: per iteration offline, per
// step online.
func (c *Config) defaultMetricsEvery() string {
	if c.Data != nil {
		return MetricsEveryIteration
	}
	return MetricsEveryStep
}

// sameMetricsGrain refuses a resume that would append lines of another
// grain to the run's metrics.jsonl.
func (c *Config) sameMetricsGrain(rs *Resumable) error {
	was := c.defaultMetricsEvery()
	if o := rs.Position.Options; o != nil && o.MetricsEvery != "" {
		was = o.MetricsEvery
	}
	if now := c.metricsEvery(); now != was {
		return fmt.Errorf("run: resume: %s logs metrics per %s, this run per %s (a log keeps one grain)", rs.Path, was, now)
	}
	return nil
}
