package study

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/study/internal/parallel"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
)

// Config says which study to run. The zero value of a field means its
// default (DefaultConfig).
type Config struct {
	// Folds is K of the K-fold split by question (ignored by ByModel).
	Folds int `json:"folds"`
	// Seeds is S: the whole cross-validation runs for seeds Seed,
	// Seed+1, …, Seed+S−1, each with its own fold shuffle, training seed
	// and episode seeds.
	Seeds int    `json:"seeds"`
	Seed  uint64 `json:"seed"`
	// GroupBy deals tasks into folds by question or by model.
	GroupBy GroupBy `json:"group_by"`
	// Lambdas are the token costs λ (reward per 1000 tokens) swept: one
	// learned policy per λ per fold.
	Lambdas []float64 `json:"lambdas"`
	// Episodes is the number of episodes per task and policy on the test
	// side; Rounds the deliberation rounds (0: the most a replay recorded,
	// or env.DefaultRounds). A replayed task plays at most the rounds its
	// own transcript recorded (env.TaskRounder), in training and on the
	// test side.
	Episodes int `json:"episodes"`
	Rounds   int `json:"rounds"`
	// Baselines are the fixed protocols compared (heuristic names,
	// metapolicy.ParseHeuristic); nil means env.Baselines of the Env (every
	// heuristic the Env can play).
	Baselines []string `json:"baselines"`
	// Greedy makes the learned policies take their most probable action
	// on the test side instead of sampling.
	Greedy bool `json:"greedy"`
	// Train is the training configuration of every fold; the study sets
	// its Seed, Reward.Lambda and RL.Rounds.
	Train trainer.Config `json:"train"`
	// Recipe is the named recipe put over Train (WithRecipe), "" none;
	// RecipeSet the settings it set.
	Recipe    string                  `json:"recipe,omitempty"`
	RecipeSet []trainer.RecipeSetting `json:"-"`
	// Bootstrap configures every interval of the report (resampled by
	// question).
	Bootstrap stats.Bootstrap `json:"bootstrap"`

	// Trainer trains a fold's policy; nil means TrainInMemory.
	Trainer Trainer `json:"-"`
	// EvalEvery is ablate.RunStability's period of held-out points, in RL
	// iterations (0: run.DefaultEvalEvery); the study itself takes none.
	EvalEvery int `json:"eval_every,omitempty"`
	// RunTeacher, when set, labels the supervised stage of the runs
	// ablate.RunStability trains (whose held-out points need the run itself, not
	// a Trainer's policy): Resolve sets it with Trainer.
	RunTeacher func(trainer.Config) (*run.Teacher, error) `json:"-"`
	// Workers is the number of folds run at once (0: GOMAXPROCS); the
	// results do not depend on it.
	Workers int `json:"-"`
	// Progress, when set, is called after each job (one fold of one seed:
	// its baselines, or one learned policy) from the goroutine of CrossValidate.
	Progress func(done, total int) `json:"-"`
}

// DefaultConfig is a study sized to run on the shared transcripts in
// minutes on two cores: 5 folds × 3 seeds, λ ∈ {0, 0.1, 0.5}, one episode per
// task, and a shortened online run per fold (20 iterations of 32 tasks ×
// 4 episodes, no supervised stage: transcripts carry no confidence without the text
// critic, so
// the default threshold teacher would only teach "refine").
func DefaultConfig() Config {
	t := trainer.DefaultConfig()
	t.SFT.Epochs = 0
	t.RL.Iterations, t.RL.TasksPerIter, t.RL.EpisodesPerTask = 20, 32, 4
	return Config{
		Folds: 5, Seeds: 3, Seed: 1, GroupBy: ByQuestion, Lambdas: []float64{0, 0.1, 0.5},
		Episodes: 1, Train: t,
		Bootstrap: stats.Bootstrap{Resamples: stats.DefaultResamples, Level: 0.95, Seed: 1},
	}
}

