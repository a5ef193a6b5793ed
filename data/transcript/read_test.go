package transcript

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/internal/testenv"
)

func TestParseName(t *testing.T) {
	cases := []struct {
		name string
		want Meta
	}{
		{"gsm_3_2.json", Meta{File: "gsm_3_2.json", Task: answer.GSM8K, Agents: 3, Generations: 2}},
		{"mmlu_5_3.json", Meta{File: "mmlu_5_3.json", Task: answer.MMLU, Agents: 5, Generations: 3}},
		{"dir/gsm_Qwen3-14B_persona_enigma+zen+deep-sea_agents3_rounds3.json",
			Meta{File: "gsm_Qwen3-14B_persona_enigma+zen+deep-sea_agents3_rounds3.json", Task: answer.GSM8K, Model: "Qwen3-14B", Agents: 3, Generations: 3}},
		{"mmlu_Mistral-7B-Instruct-v0.3_agents7_rounds3.json",
			Meta{File: "mmlu_Mistral-7B-Instruct-v0.3_agents7_rounds3.json", Task: answer.MMLU, Model: "Mistral-7B-Instruct-v0.3", Agents: 7, Generations: 3}},
		{"gsm8k_agents4.json", Meta{File: "gsm8k_agents4.json", Task: answer.GSM8K, Agents: 4}},
		// A compression suffix is not part of the name.
		{"gsm_3_2.json.gz", Meta{File: "gsm_3_2.json", Task: answer.GSM8K, Agents: 3, Generations: 2}},
		{"debates.json", Meta{File: "debates.json"}},
		// DyLAN's names say no model: its logs are all GPT-3.5-turbo.
		{"variants/dylan_math_counting_and_probability_0_219_4_3.json", Meta{File: "dylan_math_counting_and_probability_0_219_4_3.json", Task: answer.Math, Model: DyLANModel}},
	}
	for _, c := range cases {
		if got := ParseName(c.name); got != c.want {
			t.Errorf("ParseName(%q) = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func answers(q *Question, t int) []string { return q.Answers(nil, t) }

// TestReadGSM reads the hand-written GSM8K transcript and checks every
// parsed answer, the file order, the skipped question, the report and the
// token estimates.
func TestReadGSM(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "gsm_TinyModel_agents2_rounds3.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Meta{File: "gsm_TinyModel_agents2_rounds3.json", Task: answer.GSM8K, Model: "TinyModel", Agents: 2, Generations: 3}); f.Meta != want {
		t.Errorf("Meta = %+v, want %+v", f.Meta, want)
	}
	if len(f.Questions) != 2 {
		t.Fatalf("%d questions, want 2 (the third is skipped)", len(f.Questions))
	}
	zed, thermo := &f.Questions[0], &f.Questions[1]
	if !strings.HasPrefix(zed.Text, "Zed") || !strings.HasPrefix(thermo.Text, "A thermometer") {
		t.Errorf("questions out of file order: %q, %q", zed.Text, thermo.Text)
	}
	if zed.Gold != "1000" || thermo.Gold != "-5" {
		t.Errorf("gold = %q, %q, want 1000, -5", zed.Gold, thermo.Gold)
	}
	want := map[*Question][][]string{
		zed:    {{"1000", "999"}, {"1000", ""}, {"1000", "1000"}},
		thermo: {{"-5", "5"}, {"-5", ""}, {"-4", ""}},
	}
	for q, rounds := range want {
		if q.Rounds() != 2 {
			t.Errorf("%s: Rounds() = %d, want 2", q.Text[:10], q.Rounds())
		}
		for r, w := range rounds {
			if got := answers(q, r); !slices.Equal(got, w) {
				t.Errorf("%s: round %d answers = %q, want %q", q.Text[:10], r, got, w)
			}
		}
	}
	if zed.Index != 0 || thermo.Index != 1 || zed.File != "gsm_TinyModel_agents2_rounds3.json" {
		t.Errorf("index/file = %d %d %q", zed.Index, thermo.Index, zed.File)
	}
	if zed.ID != QuestionID(answer.GSM8K, zed.Text) || zed.ID == thermo.ID || !strings.HasPrefix(zed.ID, "gsm8k:") {
		t.Errorf("IDs %q %q", zed.ID, thermo.ID)
	}

	// Prompt tokens: everything the agent was sent before its answer.
	user0 := "Can you solve the following math problem? Zed has 3 apples and buys 997 more. How many apples does he have? Your final answer should be in the form \\boxed{answer}."
	user1 := "These are the solutions to the problem from other agents: 999. Can you provide your answer?"
	a0, a1 := zed.At(0, 0), zed.At(0, 1)
	if a0.PromptTokens != answer.EstimateTokens(user0) {
		t.Errorf("round-0 prompt tokens = %d, want %d", a0.PromptTokens, answer.EstimateTokens(user0))
	}
	if w := answer.EstimateTokens(user0) + answer.EstimateTokens(a0.Text) + answer.EstimateTokens(user1); a1.PromptTokens != w {
		t.Errorf("round-1 prompt tokens = %d, want %d", a1.PromptTokens, w)
	}
	if a1.Tokens() != a1.PromptTokens+answer.EstimateTokens(a1.Text) {
		t.Errorf("Tokens() = %d, want prompt + response", a1.Tokens())
	}
	if p := zed.At(1, 0).Profile; p.Hedges != 1 || p.Steps != 2 {
		t.Errorf("profile of %q = %+v, want 1 hedge, 2 steps", zed.At(1, 0).Text, p)
	}
	if zed.At(0, 7) != zed.At(0, 2) {
		t.Error("At past the recording does not give the last answer")
	}

	r := f.Report
	if r.Questions != 2 || r.Agents != 2 || r.Rounds != 2 || r.GoldMissing != 0 || r.Model != "TinyModel" {
		t.Errorf("report = %+v", r)
	}
	if len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0], "question 2") || !strings.Contains(r.Skipped[0], "agent 0") {
		t.Errorf("skipped = %q, want question 2 (agent 0 never answered)", r.Skipped)
	}
	if want := []RoundCount{{4, 0}, {4, 2}, {4, 1}}; !slices.Equal(r.PerRound, want) {
		t.Errorf("per round = %+v, want %+v", r.PerRound, want)
	}
	if tot := r.Total(); tot != (RoundCount{12, 3}) || tot.Share() != 0.25 {
		t.Errorf("total = %+v share %v, want 3/12", tot, tot.Share())
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// TestReadMMLU reads the hand-written MMLU transcript (Du et al.'s file
// name) with every letter rule, the choice-text rule and a lower-case gold.
func TestReadMMLU(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "mmlu_3_2.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Questions) != 2 {
		t.Fatalf("%d questions, want 2", len(f.Questions))
	}
	want := [][][]string{
		{{"B", "C", "B"}, {"B", "B", ""}},
		{{"D", "D", ""}, {"D", "D", ""}},
	}
	for i, rounds := range want {
		q := &f.Questions[i]
		for r, w := range rounds {
			if got := answers(q, r); !slices.Equal(got, w) {
				t.Errorf("question %d round %d answers = %q, want %q", i, r, got, w)
			}
		}
	}
	if g0, g1 := f.Questions[0].Gold, f.Questions[1].Gold; g0 != "B" || g1 != "D" {
		t.Errorf("gold = %q %q, want B D", g0, g1)
	}
	r := f.Report
	if want := []RoundCount{{6, 1}, {6, 2}}; !slices.Equal(r.PerRound, want) {
		t.Errorf("per round = %+v, want %+v", r.PerRound, want)
	}
	if r.Model != "" || r.Agents != 3 || r.Rounds != 1 || len(r.Warnings) != 0 {
		t.Errorf("report = %+v", r)
	}
}

func TestEachOptionsAndWarnings(t *testing.T) {
	doc := `{"Q?": [[[{"role":"user","content":"Q?"},{"role":"assistant","content":"\\boxed{7}"}],
	                [{"role":"user","content":"Q?"},{"role":"assistant","content":"7"}]], 7]}`
	// No task in the name: an error that says what to do.
	if _, err := Each(strings.NewReader(doc), "debates.json", Options{}, func(*Question) error { return nil }); err == nil || !strings.Contains(err.Error(), "--kind") {
		t.Errorf("unknown task: err = %v", err)
	}
	if _, err := Each(strings.NewReader(doc), "debates.json", Options{Task: "chess"}, func(*Question) error { return nil }); err == nil {
		t.Error("bad Options.Task accepted")
	}
	var got []*Question
	rep, err := Each(strings.NewReader(doc), "mmlu_agents3_rounds2.json", Options{Task: "gsm", Model: "M"},
		func(q *Question) error { got = append(got, q); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Task != answer.GSM8K || rep.Model != "M" || len(got) != 1 || got[0].Gold != "7" || got[0].GoldRaw != "7" {
		t.Errorf("options not applied or numeric gold lost: %+v %+v", rep, got)
	}
	if len(rep.Warnings) != 2 {
		t.Errorf("warnings = %q, want the agents and rounds mismatch", rep.Warnings)
	}
	stop := errors.New("stop")
	if _, err := Each(strings.NewReader(doc), "gsm.json", Options{}, func(*Question) error { return stop }); err != stop {
		t.Errorf("callback error = %v, want it returned as is", err)
	}
}

// TestEachErrors feeds malformed transcripts: each must fail with an error
// naming the file and, past the opening, the question — never panic.
func TestEachErrors(t *testing.T) {
	ok := `[[{"role":"user","content":"q"},{"role":"assistant","content":"1"}],[{"role":"assistant","content":"2"}]]`
	cases := []struct{ name, doc, want string }{
		{"empty", ``, "empty file"},
		{"number", `5`, "want a JSON object"},
		{"not a pair", `{"q": [` + ok + `]}`, "question 0: value: want [agent_contexts, gold, ...], gold missing"},
		{"value not array", `{"q": 5}`, "question 0"},
		{"contexts not chats", `{"a": [` + ok + `, "1"], "q": [[1, 2], "1"]}`, "question 1: agent_contexts"},
		{"role not string", `{"q": [[[{"role": 3, "content": "x"}]], "1"]}`, "agent_contexts"},
		{"gold object", `{"q": [` + ok + `, {"x": 1}]}`, "gold: want a string or a number"},
		{"truncated", `{"q": [` + ok, "question 0"},
		{"trailing", `{"q": [` + ok + `, "1"]} {}`, "data after the top-level value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Each(strings.NewReader(c.doc), "gsm_x.json", Options{}, func(*Question) error { return nil })
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "gsm_x.json") {
				t.Errorf("err = %v, want it to name gsm_x.json and contain %q", err, c.want)
			}
		})
	}
	if _, err := ReadFile(filepath.Join("testdata", "gsm_missing.json"), Options{}); err == nil {
		t.Error("missing file: no error")
	}
}

func TestSkipsOneAgent(t *testing.T) {
	doc := `{"q": [[[{"role":"assistant","content":"1"}]], "1"]}`
	rep, err := Each(strings.NewReader(doc), "gsm_x.json", Options{}, func(*Question) error {
		t.Error("a one-agent question reached the callback")
		return nil
	})
	if err != nil || rep.Questions != 0 || len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], "1 agents") {
		t.Errorf("err %v, report %+v", err, rep)
	}
}

