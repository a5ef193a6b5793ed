package view_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/view"
)

// playReplay plays the policies on the 3-agent GSM8K transcripts (five
// models, the same questions) and returns the env, the runs and the page
// read back.
func playReplay(t *testing.T, names ...string) (*replay.Env, []view.Run, *view.Unpacked) {
	t.Helper()
	spec := "replay:" + testenv.Shared(t, "data", "debates") + "/slm-debate/gsm/*agents3*.json"
	e, rounds, err := open.Env(spec, open.Config{})
	if err != nil {
		t.Fatal(err)
	}
	opts := env.RunOptions{Episodes: 1, Rounds: rounds, Seed: 3, Workers: 2}
	runs, err := view.Play(e, policies(t, names...), opts)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := view.Write(&page, runs, view.Options{}); err != nil {
		t.Fatal(err)
	}
	u, err := view.Unpack(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return e.(*replay.Env), runs, u
}

// TestReplayRowsByFile: a question debated by several models is a row per
// model, each naming its model and kind (for the filters), read from the
// file its episodes say they replay.
func TestReplayRowsByFile(t *testing.T) {
	e, runs, u := playReplay(t, "gate")
	if len(u.Rows) != e.NumTasks() {
		t.Fatalf("%d rows for %d replayed tasks", len(u.Rows), e.NumTasks())
	}
	tasks := map[string]bool{}
	for i, ep := range runs[0].Episodes {
		q := e.Question(i)
		if ep.Source != "replay:"+q.File {
			t.Fatalf("task %d: source %q, want its file replay:%s", i, ep.Source, q.File)
		}
		tasks[ep.Task] = true
	}
	if len(tasks) == len(u.Rows) {
		t.Fatalf("every file debated other questions (%d): the test shows nothing", len(tasks))
	}
	models := map[string]bool{}
	for i, r := range u.Rows {
		q := e.Question(i)
		if want := transcript.ParseName(q.File).Model; u.Models[r.Model] != want || want == "" {
			t.Errorf("row %d: model %q, want %q", i, u.Models[r.Model], want)
		}
		if u.Kinds[r.Kind] != "gsm8k" {
			t.Errorf("row %d: kind %q", i, u.Kinds[r.Kind])
		}
		models[u.Models[r.Model]] = true
	}
	if len(models) != 5 || len(u.Models) != 5 {
		t.Errorf("models %v, listed %v: want the five of the files", models, u.Models)
	}
}

// TestReplayTextsOnce: policies replaying the same transcript share its
// texts: the page holds each once, as many with three policies as with
// debate alone (which replays every recorded answer), and every turn's
// text is the recorded one.
func TestReplayTextsOnce(t *testing.T) {
	_, _, one := playReplay(t, "debate")
	e, runs, three := playReplay(t, "debate", "majority", "gate")
	if len(one.Texts) != len(three.Texts) {
		t.Errorf("%d texts with debate, %d with debate, majority and gate: replayed texts are not shared", len(one.Texts), len(three.Texts))
	}
	seen := map[string]bool{}
	for _, s := range three.Texts {
		if seen[s] {
			t.Errorf("text twice in the page: %.60q", s)
		}
		seen[s] = true
	}
	texts := 0
	for k := range runs {
		for i, ep := range runs[k].Episodes {
			row := three.Rows[i]
			for r, rd := range ep.Rounds {
				for a, tu := range rd.Turns {
					idx := int(row.Cols[k][0].Rounds[r].Turns[a][4].(float64))
					if tu.Text == "" || idx < 0 {
						t.Fatalf("policy %d task %d round %d agent %d: no text (%d)", k, i, r, a, idx)
					}
					if got := three.Texts[idx]; !strings.HasPrefix(tu.Text, strings.Split(got, "… [cut:")[0]) {
						t.Fatalf("policy %d task %d round %d agent %d: text %.40q, recorded %.40q", k, i, r, a, got, tu.Text)
					}
					texts++
				}
			}
		}
		if ep := runs[k].Episodes[0]; three.Texts[three.Rows[0].Text] != e.Question(0).Text {
			t.Errorf("question text of %s not the recorded one", ep.ID)
		}
	}
	if len(three.Texts) >= texts/2 {
		t.Errorf("%d texts for %d turns: little is shared", len(three.Texts), texts)
	}
}

// TestPlayedDistributions: each played action shows the policy's full
// distribution, whose mass on the action is the probability the episode
// records (exp of its log-probability): the distribution is the one the
// action was drawn from; a deterministic rule's (gate's) are left out.
func TestPlayedDistributions(t *testing.T) {
	_, runs, u := playReplay(t, "random", "gate")
	n := 0
	for k, r := range runs {
		for i, ep := range r.Episodes {
			for t1 := 1; t1 < len(ep.Rounds); t1++ {
				for a, tu := range ep.Rounds[t1].Turns {
					p := r.Probs[i][t1-1][a]
					if sum := p[0] + p[1] + p[2]; math.Abs(sum-1) > 1e-9 {
						t.Fatalf("%s round %d agent %d: π sums to %v", ep.ID, t1, a, sum)
					}
					if got, want := p[*tu.Action], math.Exp(*tu.LogProb); math.Abs(got-want) > 1e-12 {
						t.Fatalf("%s round %d agent %d: π(%v) = %v, recorded %v", ep.ID, t1, a, *tu.Action, got, want)
					}
					turn := u.Rows[i].Cols[k][0].Rounds[t1].Turns[a]
					if u.Rule[k] { // gate: a deterministic rule, whose π is its action
						if len(turn) != 5 || p[*tu.Action] != 1 {
							t.Fatalf("%s round %d agent %d: a deterministic rule's turn %v, π %v: want no probabilities", ep.ID, t1, a, turn, p)
						}
						n++
						continue
					}
					shown := turn[5].([]any)
					if len(shown) != 3 || math.Abs(shown[*tu.Action].(float64)-p[*tu.Action]) > 5e-4 {
						t.Fatalf("%s round %d agent %d: page shows %v, π %v", ep.ID, t1, a, shown, p)
					}
					n++
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("%d actions checked", n)
	}
	if !slices.Equal(u.Rule, []bool{false, true}) {
		t.Errorf("deterministic rules %v of %v: want gate's alone", u.Rule, u.Policies)
	}
}