// DefaultConfigFor is DefaultConfig with the training recipe of an
// environment kind (trainer.DefaultRecipe: trainer.RecipeSim or
// trainer.RecipeReplay), shortened as DefaultConfig's run is (20
// iterations of 32 tasks × 4 episodes): on transcripts, the pivotal
// teacher over gate for trainer.ReplaySFTEpochs epochs, features v2, the learned
// policies played greedy on the test side — the recipe `mpdf train --env
// replay:` starts from. Its teacher labels through package
// trainer/teacher: set Trainer to teacher.Train (as mpdf study does when
// teacher.Handles the labels). The simulator's is DefaultConfig.
func DefaultConfigFor(kind string) (Config, error) {
	c := DefaultConfig()
	r, err := trainer.DefaultRecipe(kind)
	if err != nil {
		return c, err
	}
	if kind == trainer.RecipeSim {
		return c, nil
	}
	t := r.Train
	t.RL.Iterations, t.RL.TasksPerIter, t.RL.EpisodesPerTask = c.Train.RL.Iterations, c.Train.RL.TasksPerIter, c.Train.RL.EpisodesPerTask
	c.Train, c.Greedy = t, r.Greedy
	return c, nil
}

// DefaultSFTEpochs is the supervised stage of a study's training runs when
// none is given (and the teacher can label the environment).
const DefaultSFTEpochs = 5

// SFTEpochs resolves the supervised epochs of a study's training runs:
// given (≥ 0) as is; not given (< 0), DefaultSFTEpochs, except for a
// heuristic teacher (the threshold one by default) on transcripts
// (replay), whose confidence is missing unless the text critic fills it
// (critic=on; then give the epochs to use it): 0 there. A teacher that
// labels from the transcripts' answers (answers: hindsight and pivotal,
// trainer/teacher.Handles) keeps its supervised stage on a replay too.
func SFTEpochs(given int, answers, replay bool) int {
	switch {
	case given >= 0:
		return given
	case replay && !answers:
		return 0
	}
	return DefaultSFTEpochs
}

// OracleName names the hindsight oracle's rows: per task, the fixed
// protocol (random excluded) with the most correct episodes, fewest tokens
// on a tie, chosen knowing the answer. A ceiling of "pick the protocol per
// question", not a policy.
const OracleName = "oracle (hindsight)"

// LearnedName is the name of the learned policy trained with token cost λ.
func LearnedName(lambda float64) string {
	return "mpdf λ=" + strconv.FormatFloat(lambda, 'g', -1, 64)
}

// ResultRow is one task × policy × seed: the test-side episodes of the task.
type ResultRow struct {
	Seed   uint64 `json:"seed"`
	Fold   int    `json:"fold"`
	Task   string `json:"task"`  // task id
	Index  int    `json:"index"` // task number in the Env
	Model  string `json:"model"`
	File   string `json:"file,omitempty"` // transcript file of a replayed task
	Policy string `json:"policy"`
	// Lambda is the token cost the policy was trained with (learned rows).
	Lambda   *float64 `json:"lambda,omitempty"`
	Episodes int      `json:"episodes"`
	Scored   int      `json:"scored"`  // episodes with a gold answer
	Correct  int      `json:"correct"` // scored episodes whose final team answer is the gold
	Tokens   int64    `json:"tokens"`  // over all episodes and rounds
	Persist  int      `json:"persist"` // decisions, all episodes
	Refine   int      `json:"refine"`
	Concede  int      `json:"concede"`
}

// Accuracy is r's share of scored episodes answered right (r must have
// one scored).
func (r *ResultRow) Accuracy() float64 { return float64(r.Correct) / float64(r.Scored) }

// TokensPerEpisode is r's tokens per episode.
func (r *ResultRow) TokensPerEpisode() float64 { return float64(r.Tokens) / float64(r.Episodes) }

// Study is a finished study: its configuration, the tasks, and the rows.
type Study struct {
	Config  Config      `json:"config"`
	Env     string      `json:"env"`
	Rounds  int         `json:"rounds"`
	Tasks   []TaskInfo  `json:"-"`
	Folds   []string    `json:"folds"` // fold names (models when by model)
	Rows    []ResultRow `json:"rows"`
	Learned []string    `json:"learned"`   // learned policy names, by λ
	Fixed   []string    `json:"baselines"` // baseline names, in order
	// Notes say what the study left out and why: a default baseline that
	// plays as another by construction (threshold without a confidence).
	Notes []string `json:"notes,omitempty"`

	free *seedFree // baseline rows that no seed changes (nil: none kept)
}

// Jobs is about how many trainings and evaluations a study of c runs (per
// seed, a learned policy per λ and the baselines, per fold unless the
// folds are the models): a progress bar's first total, before the study
// knows its models.
func (c Config) Jobs() int {
	jobs := c.Seeds * (1 + len(c.Lambdas))
	if c.GroupBy != ByModel {
		jobs *= c.Folds
	}
	return jobs
}

