package ablate

// The stability study (issue 32, item 4): how steadily SoftRankPO, GRPO
// and Dr.GRPO learn across training seeds, seen as the held-out accuracy
// after every EvalEvery RL iterations — one curve per estimator and seed,
// summarised per estimator as a band over seeds (median, quartiles,
// min–max). Heavy-tailed rewards come from the training recipe's
// reward_noise (trainer.ParseRewardNoise) or reward_transform; the study
// itself changes only the estimator and the seed.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/plots"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/internal/parallel"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
)

// AblateStability is the stability study's name for --ablate.
const AblateStability = "stability"

// StabilityEstimators are the estimators the stability study trains: the
// rank-based SoftRankPO and the two mean-based ones it is compared with in
// the paper (GRPO divides by the group's std, Dr.GRPO does not).
var StabilityEstimators = []string{trainer.SoftRankName, trainer.GRPOName, trainer.DrGRPOName}

// Stability file names in a study directory.
const (
	StabilityJSONName = "stability.json"
	StabilityMDName   = "stability.md"
	StabilityPNGName  = "stability.png"
)

// StabilityCurve is one training run's held-out points: the policy after
// Iter[i] RL iterations (0: the supervised policy) on the held-out tasks.
type StabilityCurve struct {
	Estimator string    `json:"estimator"`
	Seed      uint64    `json:"seed"`
	Iter      []int     `json:"iter"`
	Accuracy  []float64 `json:"accuracy"`
	Tokens    []float64 `json:"tokens_per_task"`
	Persist   []float64 `json:"persist"`
}

// StabilityBand is an estimator's curves summarised over seeds at each
// held-out point: the median, the quartiles Q1 and Q3 (linear
// interpolation between order statistics) and the min and max of the
// accuracy; FinalSpread is Max − Min at the last point.
type StabilityBand struct {
	Estimator   string    `json:"estimator"`
	Iter        []int     `json:"iter"`
	Median      []float64 `json:"median"`
	Q1          []float64 `json:"q1"`
	Q3          []float64 `json:"q3"`
	Min         []float64 `json:"min"`
	Max         []float64 `json:"max"`
	FinalSpread float64   `json:"final_spread"`
}

// Stability is a finished stability study.
type Stability struct {
	Env         string   `json:"env"`
	Lambda      float64  `json:"lambda"`
	RewardNoise string   `json:"reward_noise,omitempty"`
	Transform   string   `json:"reward_transform,omitempty"`
	Seeds       []uint64 `json:"seeds"`
	// TrainTasks and HeldOutTasks are the two sides of the split (one
	// fold held out); EvalTasks how many held-out tasks each point plays.
	TrainTasks   int              `json:"train_tasks"`
	HeldOutTasks int              `json:"held_out_tasks"`
	EvalTasks    int              `json:"eval_tasks"`
	Greedy       bool             `json:"greedy"`
	Train        trainer.Config   `json:"train"`
	Curves       []StabilityCurve `json:"curves"`
	Bands        []StabilityBand  `json:"bands"`
}

// maxStabilityEval caps the held-out tasks of a point, as the run's own
// held-out points are capped (200).
const maxStabilityEval = 200