func TestWriteReports(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "gsm_TinyModel_agents2_rounds3.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := WriteReports(&sb, []Report{f.Report}); err != nil {
		t.Fatal(err)
	}
	out := sb.String()
	for _, want := range []string{"TinyModel", "2/4 (50.0%)", "3/12 (25.0%)", "skipped question 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// FuzzEach checks that no input makes the reader panic.
func FuzzEach(f *testing.F) {
	f.Add(`{"q": [[[{"role":"assistant","content":"\\boxed{1}"}],[{"role":"assistant","content":"2"}]], "#### 1"]}`)
	f.Add(`{"q": [[], null]}`)
	f.Add(`{"q": [[[]], 1]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		_, _ = Each(strings.NewReader(doc), "gsm_f.json", Options{}, func(q *Question) error {
			if len(q.Agents) < 2 {
				t.Errorf("question with %d agents passed", len(q.Agents))
			}
			for _, as := range q.Agents {
				if len(as) == 0 {
					t.Error("agent without answers passed")
				}
			}
			return nil
		})
	})
}

func BenchmarkReadFile(b *testing.B) {
	paths := testenv.Debates(b, "slm-debate/*/*.json")
	p := paths[0]
	for _, q := range paths {
		if strings.Contains(q, "mmlu_VibeThinker-1.5B") && strings.Contains(q, "agents7") {
			p = q
		}
	}
	b.Run("file="+filepath.Base(p)[:20], func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			f, err := ReadFile(p, Options{})
			if err != nil {
				b.Fatal(err)
			}
			n = f.Report.Total().Answers
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "answers/s")
	})
}
