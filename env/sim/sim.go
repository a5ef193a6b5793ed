package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// Config configures the deliberation simulator. The zero value is the
// embedded default environment: 500 tasks, three agents, three plausible
// wrong answers per task, concede at 20 tokens, confidence always present,
// and the model's coefficients fitted to the shared debate transcripts
// (DefaultParams).
type Config struct {
	// Seed draws the task pool (difficulties, answers, attractors). The
	// episodes themselves draw from the seed given to Run.
	Seed uint64 `json:"seed"`
	// Tasks is the pool size; 0 means 500.
	Tasks int `json:"tasks"`
	// Agents is the team size N ≥ 2; 0 means len(Skills), or 3.
	Agents int `json:"agents"`
	// Skills holds one skill per agent, on the difficulty scale: an agent
	// answers a task of difficulty d right on its own with probability
	// σ(Params.SolveSlope·(skill − d)). nil gives every agent Params.Skill
	// (the corpus's teams are one model each).
	Skills []float64 `json:"skills,omitempty"`
	// WrongAnswers is the number of plausible wrong answers per task (≥ 1);
	// 0 means 3. The first is the attractor most wrong agents fall into.
	WrongAnswers int `json:"wrong_answers"`
	// ConcedeTokens is the cost of a concede turn; 0 means 20.
	ConcedeTokens int `json:"concede_tokens"`
	// MissingConfidence is the probability that a turn's introspective
	// confidence is missing (as when a live judge call fails); 0 means
	// never.
	MissingConfidence float64 `json:"missing_confidence"`
	// Params are the model's coefficients; nil means DefaultParams, the
	// embedded calibration.
	Params *Params `json:"params,omitempty"`
}

// Defaults of Config's zero fields.
const (
	DefaultTasks         = 500
	DefaultAgents        = 3
	DefaultWrongAnswers  = 3
	DefaultConcedeTokens = 20
)

// Simulator is the embedded default environment: a fixed pool of synthetic
// tasks (Config.Seed draws it) and a stochastic model of how LLM agents
// answer, refine and concede, with coefficients [Params]. It is safe for
// concurrent use: Start only reads the pool.
//
// Each task has a difficulty d ~ N(DifficultyMean, DifficultySpread²), a
// gold answer, WrongAnswers plausible wrong answers (integers) and a
// question prompt of exp(N(·,·)) tokens. The first wrong answer is the
// attractor, taking about Attractor of the wrong answers, so wrong agents
// often agree. In round 0 agent i is right with probability
// σ(SolveSlope·(skill_i − d)) (every skill Params.Skill unless
// Config.Skills says otherwise), else gives a wrong answer; an answer is
// unreadable ("", no vote) with probability Unreadable on average, more on
// some tasks than on others (UnreadableCorrelation). Each answer comes
// with a completion length drawn from a log-normal of right or of wrong
// answers (of round 0 or of revisions), reasoning steps and hedges drawn
// from overdispersed Poissons whose means differ for right and wrong answers
// and grow with the length, a stated self-confidence with probability
// StatedRate, and an introspective confidence — the simulator's confidence
// signal, planted: no transcript holds one — σ(z) with z = bias_i
// + ConfRight | ConfAttractor | ConfOther − ConfDifficulty·(d − mean) +
// ConfConsensus·(share of seen peers agreeing) + ConfNoise·N(0,1), missing
// with probability Config.MissingConfidence.
//
// The meta-actions act as follows (seen peers are the other agents whose
// previous turn has an answer):
//
//   - persist keeps the turn as it was and costs 0 tokens;
//   - concede adopts metapolicy.ConcedeTarget of the previous round, with
//     the mean confidence of the target's holders discounted by a tenth
//     and the profile of its most confident holder, for
//     Config.ConcedeTokens (default 20); with no target, or when the
//     target is its own answer, the agent keeps its state at that cost;
//   - refine redraws the answer. A wrong agent is fixed with probability
//     σ(FixBase + FixGold·g + FixSame·s + FixAllGold·[g = 1] +
//     FixSkill·(skill − d)), g the share of seen peers on the gold and s
//     the share on its own wrong answer; not fixed, it joins the peers'
//     most common wrong answer with probability Conform·(its share), else
//     keeps its answer with probability KeepWrong, else drifts to another
//     wrong answer. A right agent breaks with probability σ(BreakBase +
//     BreakWrong·w + BreakAllWrong·[w = 1] + BreakGap·(d − skill)), w the
//     share of seen peers on their most common wrong answer, and then joins
//     that answer with probability BreakTo. The revision is unreadable with
//     probability RevisionUnreadable. A refine costs PromptBase +
//     PromptQuestion·(question) + PromptOwn·(own previous completion) +
//     PromptPeers·(seen peers' previous completions) prompt tokens plus the
//     new completion.
type Simulator struct {
	cfg   Config
	p     Params
	tasks []simTask
	bias  []float64 // per-agent confidence bias (overconfidence), logit scale
}

