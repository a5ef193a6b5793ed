package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

var personas = []string{"agent 0", "agent 1", "agent 2"}

func gsmTask() Task {
	return Task{ID: "t1", Question: "What is 6 times 7?", Gold: "#### 42", Kind: answer.GSM8K}
}

func newTestEnv(t *testing.T, s *fakeServer, opts Options, edit func(*Config)) *Env {
	t.Helper()
	c, _ := testClient(t, s, edit)
	if opts.Personas == nil {
		opts.Personas = personas
	}
	e, err := NewEnv(c, []Task{gsmTask()}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// checkTokens verifies that every exchange carries the usage the fake
// server reported for it (bytes of the prompt contents, bytes of the
// reply), recomputed from the recorded prompt, and that the turn's tokens
// are their sum.
func checkTokens(t *testing.T, who string, turn data.Turn) {
	t.Helper()
	sum := 0
	for _, ex := range turn.Exchanges {
		var msgs []Message
		if err := json.Unmarshal([]byte(ex.Prompt), &msgs); err != nil {
			t.Fatalf("%s: %s exchange: prompt is not the JSON of the messages: %v", who, ex.Role, err)
		}
		p := 0
		for _, m := range msgs {
			p += len(m.Content)
		}
		if ex.PromptTokens != p || ex.CompletionTokens != len(ex.Response) {
			t.Errorf("%s: %s exchange: tokens %d+%d, server counted %d+%d", who, ex.Role, ex.PromptTokens, ex.CompletionTokens, p, len(ex.Response))
		}
		sum += ex.PromptTokens + ex.CompletionTokens
	}
	if turn.Tokens != sum {
		t.Errorf("%s: turn tokens %d, exchanges sum to %d", who, turn.Tokens, sum)
	}
}

func roles(turn data.Turn) string {
	var r []string
	for _, ex := range turn.Exchanges {
		r = append(r, ex.Role)
	}
	return strings.Join(r, ",")
}

func lastUser(req wireRequest) string { return req.Messages[len(req.Messages)-1].Content }

func TestGameInitial(t *testing.T) {
	s := newFakeServer(t, model)
	e := newTestEnv(t, s, Options{}, nil)
	if e.Name() != "openai:test-model" || e.NumTasks() != 1 {
		t.Errorf("name %q, %d tasks", e.Name(), e.NumTasks())
	}
	g, err := e.Start(0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if id, q, gold := g.Task(); id != "t1" || q != "What is 6 times 7?" || gold != "42" {
		t.Errorf("task %q %q %q (gold must be normalised)", id, q, gold)
	}
	turns, err := g.Initial()
	if err != nil {
		t.Fatal(err)
	}
	wantAns := []string{"42", "41", "41"}
	wantConf := []float64{0.9, 0.3, 0.3}
	for i, turn := range turns {
		if turn.Answer != wantAns[i] || turn.Confidence == nil || *turn.Confidence != wantConf[i] {
			t.Errorf("agent %d: answer %q confidence %v, want %q %v", i, turn.Answer, turn.Confidence, wantAns[i], wantConf[i])
		}
		if roles(turn) != "solve,judge" || turn.Action != nil {
			t.Errorf("agent %d: exchanges %q action %v, want solve,judge and no action", i, roles(turn), turn.Action)
		}
		if turn.Text != turn.Exchanges[0].Response || !strings.Contains(turn.Text, fmt.Sprintf("Agent %d adds", i)) {
			t.Errorf("agent %d: text %q is not its own solve answer", i, turn.Text)
		}
		// The profile is the answer package's, of the whole text: the rule
		// imported transcripts are read by. "I think" is one hedge.
		if p, want := turn.Profile, answer.ProfileOf(turn.Text); p.Steps != want.Steps || p.Hedges != 1 || p.Tokens != want.Tokens || p.SelfConfidence != nil {
			t.Errorf("agent %d: profile %+v, want %+v with 1 hedge", i, p, want)
		}
		checkTokens(t, "initial", turn)
	}
	reqs := s.recorded()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6 (3 solve + 3 judge)", len(reqs))
	}
	seeds := map[int64]bool{}
	base := rand.New(rand.NewPCG(1, 2)).Uint64() // the number Start drew
	for _, r := range reqs {
		if r.Seed == nil {
			t.Fatal("request without seed")
		}
		seeds[*r.Seed] = true
		// The judge's seeds derive from "critic", as before the rename, so
		// a rerun of an old collection sends the server the same seeds.
		// (Its request has no persona to tell the agent by.)
		if strings.HasPrefix(lastUser(r), "Here is a problem") && !slices.ContainsFunc([]int{0, 1, 2}, func(agent int) bool {
			return *r.Seed == callSeed(base, 0, agent, "critic")
		}) {
			t.Errorf("judge seed %d is not derived from \"critic\"", *r.Seed)
		}
		if strings.HasPrefix(lastUser(r), "Can you solve") && lastUser(r) != SolvePrompt(answer.GSM8K, "What is 6 times 7?") {
			t.Errorf("solve prompt %q", lastUser(r))
		}
	}
	if len(seeds) != 6 {
		t.Errorf("%d distinct seeds over 6 calls, want 6", len(seeds))
	}
}

// playRound1 runs Initial then one round with the given actions.
func playRound1(t *testing.T, e *Env, actions []metapolicy.Action) (prev, next []data.Turn) {
	t.Helper()
	g, err := e.Start(0, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	prev, err = g.Initial()
	if err != nil {
		t.Fatal(err)
	}
	next = make([]data.Turn, len(actions))
	errs := make([]error, len(actions))
	var wg sync.WaitGroup
	for i, a := range actions { // simultaneous, as a round is
		wg.Go(func() { next[i], errs[i] = g.Step(1, i, a, prev) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return prev, next
}

func TestGameStepEachAction(t *testing.T) {
	s := newFakeServer(t, model)
	e := newTestEnv(t, s, Options{}, nil)
	prev, next := playRound1(t, e, []metapolicy.Action{metapolicy.Refine, metapolicy.Concede, metapolicy.Persist})

	// Refine: a call that shows the agent its own answer and its peers'.
	r := next[0]
	if r.Action == nil || *r.Action != metapolicy.Refine || r.Answer != "42" || roles(r) != "refine,judge" ||
		r.Confidence == nil || *r.Confidence != 0.9 {
		t.Errorf("refine turn: action %v answer %q exchanges %q confidence %v", r.Action, r.Answer, roles(r), r.Confidence)
	}
	checkTokens(t, "refine", r)
	var msgs []Message
	json.Unmarshal([]byte(r.Exchanges[0].Prompt), &msgs)
	if len(msgs) != 4 || msgs[0] != (Message{"system", "agent 0"}) || msgs[1].Content != SolvePrompt(answer.GSM8K, "What is 6 times 7?") ||
		msgs[2] != (Message{"assistant", prev[0].Text}) ||
		msgs[3].Content != RefinePrompt(answer.GSM8K, "What is 6 times 7?", []string{prev[1].Text, prev[2].Text}) {
		t.Errorf("refine conversation %q", msgs)
	}
	if strings.Count(msgs[3].Content, "One agent solution") != 2 || strings.Contains(msgs[3].Content, "Agent 0 adds") {
		t.Errorf("refine prompt must show the two peers, not the agent itself: %q", msgs[3].Content)
	}

	// Concede without a call: agent 1's peers hold 42 (agent 0, 0.9) and
	// 41 (agent 2, 0.3): it takes over agent 0's turn.
	c := next[1]
	if c.Answer != "42" || c.Text != prev[0].Text || c.Tokens != DefaultConcedeTokens || len(c.Exchanges) != 0 ||
		c.Confidence == nil || *c.Confidence != 0.9 || c.Profile != prev[0].Profile || *c.Action != metapolicy.Concede {
		t.Errorf("concede turn %+v", c)
	}
	if c.Confidence == prev[0].Confidence {
		t.Error("concede shares the peer's confidence pointer")
	}

	// Persist: unchanged, free.
	p := next[2]
	if p.Answer != prev[2].Answer || p.Text != prev[2].Text || p.Tokens != 0 || len(p.Exchanges) != 0 ||
		*p.Confidence != *prev[2].Confidence || *p.Action != metapolicy.Persist {
		t.Errorf("persist turn %+v", p)
	}
	if n := len(s.recorded()); n != 8 {
		t.Errorf("%d requests, want 6 initial + 2 for the one refine", n)
	}
}

func TestGameConcedeCall(t *testing.T) {
	s := newFakeServer(t, model)
	e := newTestEnv(t, s, Options{ConcedeCall: true}, nil)
	// Agent 0's peers both hold 41 (0.3 each): the source is agent 1.
	prev, next := playRound1(t, e, []metapolicy.Action{metapolicy.Concede, metapolicy.Persist, metapolicy.Persist})
	c := next[0]
	if c.Answer != "41" {
		t.Errorf("conceding agent answers %q, want the adopted 41 whatever the model wrote", c.Answer)
	}
	if roles(c) != "concede,judge" || c.Tokens == 0 {
		t.Errorf("exchanges %q, tokens %d", roles(c), c.Tokens)
	}
	checkTokens(t, "concede", c)
	var msgs []Message
	json.Unmarshal([]byte(c.Exchanges[0].Prompt), &msgs)
	if last := msgs[len(msgs)-1].Content; last != ConcedePrompt(answer.GSM8K, prev[1].Text, "41") || !strings.Contains(last, "must be 41") {
		t.Errorf("concede prompt %q", last)
	}
	// The judge read "\boxed{7}": no score, and the exchange says so.
	if c.Confidence != nil || !strings.Contains(c.Exchanges[1].Error, "judge: no confidence") {
		t.Errorf("confidence %v, judge error %q; want missing, explained", c.Confidence, c.Exchanges[1].Error)
	}
}

func TestGameConcedeWithoutPeerAnswerPersists(t *testing.T) {
	s := newFakeServer(t, model)
	e := newTestEnv(t, s, Options{}, nil)
	g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
	prev := []data.Turn{{Answer: "5", Text: "five"}, {Answer: ""}, {Answer: ""}}
	turn, err := g.Step(2, 0, metapolicy.Concede, prev)
	if err != nil || turn.Answer != "5" || turn.Tokens != 0 || turn.Text != "five" {
		t.Errorf("turn %+v err %v, want the previous answer kept at no cost", turn, err)
	}
}

func TestGameSeedsAreReproducible(t *testing.T) {
	seedsOf := func(seed uint64) map[string]int64 {
		s := newFakeServer(t, model)
		e := newTestEnv(t, s, Options{}, nil)
		g, _ := e.Start(0, rand.New(rand.NewPCG(seed, 0)))
		if _, err := g.Initial(); err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, r := range s.recorded() {
			out[r.Messages[0].Content+"|"+lastUser(r)[:10]] = *r.Seed
		}
		return out
	}
	a, b, c := seedsOf(5), seedsOf(5), seedsOf(6)
	for k, v := range a {
		if b[k] != v {
			t.Errorf("%s: seed %d then %d for the same episode seed", k, v, b[k])
		}
		if c[k] == v {
			t.Errorf("%s: seed %d for two episode seeds", k, v)
		}
	}
}

func TestGameOptionsNoJudgeNoSeed(t *testing.T) {
	for name, opts := range map[string]Options{
		"NoJudge": {NoJudge: true, NoSeed: true, Personas: []string{""}},
	} {
		s := newFakeServer(t, model)
		e := newTestEnv(t, s, opts, nil)
		g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
		turns, err := g.Initial()
		if err != nil {
			t.Fatal(err)
		}
		for i, turn := range turns {
			if turn.Confidence != nil || roles(turn) != "solve" {
				t.Errorf("%s: agent %d: confidence %v exchanges %q", name, i, turn.Confidence, roles(turn))
			}
		}
		for _, r := range s.recorded() {
			if r.Seed != nil || r.Messages[0].Role == "system" {
				t.Errorf("%s: request %+v: seed or empty persona sent", name, r)
			}
		}
	}
}

func TestGameInitialRespectsConcurrency(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		time.Sleep(5 * time.Millisecond) // overlap, were there no limit
		model(w, r, n, req)
	})
	e := newTestEnv(t, s, Options{}, func(c *Config) { c.Concurrency = 1 })
	g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
	if _, err := g.Initial(); err != nil {
		t.Fatal(err)
	}
	if m := s.maxInflight.Load(); m != 1 {
		t.Errorf("%d requests in flight with concurrency 1", m)
	}
}

func TestGameSolveFailureIsAnError(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		if req.Messages[0].Content == "agent 1" {
			apiError(w, http.StatusBadRequest, "prompt too long")
			return
		}
		model(w, r, n, req)
	})
	e := newTestEnv(t, s, Options{}, nil)
	g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
	_, err := g.Initial()
	var apiErr *APIError
	if !errors.As(err, &apiErr) || !strings.Contains(err.Error(), "task t1: round 0: agent 1: solve") ||
		!strings.Contains(err.Error(), "prompt too long") {
		t.Fatalf("error %v, want agent 1's solve failure with the server's message", err)
	}
}

func TestGameJudgeFailureIsRecorded(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		if strings.HasPrefix(lastUser(*req), "Here is a problem") {
			apiError(w, http.StatusBadRequest, "judge refused")
			return
		}
		model(w, r, n, req)
	})
	e := newTestEnv(t, s, Options{}, nil)
	g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
	turns, err := g.Initial()
	if err != nil {
		t.Fatal(err)
	}
	for i, turn := range turns {
		ex := turn.Exchanges[len(turn.Exchanges)-1]
		if turn.Confidence != nil || ex.Role != RoleJudge || !strings.Contains(ex.Error, "judge refused") ||
			ex.PromptTokens != 0 || turn.Answer == "" {
			t.Errorf("agent %d: %+v", i, turn)
		}
		checkTokens(t, "judge failure", data.Turn{Exchanges: turn.Exchanges[:1], Tokens: turn.Tokens})
	}
}

