package corpus

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
)

func readTestdata(t *testing.T) []*transcript.File {
	t.Helper()
	var fs []*transcript.File
	for _, n := range []string{"gsm_TinyModel_agents2_rounds3.json", "mmlu_3_2.json"} {
		f, err := transcript.ReadFile(filepath.Join("..", "transcript", "testdata", n), transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// TestBaselines checks the persist/debate accuracies worked out by hand for
// the hand-written transcripts (see the answers in TestReadGSM/TestReadMMLU):
// GSM round 0 majorities 1000 (tie → agent 0) and -5 are both right; the
// final round's -4 is wrong. MMLU: B, D right in both rounds.
func TestBaselines(t *testing.T) {
	rows := Baselines(readTestdata(t))
	want := []BaselineRow{
		{Task: answer.GSM8K, Model: "TinyModel", Agents: 2, Files: 1, Questions: 2, PersistCorrect: 2, DebateCorrect: 1},
		{Task: answer.MMLU, Model: "", Agents: 3, Files: 1, Questions: 2, PersistCorrect: 2, DebateCorrect: 2},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	if rows[0].Persist() != 1 || rows[0].Debate() != 0.5 || (BaselineRow{}).Persist() != 0 {
		t.Errorf("accuracies %v %v", rows[0].Persist(), rows[0].Debate())
	}
	var sb strings.Builder
	if err := WriteBaselines(&sb, rows); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"TinyModel", "100.0%", "50.0%", "-50.0"} {
		if !strings.Contains(sb.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, sb.String())
		}
	}
}

func TestBaselinesNoGold(t *testing.T) {
	doc := `{"q": [[[{"role":"assistant","content":"1"}],[{"role":"assistant","content":"1"}]], "no number here"]}`
	f := &transcript.File{}
	rep, err := transcript.Each(strings.NewReader(doc), "gsm_x.json", transcript.Options{}, func(q *transcript.Question) error {
		f.Questions = append(f.Questions, *q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Report = *rep
	if rep.GoldMissing != 1 {
		t.Errorf("GoldMissing = %d, want 1", rep.GoldMissing)
	}
	if r := Baselines([]*transcript.File{f})[0]; r.Questions != 0 || r.NoGold != 1 || r.PersistCorrect != 0 {
		t.Errorf("row = %+v, want the question left out and counted", r)
	}
}

func TestByModel(t *testing.T) {
	rows := []BaselineRow{
		{Task: answer.MMLU, Model: "b", Agents: 3, Files: 1, Questions: 10, PersistCorrect: 5, DebateCorrect: 6},
		{Task: answer.GSM8K, Model: "a", Agents: 3, Files: 1, Questions: 10, PersistCorrect: 1, DebateCorrect: 2},
		{Task: answer.MMLU, Model: "b", Agents: 5, Files: 1, Questions: 20, NoGold: 1, PersistCorrect: 10, DebateCorrect: 9},
		{Task: answer.GSM8K, Model: "a", Agents: 3, Files: 1, Questions: 5, PersistCorrect: 5, DebateCorrect: 5},
	}
	got := ByModel(rows)
	want := []BaselineRow{
		{Task: answer.GSM8K, Model: "a", Agents: 3, Files: 2, Questions: 15, PersistCorrect: 6, DebateCorrect: 7},
		{Task: answer.MMLU, Model: "b", Agents: 0, Files: 2, Questions: 30, NoGold: 1, PersistCorrect: 15, DebateCorrect: 15},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ByModel = %+v, want %+v", got, want)
	}
	if rows[0].Files != 1 {
		t.Error("ByModel changed its input")
	}
}
