package env

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

func newSim(t testing.TB, cfg SimConfig) *Simulator {
	t.Helper()
	s, err := NewSimulator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSimConfigDefaults(t *testing.T) {
	s := newSim(t, SimConfig{})
	c := s.Config()
	if c.Tasks != 500 || c.Agents != 3 || c.WrongAnswers != 3 || c.ConcedeTokens != 20 || len(c.Skills) != 3 {
		t.Fatalf("defaults %+v", c)
	}
	if c.Skills[0] != maxSkill || c.Skills[2] != minSkill {
		t.Errorf("skills %v, want %v down to %v", c.Skills, maxSkill, minSkill)
	}
	if s.NumTasks() != 500 || s.Name() != "simulator" {
		t.Errorf("NumTasks %d, Name %q", s.NumTasks(), s.Name())
	}
	c.Skills[0] = 0 // Config returns a copy
	if s.Config().Skills[0] != maxSkill {
		t.Error("Config aliases the simulator's skills")
	}
	if n := newSim(t, SimConfig{Skills: []float64{0.5, 0.5}}).Config().Agents; n != 2 {
		t.Errorf("agents from skills: %d, want 2", n)
	}
}

func TestSimConfigErrors(t *testing.T) {
	for name, cfg := range map[string]SimConfig{
		"negative tasks":   {Tasks: -1},
		"one agent":        {Agents: 1},
		"skills mismatch":  {Agents: 3, Skills: []float64{0.5, 0.5}},
		"skill range":      {Skills: []float64{0.5, 1.5}},
		"skill NaN":        {Skills: []float64{0.5, metapolicy.Missing}},
		"missing conf":     {MissingConfidence: 2},
		"negative concede": {ConcedeTokens: -5},
	} {
		if _, err := NewSimulator(cfg); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "env: SimConfig") {
			t.Errorf("%s: error %q lacks its origin", name, err)
		}
	}
}

func TestSimTaskPool(t *testing.T) {
	a, b := newSim(t, SimConfig{Seed: 7}), newSim(t, SimConfig{Seed: 7})
	c := newSim(t, SimConfig{Seed: 8})
	same := 0
	for i := range a.tasks {
		ta := &a.tasks[i]
		if ta.gold != b.tasks[i].gold || ta.difficulty != b.tasks[i].difficulty {
			t.Fatalf("task %d differs for the same seed", i)
		}
		if ta.gold == c.tasks[i].gold {
			same++
		}
		if !(ta.difficulty > 0 && ta.difficulty < 1) {
			t.Errorf("task %d: difficulty %v", i, ta.difficulty)
		}
		seen := map[string]bool{ta.gold: true}
		for _, w := range ta.wrong {
			if seen[w] {
				t.Errorf("task %d: answer %s repeated", i, w)
			}
			seen[w] = true
		}
		if ta.wrongCum[0] < 0.45 || ta.wrongCum[len(ta.wrongCum)-1] != 1 {
			t.Errorf("task %d: wrong-answer distribution %v", i, ta.wrongCum)
		}
	}
	if same > 20 {
		t.Errorf("seeds 7 and 8 share %d of 500 gold answers", same)
	}
}

func TestSimStepErrors(t *testing.T) {
	s := newSim(t, SimConfig{})
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
	s := newSim(t, SimConfig{})
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
	s := newSim(t, SimConfig{})
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
	s := newSim(t, SimConfig{})
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
	s := newSim(t, SimConfig{})
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
