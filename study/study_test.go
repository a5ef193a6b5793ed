package study

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/trainer"
)

// shared opens the shared transcripts matching glob (relative to
// ../shared/data/debates; testenv skips locally, fails under CI, when absent).
func shared(t testing.TB, glob string) *replay.Env {
	t.Helper()
	paths := testenv.Debates(t, glob)
	e, _, err := replay.Load(paths, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkFolds fails when a task is in no fold or in two, or when a unit
// (question) has tasks in two folds.
func checkFolds(t *testing.T, info []TaskInfo, folds [][]int) {
	t.Helper()
	foldOf := map[string]int{}
	seen := make([]int, len(info))
	for f, tasks := range folds {
		for _, k := range tasks {
			seen[k]++
			if g, ok := foldOf[info[k].Unit]; ok && g != f {
				t.Fatalf("question %.60q is in folds %d and %d", info[k].Unit, g, f)
			}
			foldOf[info[k].Unit] = f
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("task %d is in %d folds", k, n)
		}
	}
}

func TestFoldsKeepQuestionsTogether(t *testing.T) {
	// q0 is debated in three files, q1 in two: each stays in one fold.
	info := []TaskInfo{{"q0", "a", ""}, {"q1", "a", ""}, {"q2", "a", ""}, {"q0", "b", ""}, {"q3", "b", ""}, {"q1", "c", ""}, {"q0", "c", ""}, {"q4", "c", ""}}
	for seed := range uint64(20) {
		folds, _, err := Folds(info, 2, ByQuestion, seed)
		if err != nil {
			t.Fatal(err)
		}
		checkFolds(t, info, folds)
		units := func(f []int) int {
			u := map[string]bool{}
			for _, k := range f {
				u[info[k].Unit] = true
			}
			return len(u)
		}
		if a, b := units(folds[0]), units(folds[1]); a+b != 5 || a-b > 1 || b-a > 1 {
			t.Fatalf("seed %d: %d and %d questions per fold, want 3 and 2", seed, a, b)
		}
	}
	a, _, _ := Folds(info, 2, ByQuestion, 1)
	b, _, _ := Folds(info, 2, ByQuestion, 1)
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("same seed, other folds: %v, %v", a, b)
	}
	if _, _, err := Folds(info, 6, ByQuestion, 1); err == nil {
		t.Error("6 folds of 5 questions: no error")
	}
	folds, names, err := Folds(info, 0, ByModel, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"a", "b", "c"}) || !slices.Equal(folds[1], []int{3, 4}) {
		t.Errorf("by model: %v %v", names, folds)
	}
	if _, _, err := Folds(info[:3], 0, ByModel, 0); err == nil {
		t.Error("one model: no error")
	}
}

func TestFoldsOnSharedTranscripts(t *testing.T) {
	e := shared(t, "slm-debate/*/*.json")
	info := Describe(e)
	units, models := map[string]bool{}, map[string]bool{}
	for _, i := range info {
		units[i.Unit], models[i.Model] = true, true
	}
	if len(units) >= len(info) {
		t.Fatalf("%d questions in %d tasks: want questions debated in several files", len(units), len(info))
	}
	if models[""] || len(models) < 2 {
		t.Fatalf("models %v: want every file's model read from its name", models)
	}
	for seed := range uint64(3) {
		folds, _, err := Folds(info, 5, ByQuestion, seed)
		if err != nil {
			t.Fatal(err)
		}
		checkFolds(t, info, folds)
	}
}