// FillDefaults sets what c leaves zero to DefaultConfig's (the trainer
// TrainInMemory, the workers one per CPU) and checks the result: what
// CrossValidate does with its Config first.
func (c *Config) FillDefaults() error {
	d := DefaultConfig()
	if c.Folds == 0 {
		c.Folds = d.Folds
	}
	if c.Seeds == 0 {
		c.Seeds = d.Seeds
	}
	if c.GroupBy == "" {
		c.GroupBy = ByQuestion
	}
	if c.Lambdas == nil {
		c.Lambdas = d.Lambdas
	}
	if c.Episodes == 0 {
		c.Episodes = 1
	}
	if c.Trainer == nil {
		c.Trainer = TrainInMemory
	}
	if c.Train.Hidden == nil {
		c.Train = d.Train
	}
	if c.Bootstrap.Resamples == 0 {
		c.Bootstrap.Resamples = d.Bootstrap.Resamples
	}
	if c.Bootstrap.Level == 0 {
		c.Bootstrap.Level = d.Bootstrap.Level
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case c.Seeds < 1 || c.Episodes < 1 || c.Rounds < 0 || c.Workers < 0:
		return fmt.Errorf("study: seeds %d, episodes %d, rounds %d, workers %d: want seeds, episodes ≥ 1, rounds, workers ≥ 0",
			c.Seeds, c.Episodes, c.Rounds, c.Workers)
	case len(c.Lambdas) == 0:
		return fmt.Errorf("study: no token cost λ to train with")
	}
	for i, l := range c.Lambdas {
		if !(l >= 0) || slices.Contains(c.Lambdas[:i], l) {
			return fmt.Errorf("study: λ %v: want distinct values ≥ 0", l)
		}
	}
	return nil
}

// A Cell is one unit of CrossValidate's work: one learned policy (seed,
// fold, λ: a training run, then its test episodes) or one fold's
// baselines (seed, fold: test episodes only; the oracle's rows are drawn
// from theirs).
type Cell struct {
	Seed      uint64
	Fold      int
	Test      []int // the fold's tasks: the test side
	Lambda    float64
	Baselines bool // the fold's baselines, not a learned policy
}

// A Plan is a study resolved and dealt into its cells before any of them
// runs (NewPlan): CrossValidate runs them all, a shard (study/shards) its
// share.
type Plan struct {
	Study  *Study // the study without its rows
	Config Config // resolved (FillDefaults, the environment's baselines)
	// Cells are listed per seed and fold: the baselines, then each λ.
	Cells []Cell
	bases []metapolicy.Policy
}

// CrossValidate runs the study on e: for each seed, it deals the tasks into folds;
// for each fold it trains one policy per λ on the other folds (cfg.Trainer)
// and plays every baseline and learned policy on the fold's tasks with the
// same episode seeds (common random numbers). It then adds the hindsight
// oracle's rows. The same configuration and Env give the same rows,
// whatever cfg.Workers.
//
// A replayed task is played, in training and on the test side, for the
// rounds its transcript recorded (env.TaskRounder): in a corpus that mixes
// one- and three-round files, a one-round task's agents do not refine
// again and pay their last answer's tokens twice.
func CrossValidate(e env.Env, cfg Config) (*Study, error) {
	p, err := NewPlan(e, cfg)
	if err != nil {
		return nil, err
	}
	s, jobs := p.Study, p.Cells
	out := make([][]ResultRow, len(jobs))
	err = parallel.Do(len(jobs), p.Config.Workers, func(i int) error {
		rows, err := p.Run(e, jobs[i])
		out[i] = rows
		return err
	}, p.Config.Progress)
	if err != nil {
		return nil, err
	}
	orc := make([][]ResultRow, len(jobs))
	n := 0
	for i, rows := range out {
		if jobs[i].Baselines {
			orc[i] = Oracle(rows, s.Fixed)
		}
		n += len(rows) + len(orc[i])
	}
	s.Rows = make([]ResultRow, 0, n) // tens of thousands of rows: no regrowing
	for i, rows := range out {
		s.Rows = append(append(s.Rows, rows...), orc[i]...)
	}
	return s, nil
}

// Check refuses what CrossValidate would refuse before training anything (the
// config, the baselines, the folds), without running: a caller checks
// before it touches an output directory.
func Check(e env.Env, cfg Config) error {
	_, err := NewPlan(e, cfg)
	return err
}

