package sim

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

func heuristic(t testing.TB, spec string) metapolicy.Policy {
	t.Helper()
	p, err := metapolicy.ParseHeuristic(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newSim(t testing.TB, cfg Config) *Simulator {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// handSet returns fixed model parameters for the tests that check the
// model's mechanics, so that they do not depend on the calibration.
func handSet() *Params {
	return &Params{
		Source: "hand-set", SolveSlope: 6, Skill: 0.525, DifficultyMean: 0.5, DifficultySpread: 0.2,
		Unreadable: 0.02, RevisionUnreadable: 0.02, UnreadableCorrelation: 0.2, Attractor: 0.7, AttractorJitter: 0.25,
		FixBase: -2.2, FixSkill: 3, FixGold: 3.5, FixSame: -1.5, Conform: 0.5, KeepWrong: 0.6,
		BreakBase: -2.9, BreakWrong: 1.5, BreakGap: 1.5, BreakTo: 0.7,
		ConfRight: 1.4, ConfAttractor: 0.4, ConfOther: -0.6, ConfDifficulty: 1.2, ConfConsensus: 0.6,
		ConfNoise: 0.9, Overconfidence: 2.3, StatedRate: 1, StatedShift: 1, StatedNoise: 0.5,
		TokensRight: LogNormal{5.5, 0.4}, TokensWrong: LogNormal{5.7, 0.4},
		RevisionTokensRight: LogNormal{5.5, 0.4}, RevisionTokensWrong: LogNormal{5.7, 0.4},
		StepsRight: 5, StepsWrong: 6, HedgesRight: 0.5, HedgesWrong: 1,
		Question: LogNormal{4.4, 0.3}, PromptBase: 40, PromptQuestion: 1, PromptOwn: 1, PromptPeers: 0.6,
	}
}

func TestSimConfigDefaults(t *testing.T) {
	s := newSim(t, Config{})
	c := s.Config()
	if c.Tasks != 500 || c.Agents != 3 || c.WrongAnswers != 3 || c.ConcedeTokens != 20 || len(c.Skills) != 3 {
		t.Fatalf("defaults %+v", c)
	}
	def := DefaultParams()
	if *c.Params != def {
		t.Errorf("params %+v, want the embedded calibration %+v", *c.Params, def)
	}
	for i, sk := range c.Skills {
		if sk != def.Skill {
			t.Errorf("skill %d = %v, want the calibrated %v", i, sk, def.Skill)
		}
	}
	if s.NumTasks() != 500 || s.Name() != "simulator" {
		t.Errorf("NumTasks %d, Name %q", s.NumTasks(), s.Name())
	}
	c.Skills[0] = 9 // Config returns a copy
	c.Params.Skill = 9
	if s.Config().Skills[0] == 9 || s.Config().Params.Skill == 9 {
		t.Error("Config aliases the simulator's skills or parameters")
	}
	if n := newSim(t, Config{Skills: []float64{0.5, 0.5}}).Config().Agents; n != 2 {
		t.Errorf("agents from skills: %d, want 2", n)
	}
}

func TestSimConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"negative tasks":   {Tasks: -1},
		"one agent":        {Agents: 1},
		"skills mismatch":  {Agents: 3, Skills: []float64{0.5, 0.5}},
		"skill NaN":        {Skills: []float64{0.5, metapolicy.Missing}},
		"missing conf":     {MissingConfidence: 2},
		"negative concede": {ConcedeTokens: -5},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "sim: simulator: ") {
			t.Errorf("%s: error %q lacks its origin", name, err)
		}
	}
	bad := handSet()
	bad.KeepWrong = 1.5
	if _, err := New(Config{Params: bad}); err == nil || !strings.Contains(err.Error(), "keep_wrong") {
		t.Errorf("keep_wrong 1.5: err %v", err)
	}
}

func TestSimTaskPool(t *testing.T) {
	a, b := newSim(t, Config{Seed: 7, Params: handSet()}), newSim(t, Config{Seed: 7, Params: handSet()})
	c := newSim(t, Config{Seed: 8, Params: handSet()})
	same := 0
	for i := range a.tasks {
		ta := &a.tasks[i]
		if ta.gold != b.tasks[i].gold || ta.difficulty != b.tasks[i].difficulty {
			t.Fatalf("task %d differs for the same seed", i)
		}
		if ta.gold == c.tasks[i].gold {
			same++
		}
		seen := map[string]bool{ta.gold: true}
		for _, w := range ta.wrong {
			if seen[w] {
				t.Errorf("task %d: answer %s repeated", i, w)
			}
			seen[w] = true
		}
		if ta.wrongCum[0] < 0.575 || ta.wrongCum[0] > 0.825 || ta.wrongCum[len(ta.wrongCum)-1] != 1 {
			t.Errorf("task %d: wrong-answer distribution %v", i, ta.wrongCum)
		}
	}
	if same > 20 {
		t.Errorf("seeds 7 and 8 share %d of 500 gold answers", same)
	}
}