// simTask is one task of the pool.
type simTask struct {
	id         string
	question   string
	difficulty float64   // higher is harder
	prompt     int       // tokens of the question prompt
	unreadable float64   // this task's round-0 unreadable rate
	revUnread  float64   // this task's revision unreadable rate
	gold       string    // the correct answer
	wrong      []string  // plausible wrong answers, attractor first
	wrongCum   []float64 // cumulative probabilities of the wrong answers
}

// New checks cfg, fills its defaults and draws the task pool.
func New(cfg Config) (*Simulator, error) {
	if cfg.Tasks < 0 || cfg.Agents < 0 || cfg.WrongAnswers < 0 || cfg.ConcedeTokens < 0 {
		return nil, fmt.Errorf("sim: simulator: negative count (tasks %d, agents %d, wrong answers %d, concede tokens %d)",
			cfg.Tasks, cfg.Agents, cfg.WrongAnswers, cfg.ConcedeTokens)
	}
	if !(cfg.MissingConfidence >= 0 && cfg.MissingConfidence <= 1) {
		return nil, fmt.Errorf("sim: simulator: missing_confidence %v outside [0,1]", cfg.MissingConfidence)
	}
	var p Params
	if cfg.Params == nil {
		p = DefaultParams()
	} else {
		p = *cfg.Params
		if err := p.Check(); err != nil {
			return nil, err
		}
	}
	cfg.Params = &p
	if cfg.Tasks == 0 {
		cfg.Tasks = DefaultTasks
	}
	switch {
	case cfg.Agents == 0 && len(cfg.Skills) > 0:
		cfg.Agents = len(cfg.Skills)
	case cfg.Agents == 0:
		cfg.Agents = DefaultAgents
	}
	if cfg.Agents < 2 {
		return nil, fmt.Errorf("sim: simulator: agents %d, want ≥ 2", cfg.Agents)
	}
	if cfg.Agents > metapolicy.MaxAgents {
		return nil, fmt.Errorf("sim: simulator: agents %d, more than the %d a team may hold", cfg.Agents, metapolicy.MaxAgents)
	}
	if cfg.Skills == nil {
		cfg.Skills = make([]float64, cfg.Agents)
		for i := range cfg.Skills {
			cfg.Skills[i] = p.Skill
		}
	} else {
		cfg.Skills = append([]float64(nil), cfg.Skills...)
	}
	if len(cfg.Skills) != cfg.Agents {
		return nil, fmt.Errorf("sim: simulator: skills: %d values for %d agents", len(cfg.Skills), cfg.Agents)
	}
	for i, s := range cfg.Skills {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("sim: simulator: skills[%d]: %v", i, s)
		}
	}
	if cfg.WrongAnswers == 0 {
		cfg.WrongAnswers = DefaultWrongAnswers
	}
	if cfg.ConcedeTokens == 0 {
		cfg.ConcedeTokens = DefaultConcedeTokens
	}
	s := &Simulator{cfg: cfg, p: p, bias: make([]float64, cfg.Agents)}
	strongest := slices.Max(cfg.Skills)
	for i, sk := range cfg.Skills {
		// Weaker agents are more overconfident: the team's confidences are
		// informative but not comparable at face value.
		s.bias[i] = p.Overconfidence * (strongest - sk)
	}
	s.drawTasks()
	return s, nil
}

