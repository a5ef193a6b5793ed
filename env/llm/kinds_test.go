package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// kindModel is the fake model of TestLiveKinds. Agents are told apart by
// their persona ("agent K"); the task by its question. Round 0: agent 0
// is right, the others wrong; a refine is right; the judge says 70.
func kindModel(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
	last := req.Messages[len(req.Messages)-1].Content
	agent := -1
	fmt.Sscanf(req.Messages[0].Content, "agent %d", &agent)
	all := ""
	for _, m := range req.Messages {
		all += m.Content
	}
	arith := strings.Contains(all, "6+19*28+14-10*7")
	var reply string
	switch {
	case strings.HasPrefix(last, "Here is a problem"):
		reply = "Confidence: 70"
	case strings.HasPrefix(last, "These are the") && arith:
		reply = "Multiplication first: 6 + 532 + 14 - 70 = 482.\nThe updated answer is 482."
	case strings.HasPrefix(last, "These are the"):
		reply = "Dividing both sides by 2: x = 1/2.\nThe answer is $\\dfrac{1}{2}$."
	case arith && agent == 0:
		reply = "6 + 532 + 14 - 70 = 482. The result is 482."
	case arith:
		reply = "The result of 6+19*28+14-10*7 is 542."
	case agent == 0:
		reply = "2x = 1, so x = \\frac{1}{2}.\n\\boxed{\\frac{1}{2}}"
	default:
		reply = "The answer is $x = 2$."
	}
	completion(w, req, reply)
}

// Live tasks take every kind the answer reader knows: a tasks file of
// arithmetic and math questions (kinds spelt any case) is played against
// a loopback server, with each kind's prompts, answers read by the kind's
// rules and golds normalised by them.
func TestLiveKinds(t *testing.T) {
	tasks, err := DecodeTasks(strings.NewReader(
		`{"id":"a1","question":"What is the result of 6+19*28+14-10*7?","gold":"482","kind":"Arithmetic"}
{"id":"m1","question":"Solve 2x = 1 for x.","gold":"\\dfrac12","kind":"MATH"}
`), "tasks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := newFakeServer(t, kindModel)
	c, _ := testClient(t, s, nil)
	e, err := NewEnv(c, tasks, Options{Personas: personas})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		kind      answer.Kind
		gold      string
		initial   []string
		solve     string
		refineEnd string
	}{
		{answer.Arithmetic, "482", []string{"482", "542", "542"},
			"What is the result of 6+19*28+14-10*7? Make sure to state your answer at the end of the response.",
			"can you provide an updated answer? Make sure to state your answer at the end of the response."},
		{answer.Math, "0.5", []string{"0.5", "2", "2"},
			`Can you solve the following math problem? Solve 2x = 1 for x. Explain your reasoning. Your final answer should be a simplified LaTeX expression, in the form \boxed{answer}, at the end of your response.`,
			`The original math problem is Solve 2x = 1 for x.. Your final answer should be a simplified LaTeX expression, in the form \boxed{answer}, at the end of your response.`},
	} {
		task := e.Task(i)
		if task.Kind != want.kind || task.Gold != want.gold {
			t.Errorf("task %d: kind %q gold %q, want %q %q", i, task.Kind, task.Gold, want.kind, want.gold)
		}
		if SolvePrompt(task.Kind, task.Question) != want.solve {
			t.Errorf("%s: solve prompt %q, want %q", want.kind, SolvePrompt(task.Kind, task.Question), want.solve)
		}
		g, err := e.Start(i, rand.New(rand.NewPCG(1, uint64(i))))
		if err != nil {
			t.Fatal(err)
		}
		prev, err := g.Initial()
		if err != nil {
			t.Fatal(err)
		}
		for k, turn := range prev {
			if turn.Answer != want.initial[k] || turn.Confidence == nil || *turn.Confidence != 0.7 {
				t.Errorf("%s: agent %d: round 0 answer %q confidence %v, want %q 0.7", want.kind, k, turn.Answer, turn.Confidence, want.initial[k])
			}
			var msgs []Message
			json.Unmarshal([]byte(turn.Exchanges[0].Prompt), &msgs)
			if len(msgs) != 2 || msgs[1].Content != want.solve {
				t.Errorf("%s: agent %d: solve conversation %q", want.kind, k, msgs)
			}
		}
		next := make([]data.Turn, len(prev))
		errs := make([]error, len(prev))
		var wg sync.WaitGroup
		for k := range prev {
			wg.Go(func() { next[k], errs[k] = g.Step(1, k, metapolicy.Refine, prev) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		for k, turn := range next {
			if turn.Answer != want.gold {
				t.Errorf("%s: agent %d: refined answer %q from %q, want the gold %q", want.kind, k, turn.Answer, turn.Text, want.gold)
			}
			var msgs []Message
			json.Unmarshal([]byte(turn.Exchanges[0].Prompt), &msgs)
			peers := []string{}
			for j := range prev {
				if j != k {
					peers = append(peers, prev[j].Text)
				}
			}
			if len(msgs) != 4 || msgs[3].Content != RefinePrompt(task.Kind, task.Question, peers) || !strings.HasSuffix(msgs[3].Content, want.refineEnd) {
				t.Errorf("%s: agent %d: refine conversation %q", want.kind, k, msgs)
			}
		}
	}
	// Concede with a call asks for the adopted answer in the kind's form.
	if p := ConcedePrompt(answer.Arithmetic, "It is 482.", "482"); !strings.HasSuffix(p, "Your final answer must be 482. Make sure to state your answer at the end of the response.") {
		t.Errorf("arithmetic concede prompt %q", p)
	}
	if p := ConcedePrompt("math", "x = 1/2", "0.5"); !strings.HasSuffix(p, `Your final answer must be 0.5, in the form \boxed{answer}, at the end of your response.`) {
		t.Errorf("math concede prompt %q", p)
	}
}

// The arithmetic prompts are LLM-Debate's word for word: built from a
// public transcript's question and recorded peer answers, they are the
// messages that transcript recorded.
func TestArithmeticPromptsMatchTranscript(t *testing.T) {
	path := testenv.Debates(t, "more/variants/arithmetic_gpt-3.5-turbo_temps0.7-0.7-0.7_agents3_rounds2.json")[0]
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string][]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, v := range doc {
		var agents [][]Message
		if err := json.Unmarshal(v[0], &agents); err != nil {
			t.Fatal(err)
		}
		solve := agents[0][0].Content
		question, ok := strings.CutSuffix(solve, " Make sure to state your answer at the end of the response.")
		if !ok {
			t.Fatalf("recorded solve prompt %q", solve)
		}
		if got := SolvePrompt(answer.Arithmetic, question); got != solve {
			t.Errorf("solve prompt %q, recorded %q", got, solve)
		}
		for k, ctx := range agents {
			var peers []string
			for j, other := range agents {
				if j != k {
					peers = append(peers, other[1].Content) // round-0 answer
				}
			}
			if got, rec := RefinePrompt(answer.Arithmetic, question, peers), ctx[2].Content; got != rec {
				t.Errorf("agent %d: refine prompt\n%q\nrecorded\n%q", k, got, rec)
			}
			checked++
		}
		if checked >= 30 {
			break
		}
	}
}