func TestOracleTakesBestFixedProtocol(t *testing.T) {
	rows := []ResultRow{
		{Index: 0, Policy: "persist", Correct: 0, Tokens: 10},
		{Index: 1, Policy: "persist", Correct: 1, Tokens: 10},
		{Index: 0, Policy: "debate", Correct: 1, Tokens: 90},
		{Index: 1, Policy: "debate", Correct: 1, Tokens: 90},
		{Index: 0, Policy: "random", Correct: 1, Tokens: 5},
		{Index: 1, Policy: "random", Correct: 1, Tokens: 5},
	}
	got := Oracle(rows, []string{"persist", "debate", "random"})
	if len(got) != 2 || got[0].Tokens != 90 || got[1].Tokens != 10 || got[0].Policy != OracleName {
		t.Errorf("oracle rows %+v: want debate's row for task 0 (only right one), persist's for task 1 (cheaper tie); never random", got)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// constTrainer "trains" a fixed heuristic: enough to test the plumbing.
func constTrainer(name string) Trainer {
	return func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
		if train.NumTasks() == 0 {
			return nil, fmt.Errorf("no training tasks")
		}
		return metapolicy.ParseHeuristic(name)
	}
}

func TestRunRowsAndPairs(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Folds: 4, Seeds: 2, Lambdas: []float64{0, 1}, Episodes: 2,
		Baselines: []string{"persist", "debate", "random"}, Trainer: constTrainer("debate"), Workers: 3}
	s, err := CrossValidate(sim, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// per seed: every task once per baseline, oracle and λ.
	if want := 2 * 40 * (3 + 1 + 2); len(s.Rows) != want {
		t.Fatalf("%d rows, want %d", len(s.Rows), want)
	}
	sum, err := s.Summarise()
	if err != nil {
		t.Fatal(err)
	}
	all := sum.Scopes[0]
	var debate, learned PolicyStats
	for _, p := range all.Policies {
		switch p.Policy {
		case "debate":
			debate = p
		case LearnedName(1):
			learned = p
		}
	}
	// The "learned" policy is debate, played with the same episode seeds:
	// the same results, and a paired difference of exactly zero.
	if learned.Accuracy != debate.Accuracy || learned.TokensPerTask != debate.TokensPerTask || debate.Rows != 80 {
		t.Errorf("learned %+v, debate %+v: want equal", learned, debate)
	}
	for _, d := range all.Diffs {
		if d.Other == "debate" && (d.Accuracy != (stats.Interval{}) || d.Tokens != 0) {
			t.Errorf("%s − debate: %+v", d.Learned, d)
		}
	}
	// Same seed, other worker count: same bytes.
	cfg.Workers = 1
	s2, err := CrossValidate(sim, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	sum2, _ := s2.Summarise()
	if err := sum.WriteMarkdown(&a); err != nil {
		t.Fatal(err)
	}
	sum2.WriteMarkdown(&b)
	s.WriteResults(&a)
	s2.WriteResults(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same config, 3 then 1 worker: reports differ")
	}
}

// With the default trainer (supervised stage and SoftRankPO, shortened)
// the whole study is the same bytes for the same seed whatever the number
// of workers, and the report has every learned policy, baseline and the
// oracle.
func TestRunTrainInMemoryDeterministic(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 40, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Folds, cfg.Seeds, cfg.Lambdas = 2, 1, []float64{0, 1}
	cfg.Train.SFT.Epochs = 1
	cfg.Train.RL.Iterations, cfg.Train.RL.TasksPerIter, cfg.Train.RL.EpisodesPerTask = 2, 8, 2
	report := func(workers int) []byte {
		c := cfg
		c.Workers = workers
		s, err := CrossValidate(sim, c)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := s.Summarise()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := sum.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		if err := s.WriteResults(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := report(2), report(1)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed: the report differs between 2 workers and 1")
	}
	for _, want := range []string{"| " + LearnedName(0) + " |", "| " + LearnedName(1) + " |", OracleName, "| debate |"} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// In a corpus mixing a two-round and a one-round transcript, the study
// plays each task for its own rounds, on the test side and through the
// training side's view: the one-round task's debate costs what its
// transcript recorded, not its last answer's tokens once more.
func TestStudyPlaysEachTaskItsOwnRounds(t *testing.T) {
	a := func(ans string, tok int) transcript.Answer {
		return transcript.Answer{Answer: ans, Profile: data.Profile{Tokens: tok}}
	}
	two := transcript.Question{ID: "q0", File: "gsm_m_agents2_rounds3.json", Task: answer.GSM8K, Text: "q0", Gold: "1",
		Agents: [][]transcript.Answer{{a("1", 10), a("2", 20), a("1", 30)}, {a("2", 10), a("2", 20), a("1", 30)}}}
	one := transcript.Question{ID: "q1", File: "gsm_m_agents2_rounds2.json", Task: answer.GSM8K, Text: "q1", Gold: "4",
		Agents: [][]transcript.Answer{{a("4", 100), a("4", 1000)}, {a("3", 100), a("4", 1000)}}}
	e, err := replay.New([]transcript.Question{two, one})
	if err != nil {
		t.Fatal(err)
	}
	sub := subset{Env: e, tasks: []int{1, 0}}
	if got := env.RoundsOf(sub, 0, 9); got != 1 {
		t.Errorf("training view of the one-round task plays %d rounds, want 1", got)
	}
	var trainRounds []int
	cfg := Config{Folds: 2, Seeds: 1, Lambdas: []float64{0}, Baselines: []string{"debate"}, Workers: 1,
		Trainer: func(tr env.Env, c trainer.Config) (metapolicy.Policy, error) {
			for k := range tr.NumTasks() {
				trainRounds = append(trainRounds, env.RoundsOf(tr, k, c.RL.Rounds))
			}
			return metapolicy.ParseHeuristic("debate")
		}}
	s, err := CrossValidate(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rounds != 2 || !slices.Equal(slices.Sorted(slices.Values(trainRounds)), []int{1, 2}) {
		t.Errorf("study rounds %d, training sides saw rounds %v, want 2 and [1 2]", s.Rounds, trainRounds)
	}
	for _, r := range s.Rows {
		want := map[int]int64{0: 2*10 + 2*20 + 2*30, 1: 2*100 + 2*1000}[r.Index] // debate: every recorded answer once
		if r.Policy != OracleName && r.Tokens != want {
			t.Errorf("%s on task %d: %d tokens, want %d", r.Policy, r.Index, r.Tokens, want)
		}
	}
}

// TrainInMemory trains in the layout cfg.Features: a v2 policy reads the
// v2 features; v1 stays the MLPPolicy of the default layout.
func TestTrainInMemoryFeatures(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 20, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig().Train
	cfg.SFT.Epochs = 1
	cfg.RL.Iterations, cfg.RL.TasksPerIter, cfg.RL.EpisodesPerTask, cfg.RL.Rounds = 1, 4, 2, 2
	p1, err := TrainInMemory(sim, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p1.(*metapolicy.MLPPolicy); !ok {
		t.Errorf("v1: %T, want *metapolicy.MLPPolicy", p1)
	}
	cfg.Features = metapolicy.FeatureVersionV2
	p2, err := TrainInMemory(sim, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if fp, ok := p2.(*metapolicy.FeaturizedPolicy); !ok || fp.Net.In() != metapolicy.FeatureWidthV2 {
		t.Errorf("v2: %T, want a FeaturizedPolicy over %d features", p2, metapolicy.FeatureWidthV2)
	}
}

// A hindsight or pivotal teacher labels transcripts from their answers, so
// on a replay the study keeps its supervised stage when no epochs are
// given; a heuristic teacher there has no confidence to read: none.
func TestSFTEpochs(t *testing.T) {
	for _, c := range []struct {
		given           int
		answers, replay bool
		want            int
	}{
		{-1, false, true, 0},
		{-1, false, false, DefaultSFTEpochs},
		{-1, true, true, DefaultSFTEpochs},
		{0, true, true, 0},
		{3, false, true, 3},
	} {
		if got := SFTEpochs(c.given, c.answers, c.replay); got != c.want {
			t.Errorf("SFTEpochs(%d, answers %v, replay %v) = %d, want %d", c.given, c.answers, c.replay, got, c.want)
		}
	}
}