func TestGameCancel(t *testing.T) {
	arrived := make(chan struct{}, 8)
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		arrived <- struct{}{}
		hang(r)
	})
	ctx, cancel := context.WithCancel(context.Background())
	e := newTestEnv(t, s, Options{Context: ctx}, nil)
	g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
	go func() { <-arrived; cancel() }()
	if _, err := g.Initial(); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestGameEstimatesMissingUsageAndKeepsReasoning(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		content := `So \boxed{12}.`
		if strings.HasPrefix(lastUser(*req), "Here is a problem") {
			content = "Confidence: 55"
		}
		writeJSON(w, 200, map[string]any{"choices": []any{map[string]any{"message": map[string]any{
			"content": content, "reasoning_content": "Let me think. 3*4 = 12, not 13."}}}})
	})
	e := newTestEnv(t, s, Options{}, nil)
	g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
	turns, err := g.Initial()
	if err != nil {
		t.Fatal(err)
	}
	turn := turns[0]
	if turn.Answer != "12" || !strings.HasPrefix(turn.Text, "<think>Let me think") || *turn.Confidence != 0.55 {
		t.Errorf("answer %q text %q confidence %v", turn.Answer, turn.Text, *turn.Confidence)
	}
	ex := turn.Exchanges[0]
	var msgs []Message
	json.Unmarshal([]byte(ex.Prompt), &msgs)
	if ex.PromptTokens != EstimatePromptTokens(msgs) || ex.CompletionTokens != answer.EstimateTokens(ex.Response) || ex.CompletionTokens == 0 {
		t.Errorf("estimated tokens %d+%d", ex.PromptTokens, ex.CompletionTokens)
	}
	if st := e.Client().Stats(); st.MissingUsage != 6 {
		t.Errorf("stats %+v, want 6 answers without usage", st)
	}
	// The judge is shown the answer without the thinking.
	for _, r := range s.recorded() {
		if strings.HasPrefix(lastUser(r), "Here is a problem") && strings.Contains(lastUser(r), "Let me think") {
			t.Error("judge prompt carries the thinking")
		}
	}
}