// NewPlan resolves cfg for e and lists CrossValidate's cells.
func NewPlan(e env.Env, cfg Config) (*Plan, error) {
	if err := cfg.FillDefaults(); err != nil {
		return nil, err
	}
	var notes []string
	if cfg.Baselines == nil {
		cfg.Baselines = env.Baselines(e)
		// Without a confidence, threshold refines on every turn: debate's
		// row under another name (the verdict's rule would drop it too).
		if r, ok := e.(*replay.Env); ok && !r.Critic() {
			cfg.Baselines = slices.DeleteFunc(cfg.Baselines, func(b string) bool { return b == metapolicy.HeuristicThreshold })
			notes = append(notes, "threshold left out: the transcripts state no confidence, so it refines on every turn, as debate does (critic=on in the env spec reads one from each text)")
		}
	}
	rounds := cfg.Rounds
	if rounds == 0 {
		rounds = env.DefaultRounds
		if r, ok := e.(*replay.Env); ok {
			rounds = r.Rounds()
		}
	}
	s := &Study{Config: cfg, Env: e.Name(), Rounds: rounds, Tasks: Describe(e), Notes: notes, free: &seedFree{}}
	bases, err := s.baselines()
	if err != nil {
		return nil, err
	}
	for _, l := range cfg.Lambdas {
		s.Learned = append(s.Learned, LearnedName(l))
	}
	jobs, names, err := s.cells()
	if err != nil {
		return nil, err
	}
	s.Folds = names
	return &Plan{Study: s, Config: cfg, Cells: jobs, bases: bases}, nil
}

// Run plays one cell of p on e (trains its policy first, for a learned
// one) and returns its rows: the fold's tasks in order, once per policy.
// Cells may run at once.
func (p *Plan) Run(e env.Env, c Cell) ([]ResultRow, error) {
	return p.Study.runJob(e, &p.Config, p.bases, p.Study.Rounds, c)
}

// baselines parses the configured baselines and records their names.
func (s *Study) baselines() ([]metapolicy.Policy, error) {
	bases := make([]metapolicy.Policy, len(s.Config.Baselines))
	s.Fixed = nil
	for i, name := range s.Config.Baselines {
		p, err := metapolicy.ParseHeuristic(name)
		if err != nil {
			return nil, fmt.Errorf("study: baseline: %w", err)
		}
		bases[i] = p
		s.Fixed = append(s.Fixed, p.Name())
	}
	return bases, nil
}

// Cells lists the study's cells in NewPlan's order (seed, fold, then
// baselines and each λ) with their folds' tasks, dealt again from s's
// Config and Tasks: what a merge of shards needs to put their rows in
// CrossValidate's order and check each cell holds its fold's rows.
func (s *Study) Cells() ([]Cell, error) {
	jobs, _, err := s.cells()
	return jobs, err
}

// cells is Cells with the folds' names (the last seed's: every seed's are
// the same).
func (s *Study) cells() ([]Cell, []string, error) {
	var jobs []Cell
	var names []string
	for k := range s.Config.Seeds {
		seed := s.Config.Seed + uint64(k)
		folds, n, err := Folds(s.Tasks, s.Config.Folds, s.Config.GroupBy, seed)
		if err != nil {
			return nil, nil, err
		}
		names = n
		for f, test := range folds {
			jobs = append(jobs, Cell{Seed: seed, Fold: f, Test: test, Baselines: true})
			for _, l := range s.Config.Lambdas {
				jobs = append(jobs, Cell{Seed: seed, Fold: f, Test: test, Lambda: l})
			}
		}
	}
	return jobs, names, nil
}