func TestSimStepErrors(t *testing.T) {
	s := newSim(t, Config{})
	if _, err := s.Start(-1, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Error("task -1 accepted")
	}
	if _, err := s.Start(500, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Error("task 500 accepted")
	}
	if _, err := s.Start(0, nil); err == nil {
		t.Error("nil rng accepted")
	}
	g, err := s.Start(0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	prev, err := g.Initial()
	if err != nil || len(prev) != 3 {
		t.Fatalf("Initial: %d turns, %v", len(prev), err)
	}
	for name, call := range map[string]func() error{
		"round 0":   func() error { _, err := g.Step(0, 0, metapolicy.Persist, prev); return err },
		"agent 3":   func() error { _, err := g.Step(1, 3, metapolicy.Persist, prev); return err },
		"agent -1":  func() error { _, err := g.Step(1, -1, metapolicy.Refine, prev); return err },
		"short":     func() error { _, err := g.Step(1, 0, metapolicy.Refine, prev[:2]); return err },
		"action 7":  func() error { _, err := g.Step(1, 0, metapolicy.Action(7), prev); return err },
		"nil prev":  func() error { _, err := g.Step(1, 0, metapolicy.Concede, nil); return err },
		"round -2":  func() error { _, err := g.Step(-2, 0, metapolicy.Concede, prev); return err },
		"agent 100": func() error { _, err := g.Step(1, 100, metapolicy.Concede, prev); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestSimConfidenceInformative checks that the confidence separates right
// from wrong answers but is overconfident: what makes it worth reading and
// not worth trusting blindly.
func TestSimConfidenceInformative(t *testing.T) {
	s := newSim(t, Config{Params: handSet(), Skills: []float64{0.7, 0.525, 0.35}})
	var sum, n [2]float64
	for task := range 300 {
		g, _ := s.Start(task, rand.New(rand.NewPCG(3, uint64(task))))
		turns, _ := g.Initial()
		_, _, gold := g.Task()
		for _, tu := range turns {
			k := 0
			if tu.Answer == gold {
				k = 1
			}
			sum[k] += *tu.Confidence
			n[k]++
		}
	}
	wrong, right := sum[0]/n[0], sum[1]/n[1]
	acc := n[1] / (n[0] + n[1])
	if right-wrong < 0.15 {
		t.Errorf("mean confidence right %.3f, wrong %.3f: not informative", right, wrong)
	}
	if mean := (sum[0] + sum[1]) / (n[0] + n[1]); mean < acc+0.05 {
		t.Errorf("mean confidence %.3f vs accuracy %.3f: not overconfident", mean, acc)
	}
}

// TestSimWrongMajority checks that the attractor makes a wrong majority
// happen even when an agent is right.
func TestSimWrongMajority(t *testing.T) {
	s := newSim(t, Config{Params: handSet(), Skills: []float64{0.7, 0.525, 0.35}})
	wrongMaj, someRight := 0, 0
	for task := range 500 {
		g, _ := s.Start(task, rand.New(rand.NewPCG(4, uint64(task))))
		turns, _ := g.Initial()
		_, _, gold := g.Task()
		right := 0
		for _, tu := range turns {
			if tu.Answer == gold {
				right++
			}
		}
		if right > 0 {
			someRight++
			if data.TeamAnswer(turns) != gold {
				wrongMaj++
			}
		}
	}
	if share := float64(wrongMaj) / float64(someRight); share < 0.1 || share > 0.4 {
		t.Errorf("wrong majority in %.3f of teams with a right agent, want 0.1–0.4", share)
	}
}

// TestSimConcedeWithoutTarget checks that an agent with no peer to concede
// to keeps its answer at the concede cost.
func TestSimConcedeWithoutTarget(t *testing.T) {
	s := newSim(t, Config{})
	g, _ := s.Start(0, rand.New(rand.NewPCG(1, 1)))
	c := 0.5
	prev := []data.Turn{{Answer: "42", Confidence: &c}, {}, {}}
	turn, err := g.Step(1, 0, metapolicy.Concede, prev)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Answer != "42" || turn.Tokens != DefaultConcedeTokens || *turn.Confidence != 0.5 {
		t.Errorf("concede without target: %+v", turn)
	}
	if turn.Confidence == prev[0].Confidence {
		t.Error("turn aliases the previous turn's confidence")
	}
}

// TestSimRefineSeesPeers checks that peers holding the gold make a wrong
// agent's refine succeed far more often than refining alone.
func TestSimRefineSeesPeers(t *testing.T) {
	s := newSim(t, Config{Params: handSet(), Skills: []float64{0.7, 0.525, 0.35}})
	fixed := func(withPeers bool) int {
		k := 0
		for task := range 400 {
			g, _ := s.Start(task, rand.New(rand.NewPCG(5, uint64(task))))
			_, _, gold := g.Task()
			prev := []data.Turn{{Answer: s.tasks[task].wrong[1]}, {}, {}}
			if withPeers {
				prev[1].Answer, prev[2].Answer = gold, gold
			}
			turn, err := g.Step(1, 0, metapolicy.Refine, prev)
			if err != nil {
				t.Fatal(err)
			}
			if turn.Answer == gold {
				k++
			}
		}
		return k
	}
	alone, peers := fixed(false), fixed(true)
	if peers < alone+100 {
		t.Errorf("refine fixed %d of 400 alone and %d with right peers", alone, peers)
	}
}