// RunStability trains, for each estimator of StabilityEstimators and each
// seed cfg.Seed … cfg.Seed+cfg.Seeds−1, cfg.Train (its estimator and
// seed replaced; its λ the first of cfg.Lambdas) on the training side of
// one split of e (fold 0 of Folds(cfg.Folds, cfg.GroupBy, cfg.Seed) held
// out, the same for every run), with a held-out point every cfg.EvalEvery
// iterations (0: run.DefaultEvalEvery) on up to 200 held-out tasks drawn
// by cfg.Seed, every run's points playing the same episode seeds (the
// spread is the training's, not the sampling of the test episodes'). cfg.RunTeacher, when set, labels the supervised stage (the
// replay's pivotal teacher). Runs go cfg.Workers at a time; the result
// does not depend on it.
func RunStability(e env.Env, cfg study.Config) (*Stability, error) {
	if err := cfg.FillDefaults(); err != nil {
		return nil, err
	}
	evalEvery := cfg.EvalEvery
	if evalEvery < 0 {
		return nil, fmt.Errorf("study: stability: held-out points every %d iterations, want ≥ 0 (0: %d)", evalEvery, run.DefaultEvalEvery)
	}
	if evalEvery == 0 {
		evalEvery = run.DefaultEvalEvery
	}
	rounds := cfg.Rounds
	if rounds == 0 {
		rounds = env.DefaultRounds
		if r, ok := e.(*replay.Env); ok {
			rounds = r.Rounds()
		}
	}
	info := study.Describe(e)
	folds, _, err := study.Folds(info, cfg.Folds, cfg.GroupBy, cfg.Seed)
	if err != nil {
		return nil, err
	}
	held := slices.Clone(folds[0])
	// A sample across the held-out side, not its first files.
	rand.New(rand.NewPCG(cfg.Seed, 0x737461626c65)).Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] }) // "stable"
	nEval := min(len(held), maxStabilityEval)
	trainSide := study.Subset(e, study.Complement(len(info), folds[0]))
	heldSide := study.Subset(e, held[:nEval])
	s := &Stability{Env: e.Name(), Lambda: cfg.Lambdas[0], RewardNoise: cfg.Train.RewardNoise, Transform: cfg.Train.RewardTransform,
		TrainTasks: trainSide.NumTasks(), HeldOutTasks: len(folds[0]), EvalTasks: nEval, Greedy: cfg.Greedy, Train: cfg.Train}
	for k := range cfg.Seeds {
		s.Seeds = append(s.Seeds, cfg.Seed+uint64(k))
	}
	type job struct {
		est  string
		seed uint64
	}
	var jobs []job
	for _, est := range StabilityEstimators {
		for _, seed := range s.Seeds {
			jobs = append(jobs, job{est, seed})
		}
	}
	s.Curves = make([]StabilityCurve, len(jobs))
	err = parallel.Do(len(jobs), cfg.Workers, func(i int) error {
		j := jobs[i]
		tc := cfg.Train
		tc.Estimator, tc.Seed, tc.Reward.Lambda, tc.RL.Rounds = j.est, j.seed, s.Lambda, rounds
		tc.Backend = "kernel" // one thread: a run's bits do not depend on the machine
		if err := tc.Validate(); err != nil {
			return fmt.Errorf("study: stability: %s: %w", j.est, err)
		}
		rc := run.Config{Train: tc, Env: trainSide, HeldOutEnv: heldSide, EvalTasks: nEval, EvalEvery: evalEvery,
			CurveSeed: study.EvalSeed(cfg.Seed), Greedy: cfg.Greedy, Threads: 1}
		if cfg.RunTeacher != nil && tc.SFT.Epochs > 0 {
			t, err := cfg.RunTeacher(tc)
			if err != nil {
				return fmt.Errorf("study: stability: %s seed %d: %w", j.est, j.seed, err)
			}
			rc.Teacher = t
		}
		res, err := run.Train(context.Background(), rc, run.Hooks{})
		if err != nil {
			return fmt.Errorf("study: stability: %s seed %d: %w", j.est, j.seed, err)
		}
		c := StabilityCurve{Estimator: j.est, Seed: j.seed}
		for _, p := range res.HeldOut {
			c.Iter = append(c.Iter, p.Iter)
			c.Accuracy = append(c.Accuracy, p.HeldOut.TeamAccuracy)
			c.Tokens = append(c.Tokens, p.HeldOut.TokensPerTask)
			c.Persist = append(c.Persist, p.HeldOut.Persist)
		}
		s.Curves[i] = c
		return nil
	}, cfg.Progress)
	if err != nil {
		return nil, err
	}
	if s.Bands, err = StabilityBands(s.Curves); err != nil {
		return nil, err
	}
	return s, nil
}

// StabilityBands summarises curves per estimator (in their order of first
// appearance) over its seeds, point by point; an estimator's curves must
// have the same iterations.
func StabilityBands(curves []StabilityCurve) ([]StabilityBand, error) {
	var order []string
	by := map[string][]StabilityCurve{}
	for _, c := range curves {
		if _, ok := by[c.Estimator]; !ok {
			order = append(order, c.Estimator)
		}
		by[c.Estimator] = append(by[c.Estimator], c)
	}
	var out []StabilityBand
	for _, est := range order {
		cs := by[est]
		b := StabilityBand{Estimator: est, Iter: slices.Clone(cs[0].Iter)}
		if len(b.Iter) == 0 {
			return nil, fmt.Errorf("study: stability: %s seed %d has no held-out point", est, cs[0].Seed)
		}
		for _, c := range cs[1:] {
			if !slices.Equal(c.Iter, b.Iter) {
				return nil, fmt.Errorf("study: stability: %s: seed %d has points at %v, seed %d at %v", est, c.Seed, c.Iter, cs[0].Seed, b.Iter)
			}
		}
		for i := range b.Iter {
			v := make([]float64, len(cs))
			for k, c := range cs {
				v[k] = c.Accuracy[i]
			}
			slices.Sort(v)
			b.Median = append(b.Median, quantile(v, 0.5))
			b.Q1 = append(b.Q1, quantile(v, 0.25))
			b.Q3 = append(b.Q3, quantile(v, 0.75))
			b.Min = append(b.Min, v[0])
			b.Max = append(b.Max, v[len(v)-1])
		}
		last := len(b.Iter) - 1
		b.FinalSpread = b.Max[last] - b.Min[last]
		out = append(out, b)
	}
	return out, nil
}