// runJob plays one cell's policies on its fold.
func (s *Study) runJob(e env.Env, cfg *Config, bases []metapolicy.Policy, rounds int, j Cell) ([]ResultRow, error) {
	opts := env.RunOptions{Tasks: j.Test, Episodes: cfg.Episodes, Rounds: rounds, Seed: EvalSeed(j.Seed), Workers: 1}
	rows := make([]ResultRow, 0, len(j.Test)*max(1, len(bases)))
	play := func(p metapolicy.Policy, name string, lambda *float64) error {
		n := len(rows)
		k := 0
		return env.Play(e, p, opts, func(ep *data.Episode) error {
			if k%cfg.Episodes == 0 {
				t := j.Test[k/cfg.Episodes]
				rows = append(rows, ResultRow{Seed: j.Seed, Fold: j.Fold, Task: ep.Task, Index: t, Model: s.Tasks[t].Model, File: s.Tasks[t].File, Policy: name, Lambda: lambda})
			}
			k++
			tally(&rows[n+(k-1)/cfg.Episodes], ep)
			return nil
		})
	}
	if j.Baselines {
		for i, p := range bases {
			var err error
			if s.free != nil {
				rows, err = s.playBase(e, cfg, opts, i, p, s.Fixed[i], j, rows)
			} else {
				err = play(p, s.Fixed[i], nil)
			}
			if err != nil {
				return nil, fmt.Errorf("study: seed %d: fold %d: %w", j.Seed, j.Fold, err)
			}
		}
		return rows, nil
	}
	tc := cfg.Train
	tc.Seed, tc.Reward.Lambda, tc.RL.Rounds = j.Seed, j.Lambda, rounds
	pol, err := cfg.Trainer(subset{Env: e, tasks: Complement(len(s.Tasks), j.Test)}, tc)
	if err != nil {
		return nil, fmt.Errorf("study: seed %d: fold %d: λ %v: %w", j.Seed, j.Fold, j.Lambda, err)
	}
	if cfg.Greedy {
		pol = metapolicy.GreedyPolicy{Policy: pol}
	}
	l := j.Lambda
	if err := play(pol, LearnedName(l), &l); err != nil {
		return nil, fmt.Errorf("study: seed %d: fold %d: λ %v: %w", j.Seed, j.Fold, j.Lambda, err)
	}
	return rows, nil
}

// EvalSeed is the episode seed of the test side for a study seed, apart
// from the training seeds derived from it.
func EvalSeed(seed uint64) uint64 { return seed ^ 0x6576616c00000000 } // "eval"

// tally adds one episode to its row.
func tally(r *ResultRow, ep *data.Episode) {
	r.Episodes++
	for t, rd := range ep.Rounds {
		for _, turn := range rd.Turns {
			r.Tokens += int64(turn.Tokens)
			if t == 0 || turn.Action == nil {
				continue
			}
			switch *turn.Action {
			case metapolicy.Persist:
				r.Persist++
			case metapolicy.Refine:
				r.Refine++
			case metapolicy.Concede:
				r.Concede++
			}
		}
	}
	if ep.Gold == "" {
		return
	}
	r.Scored++
	if data.TeamAnswer(ep.Rounds[len(ep.Rounds)-1].Turns) == ep.Gold {
		r.Correct++
	}
}

// Oracle returns the hindsight oracle's rows of one fold: for each task,
// the row of the fixed protocol (random excluded: it is not one protocol)
// with the most correct episodes, fewest tokens on a tie, then the first
// in baseline order.
func Oracle(rows []ResultRow, fixed []string) []ResultRow {
	best := map[int]int{} // task → index in rows
	var order []int
	for i, r := range rows {
		if r.Policy == metapolicy.HeuristicRandom || !slices.Contains(fixed, r.Policy) {
			continue
		}
		b, ok := best[r.Index]
		if !ok {
			best[r.Index] = i
			order = append(order, r.Index)
			continue
		}
		o := rows[b]
		if r.Correct > o.Correct || r.Correct == o.Correct && r.Tokens < o.Tokens {
			best[r.Index] = i
		}
	}
	out := make([]ResultRow, 0, len(order))
	for _, t := range order {
		r := rows[best[t]]
		r.Policy = OracleName
		out = append(out, r)
	}
	return out
}

// RecipeGiven says which of the replay recipe's settings a user gave
// (flags win over the recipe).
type RecipeGiven struct{ Labels, Epochs, Features, Greedy bool }

// WithReplayRecipe returns c with the transcript recipe (DefaultConfigFor
// RecipeReplay) where given does not say otherwise: its teacher, and with
// it its supervised epochs unless those are given; its feature layout; its
// greedy test side. sftEpochs is the epochs given (< 0: none), returned
// as the recipe sets it.
func WithReplayRecipe(c Config, sftEpochs int, given RecipeGiven) (Config, int, error) {
	rec, err := DefaultConfigFor(trainer.RecipeReplay)
	if err != nil {
		return c, sftEpochs, err
	}
	if !given.Labels {
		c.Train.SFT.Labels = rec.Train.SFT.Labels
		if !given.Epochs {
			sftEpochs = rec.Train.SFT.Epochs
		}
	}
	if !given.Features {
		c.Train.Features = rec.Train.Features
	}
	if !given.Greedy {
		c.Greedy = rec.Greedy
	}
	return c, sftEpochs, nil
}