func TestGameStepChecksArguments(t *testing.T) {
	s := newFakeServer(t, model)
	e := newTestEnv(t, s, Options{}, nil)
	g, _ := e.Start(0, rand.New(rand.NewPCG(1, 1)))
	prev := make([]data.Turn, 3)
	for _, tc := range []struct {
		round, agent int
		a            metapolicy.Action
		prev         []data.Turn
		want         string
	}{
		{0, 0, metapolicy.Persist, prev, "round 0"},
		{1, 3, metapolicy.Persist, prev, "agent 3"},
		{1, -1, metapolicy.Persist, prev, "agent -1"},
		{1, 0, metapolicy.Persist, prev[:2], "2 previous turns"},
		{1, 0, metapolicy.Action(7), prev, "invalid action"},
	} {
		if _, err := g.Step(tc.round, tc.agent, tc.a, tc.prev); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Step(%d, %d, %d): error %v, want %q", tc.round, tc.agent, tc.a, err, tc.want)
		}
	}
	if _, err := e.Start(1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("Start(1) of 1 task: no error")
	}
}

func TestNewEnvChecks(t *testing.T) {
	s := newFakeServer(t, model)
	c, _ := testClient(t, s, nil)
	for _, tc := range []struct {
		tasks []Task
		opts  Options
		want  string
	}{
		{nil, Options{}, "no tasks"},
		{[]Task{gsmTask()}, Options{Agents: 1}, "1 agents"},
		{[]Task{{ID: "a", Question: "q", Kind: "physics"}}, Options{}, `task 0: kind: "physics" is not a task kind (want gsm8k, mmlu, arithmetic, math`},
		{[]Task{{ID: "a", Question: " ", Kind: answer.GSM8K}}, Options{}, "question: empty"},
		{[]Task{gsmTask(), gsmTask()}, Options{}, `task 1: id: "t1" repeats task 0`},
	} {
		if _, err := NewEnv(c, tc.tasks, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestCallSeedSpreads(t *testing.T) {
	seen := map[int64]bool{}
	for round := range 4 {
		for agent := range 7 {
			for _, role := range []string{RoleSolve, RoleRefine, RoleConcede, RoleJudge} {
				s := callSeed(12345, round, agent, seedRole(role))
				if s < 0 || s >= 1<<31 || seen[s] {
					t.Fatalf("seed %d (round %d agent %d %s) out of range or repeated", s, round, agent, role)
				}
				seen[s] = true
			}
		}
	}
}