// quantile is the q-quantile of sorted v, interpolating linearly between
// order statistics (R's type 7).
func quantile(v []float64, q float64) float64 {
	h := q * float64(len(v)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(v) {
		return v[len(v)-1]
	}
	return v[i] + (h-lo)*(v[i+1]-v[i])
}

// WritePNG draws the bands (held-out accuracy against RL iterations).
func (s *Stability) WritePNG(w io.Writer) error {
	names := map[string]string{trainer.SoftRankName: "SoftRankPO", trainer.GRPOName: "GRPO", trainer.DrGRPOName: "Dr.GRPO"}
	var bands []plots.Band
	for _, b := range s.Bands {
		pb := plots.Band{Name: cmp.Or(names[b.Estimator], b.Estimator), Median: b.Median, Q1: b.Q1, Q3: b.Q3, Min: b.Min, Max: b.Max}
		for _, it := range b.Iter {
			pb.X = append(pb.X, float64(it))
		}
		bands = append(bands, pb)
	}
	title := fmt.Sprintf("%s, %d seeds, %s", envLabel(s.Env), len(s.Seeds), cmp.Or(s.RewardNoise, "no reward noise"))
	if s.Transform != "" && s.Transform != trainer.TransformIdentity {
		title += ", " + s.Transform
	}
	title += " · line: median, dark: IQR, pale: min–max over seeds"
	return plots.WriteBands(w, title, "RL iteration", fmt.Sprintf("held-out team accuracy (%d tasks)", s.EvalTasks), bands)
}

// envLabel shortens a long environment name for a title.
func envLabel(name string) string {
	if len(name) > 40 {
		if k, _, ok := strings.Cut(name, ":"); ok {
			return k
		}
		return name[:40]
	}
	return name
}

// WriteJSON writes s as indented JSON.
func (s *Stability) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteMarkdown writes the bands as a table: per estimator, the median
// and [min, max] at the first and last points, and the largest spread
// over the seeds at any point.
func (s *Stability) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Stability: %s\n\n", s.Env)
	fmt.Fprintf(&b, "%d seeds (%v); λ %v; reward noise %s; reward transform %s; %d training tasks, %d held out, %d played per point (greedy %v)\n\n",
		len(s.Seeds), s.Seeds, s.Lambda, cmp.Or(s.RewardNoise, "none"), cmp.Or(s.Transform, "identity"), s.TrainTasks, s.HeldOutTasks, s.EvalTasks, s.Greedy)
	b.WriteString("| estimator | points | first: median [min, max] | last: median [min, max] | last IQR | last − first, median over seeds | largest spread (max − min) | seeds ending below their start | tokens/task first → last, median | persist first → last, median |\n|---|---:|---|---|---|---|---|---:|---|---|\n")
	for _, band := range s.Bands {
		n := len(band.Iter) - 1
		var deltas []float64
		worse, widest := 0, 0.0
		for _, c := range s.Curves {
			if c.Estimator != band.Estimator {
				continue
			}
			d := c.Accuracy[n] - c.Accuracy[0]
			deltas = append(deltas, d)
			if d < 0 {
				worse++
			}
		}
		for i := range band.Iter {
			widest = max(widest, band.Max[i]-band.Min[i])
		}
		slices.Sort(deltas)
		med := func(pick func(StabilityCurve) []float64, i int) float64 {
			var v []float64
			for _, c := range s.Curves {
				if c.Estimator == band.Estimator {
					v = append(v, pick(c)[i])
				}
			}
			slices.Sort(v)
			return quantile(v, 0.5)
		}
		tokens := func(c StabilityCurve) []float64 { return c.Tokens }
		persist := func(c StabilityCurve) []float64 { return c.Persist }
		fmt.Fprintf(&b, "| %s | %d | %.3f [%.3f, %.3f] | %.3f [%.3f, %.3f] | %.3f–%.3f | %+.1f points | %.1f points | %d of %d | %.0f → %.0f | %.3f → %.3f |\n",
			band.Estimator, len(band.Iter), band.Median[0], band.Min[0], band.Max[0], band.Median[n], band.Min[n], band.Max[n],
			band.Q1[n], band.Q3[n], 100*quantile(deltas, 0.5), 100*widest, worse, len(deltas),
			med(tokens, 0), med(tokens, n), med(persist, 0), med(persist, n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RunStabilityInto runs the stability study of cfg on e (RunStability)
// into d: stability.json, stability.md and stability.png, each
// atomically. A study that fails leaves d as it found it.
func RunStabilityInto(d *study.Dir, e env.Env, cfg study.Config) (*Stability, error) {
	s, err := RunStability(e, cfg)
	if err != nil {
		return nil, errors.Join(err, d.Abandon())
	}
	if err := os.MkdirAll(d.Path(), 0o755); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{{StabilityJSONName, s.WriteJSON}, {StabilityMDName, s.WriteMarkdown}, {StabilityPNGName, s.WritePNG}} {
		if err := outfile.WriteFile(filepath.Join(d.Path(), f.name), f.write); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Wrote is the line that says s was written into dir, took after it
// started.
func (s *Stability) Wrote(dir string, took time.Duration) string {
	return fmt.Sprintf("study: stability: %d runs in %s; wrote %s/{%s,%s,%s}", len(s.Curves), took.Round(time.Second), dir,
		StabilityMDName, StabilityJSONName, StabilityPNGName)
}

// WriteOut prints s: stability.md, or with asJSON stability.json.
func (s *Stability) WriteOut(w io.Writer, asJSON bool) error {
	if asJSON {
		return s.WriteJSON(w)
	}
	return s.WriteMarkdown(w)
}