// drawTasks draws the task pool from cfg.Seed.
func (s *Simulator) drawTasks() {
	rng := rand.New(rand.NewPCG(s.cfg.Seed, 0x7a5c_5eed))
	s.tasks = make([]simTask, s.cfg.Tasks)
	k := s.cfg.WrongAnswers
	for i := range s.tasks {
		t := &s.tasks[i]
		t.id = fmt.Sprintf("sim-%04d", i)
		t.difficulty = s.p.DifficultyMean + s.p.DifficultySpread*rng.NormFloat64()
		t.prompt = max(1, int(math.Round(s.p.Question.draw(rng.NormFloat64()))))
		t.unreadable, t.revUnread = s.p.Unreadable, s.p.RevisionUnreadable
		if rho, m := s.p.UnreadableCorrelation, s.p.Unreadable; rho > 0 && m > 0 && m < 1 {
			k := 1/min(rho, 0.999) - 1 // Beta concentration a + b
			b := betaDraw(rng, m*k, (1-m)*k)
			t.unreadable, t.revUnread = b, min(1, b*s.p.RevisionUnreadable/m)
		}
		t.question = fmt.Sprintf("Simulated task %d (difficulty %.2f).", i, t.difficulty)
		// Answers are distinct integers, as in arithmetic word problems.
		used := map[int]bool{}
		draw := func() string {
			for {
				v := 10 + rng.IntN(990)
				if !used[v] {
					used[v] = true
					return strconv.Itoa(v)
				}
			}
		}
		t.gold = draw()
		t.wrong = make([]string, k)
		for j := range t.wrong {
			t.wrong[j] = draw()
		}
		attr := 1.0
		if k > 1 {
			attr = min(1, max(0, s.p.Attractor+s.p.AttractorJitter*(rng.Float64()-0.5)))
		}
		t.wrongCum = make([]float64, k)
		acc := 0.0
		for j := range k {
			if j == 0 {
				acc += attr
			} else {
				acc += (1 - attr) / float64(k-1)
			}
			t.wrongCum[j] = acc
		}
		t.wrongCum[k-1] = 1
	}
}

// Name implements Env.
func (s *Simulator) Name() string { return "simulator" }

// NumTasks implements Env.
func (s *Simulator) NumTasks() int { return len(s.tasks) }

// Config returns the configuration with its defaults filled in, Params
// included.
func (s *Simulator) Config() Config {
	c := s.cfg
	c.Skills = append([]float64(nil), c.Skills...)
	p := s.p
	c.Params = &p
	return c
}

// Difficulty returns task's difficulty, for diagnostics.
func (s *Simulator) Difficulty(task int) float64 { return s.tasks[task].difficulty }

// Start implements Env.
func (s *Simulator) Start(task int, rng *rand.Rand) (env.Game, error) {
	if task < 0 || task >= len(s.tasks) {
		return nil, fmt.Errorf("sim: simulator: task %d outside [0, %d)", task, len(s.tasks))
	}
	if rng == nil {
		return nil, fmt.Errorf("sim: simulator: task %d: nil rng", task)
	}
	return &simGame{s: s, t: &s.tasks[task], rng: rng}, nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// betaDraw draws from Beta(a, b) as X/(X+Y) of two gamma draws.
func betaDraw(rng *rand.Rand, a, b float64) float64 {
	x, y := gammaDraw(rng, a), gammaDraw(rng, b)
	if x+y == 0 {
		return a / (a + b)
	}
	return x / (x + y)
}

// gammaDraw draws from Gamma(a, 1) by Marsaglia and Tsang's method, with
// the boost U^(1/a) for a < 1.
func gammaDraw(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		return gammaDraw(rng, a+1) * math.Pow(rng.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < x*x/2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
