package replay

import (
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/corpus"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// sharedDebates lists the slm-debate transcripts of ../shared/data/debates
// (testenv skips locally, fails under CI, when they are absent).
func sharedDebates(t testing.TB) []string {
	t.Helper()
	return testenv.Debates(t, "slm-debate/*/*.json")
}

// TestRealReplay replays every shared transcript under the two fixed
// behaviours: all-refine must reproduce the recorded final answers and
// all-persist round 0, so their team accuracies must equal
// corpus.Baselines' debate and persist columns.
func TestRealReplay(t *testing.T) {
	paths := sharedDebates(t)
	var files []*transcript.File
	for _, p := range paths {
		f, err := transcript.ReadFile(p, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	rows := corpus.Baselines(files)
	for i, f := range files {
		e, err := New(f.Questions)
		if err != nil {
			t.Fatal(err)
		}
		var persist, debate int
		for task := range e.NumTasks() {
			q := e.Question(task)
			g, _ := e.Start(task, nil)
			ref := play(t, g, e.Rounds(), always(metapolicy.Refine))
			if got, want := answersOf(ref[len(ref)-1]), q.Answers(nil, q.Rounds()); !slices.Equal(got, want) {
				t.Fatalf("%s #%d: refine replay ends %q, recorded %q", f.Report.File, task, got, want)
			}
			per := play(t, g, e.Rounds(), always(metapolicy.Persist))
			if got, want := answersOf(per[len(per)-1]), q.Answers(nil, 0); !slices.Equal(got, want) {
				t.Fatalf("%s #%d: persist replay ends %q, round 0 %q", f.Report.File, task, got, want)
			}
			if q.Gold == "" {
				continue
			}
			if metapolicy.TeamAnswer(answersOf(per[len(per)-1]), nil, -1) == q.Gold {
				persist++
			}
			if metapolicy.TeamAnswer(answersOf(ref[len(ref)-1]), nil, -1) == q.Gold {
				debate++
			}
		}
		if persist != rows[i].PersistCorrect || debate != rows[i].DebateCorrect {
			t.Errorf("%s: replay persist %d debate %d, baselines %+v", f.Report.File, persist, debate, rows[i])
		}
	}
}

func BenchmarkReplay(b *testing.B) {
	paths := sharedDebates(b)
	e, _, err := Load(paths, transcript.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	steps := 0
	for b.Loop() {
		for task := range e.NumTasks() {
			g, _ := e.Start(task, nil)
			hist := play(b, g, e.Rounds(), func(r, k int, _ []data.Turn) metapolicy.Action {
				return metapolicy.Action((r + k + task) % metapolicy.NumActions)
			})
			steps += len(hist[0]) * (len(hist) - 1)
		}
	}
	b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
}

// sharedCorpus lists every shared transcript in the LLM-Debate layout:
// slm-debate and the gsm and mmlu files of more (not more/variants).
func sharedCorpus(t testing.TB) []string {
	t.Helper()
	return slices.Concat(sharedDebates(t), testenv.Debates(t, "more/gsm/*.json"), testenv.Debates(t, "more/mmlu/*.json"))
}

// lastOnly persists in every round but the last, where it refines.
type lastOnly struct{}

func (lastOnly) Name() string { return "refine-last-only" }
func (lastOnly) Probs(p *[metapolicy.NumActions]float64, obs *metapolicy.Observation) error {
	*p = [metapolicy.NumActions]float64{}
	if obs.Round == obs.Rounds {
		p[metapolicy.Refine] = 1
	} else {
		p[metapolicy.Persist] = 1
	}
	return nil
}

// TestRefineLastOnly replays "persist, then refine in the last round" on
// every shared transcript: each agent must end on its first recorded
// revision at round 0's tokens plus that revision's, not on the debate's
// final answer. It logs that policy's accuracy and tokens next to debate's
// and next to what the replay gave before revisions were taken in order
// (the last round's answer at round 0's plus that answer's tokens), the
// measurement behind the replay rule:
//
//	go test ./env/replay -run TestRefineLastOnly -v
func TestRefineLastOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the whole shared corpus")
	}
	for _, set := range []struct {
		name  string
		paths []string
	}{{"slm-debate", sharedDebates(t)}, {"slm-debate + more", sharedCorpus(t)}} {
		e, _, err := Load(set.paths, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rounds := e.Rounds()
		var old env.Tally
		old.Policy = "refine-last-only, old replay"
		eps, err := env.Collect(e, lastOnly{}, env.RunOptions{Rounds: rounds})
		if err != nil {
			t.Fatal(err)
		}
		for task := range eps {
			q, ep := e.Question(task), &eps[task]
			rounds := len(ep.Rounds) - 1 // the task's own recorded rounds
			last := ep.Rounds[rounds].Turns
			for k, turn := range last {
				first := q.Agents[k][min(1, len(q.Agents[k])-1)]
				if turn.Answer != first.Answer {
					t.Fatalf("%s: agent %d ends %q, its first revision is %q", q.ID, k, turn.Answer, first.Answer)
				}
			}
			// The old rule: the refine of round R took the round-R answer.
			shortcut := *ep
			shortcut.Rounds = slices.Clone(ep.Rounds)
			shortcut.Rounds[rounds].Turns = slices.Clone(last)
			for k := range last {
				a := q.At(k, rounds)
				shortcut.Rounds[rounds].Turns[k].Answer = a.Answer
				shortcut.Rounds[rounds].Turns[k].Tokens = a.Tokens()
			}
			if err := old.Add(&shortcut); err != nil {
				t.Fatal(err)
			}
		}
		pols := []metapolicy.Policy{lastOnly{}}
		for _, n := range env.Baselines(e) {
			if p, _ := metapolicy.NewHeuristic(n); n != metapolicy.HeuristicThreshold && n != metapolicy.HeuristicRandom {
				pols = append(pols, p)
			}
		}
		res, err := env.Evaluate(e, pols, env.RunOptions{Rounds: rounds})
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, old.Result())
		var buf strings.Builder
		res.WriteTable(&buf)
		t.Logf("%s, %d questions, %d rounds:\n%s", set.name, e.NumTasks(), rounds, buf.String())
	}
}
