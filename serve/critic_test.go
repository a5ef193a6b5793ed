package serve

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// criticTiny is a GSM8K transcript whose texts state arithmetic: agent 0
// computes right (critic 1), agent 1 slips (critic 0: its answer is the
// slip's result), agent 2 states no equation (missing). One round is
// recorded after round 0, so the replay decides once, on the round-0 texts.
const criticTiny = `{
 "q": [[
   [{"role":"user","content":"q"},{"role":"assistant","content":"3 * 4 = 12. \\boxed{12}"},{"role":"user","content":"p"},{"role":"assistant","content":"3 * 4 = 12 and 12 + 2 = 15, then 15 - 3 = 12. \\boxed{12}"}],
   [{"role":"user","content":"q"},{"role":"assistant","content":"3 * 4 = 13. \\boxed{13}"},{"role":"user","content":"p"},{"role":"assistant","content":"\\boxed{12}"}],
   [{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{13}"},{"role":"user","content":"p"},{"role":"assistant","content":"\\boxed{12}"}]
 ], "#### 12"]
}`

// replayStates plays every question of the files' replay, with the critic
// and the texts, with every agent refining, and returns per question and
// round ≥ 1 the replay's states (what the policy sees in training on a
// replay with critic=on) and the same deliberation as a request that gives
// each agent's text only.
func replayStates(t *testing.T, qs []transcript.Question, kind string, max int) (states [][]metapolicy.AgentState, req DecideRequest) {
	t.Helper()
	e, err := replay.New(qs, replay.WithCritic(true), replay.WithText(true))
	if err != nil {
		t.Fatal(err)
	}
	rounds := e.Rounds()
	for task := range min(e.NumTasks(), max) {
		g, err := e.Start(task, nil)
		if err != nil {
			t.Fatal(err)
		}
		turns, err := g.Initial()
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; r <= rounds; r++ {
			st := make([]metapolicy.AgentState, len(turns))
			d := Deliberation{Kind: kind, Round: r, Rounds: rounds}
			for k := range turns {
				st[k] = turns[k].State()
				text := turns[k].Text
				d.Agents = append(d.Agents, Agent{Text: &text})
			}
			states = append(states, st)
			req.Deliberations = append(req.Deliberations, d)
			next := make([]data.Turn, len(turns))
			for k := range turns {
				if next[k], err = g.Step(r, k, metapolicy.Refine, turns); err != nil {
					t.Fatal(err)
				}
			}
			turns = next
		}
	}
	return states, req
}

// checkServedEqualsReplay asserts that a server with the critic decides on
// the request as the policy decides on the replay's states: the same
// confidence (bit for bit, missing where the replay's is), the same
// probabilities up to the float32 kernels, the same greedy action; and
// that a server without the critic decides otherwise somewhere (so the
// confidence reached the policy). It returns how many agents the critic
// gave a confidence.
func checkServedEqualsReplay(t *testing.T, states [][]metapolicy.AgentState, req DecideRequest) int {
	t.Helper()
	s, hs, _ := newTestServer(t, Config{Critic: true})
	ref, err := metapolicy.NewMLPPolicy("ref", s.Policy().net)
	if err != nil {
		t.Fatal(err)
	}
	ds, fe := req.checkIn(stopper{}, nil, true)
	if fe != nil {
		t.Fatal(fe)
	}
	code, body := post(t, hs.URL+"/v1/decide", mustJSON(t, &req))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	resp := decodeResp(t, body)
	_, hsOff, _ := newTestServer(t, Config{})
	code, body = post(t, hsOff.URL+"/v1/decide", mustJSON(t, &req))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	off := decodeResp(t, body)
	filled, differ := 0, 0
	for i, st := range states {
		d := req.Deliberations[i]
		for k := range st {
			got, want := ds[i].agents[k].Confidence, st[k].Confidence
			if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("deliberation %d agent %d: served confidence %v, replay's %v (text %q)", i, k, got, want, *d.Agents[k].Text)
			}
			if !math.IsNaN(want) {
				filled++
			}
			obs := &metapolicy.Observation{Self: k, Round: d.Round, Rounds: d.Rounds, Agents: st}
			var p [metapolicy.NumActions]float64
			if err := ref.Probs(&p, obs); err != nil {
				t.Fatal(err)
			}
			dec := resp.Results[i].Agents[k]
			q := [metapolicy.NumActions]float64(dec.Probs)
			best := metapolicy.Persist
			for a := range p {
				if math.Abs(p[a]-q[a]) > 1e-5 {
					t.Errorf("deliberation %d agent %d: served probs %v, replay state's %v", i, k, q, p)
					break
				}
				if p[a] > p[best] {
					best = metapolicy.Action(a)
				}
			}
			if dec.Action != best {
				t.Errorf("deliberation %d agent %d: served %v, policy on the replay state %v (probs %v)", i, k, dec.Action, best, p)
			}
			if o := off.Results[i].Agents[k].Probs; o != dec.Probs {
				differ++
			}
		}
	}
	if filled > 0 && differ == 0 {
		t.Errorf("the critic filled %d confidences, yet a server without it decides the same everywhere", filled)
	}
	return filled
}

// TestCriticServeMatchesReplay: mpdf serve --critic, given raw texts,
// decides as the policy decides on the replay (critic=on) states of the
// same texts: no train/serve skew in the confidence.
func TestCriticServeMatchesReplay(t *testing.T) {
	var qs []transcript.Question
	_, err := transcript.Each(strings.NewReader(criticTiny), "gsm_tiny.json", transcript.Options{}, func(q *transcript.Question) error {
		qs = append(qs, *q)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	states, req := replayStates(t, qs, "gsm", 10)
	if n := checkServedEqualsReplay(t, states, req); n != 2 {
		t.Errorf("the critic gave %d confidences, want 2 (agents 0 and 1 of round 0)", n)
	}
}

// TestCriticServeMatchesReplayReal is the same on shared transcripts of the
// kinds the critic reads (gsm8k, arithmetic, math), 40 questions each.
func TestCriticServeMatchesReplayReal(t *testing.T) {
	files := append(testenv.Debates(t, "slm-debate/gsm/gsm_Qwen3-0.6B_*agents3_rounds3.json"),
		testenv.Debates(t, "more/variants/arithmetic_*0.7-0.7-0.7*.json")...)
	files = append(files, testenv.Debates(t, "more/variants/dylan_math_prealgebra_7_*.json")...)
	for _, path := range files {
		f, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		states, req := replayStates(t, f.Questions, string(f.Questions[0].Task), 40)
		n := checkServedEqualsReplay(t, states, req)
		t.Logf("%s: %d deliberations (%d rounds), %d confidences from the critic", filepath.Base(path), len(states), req.Deliberations[0].Rounds, n)
		if n == 0 {
			t.Errorf("%s: the critic read no confidence: the test compares nothing", path)
		}
	}
}

// TestCriticProvenanceWarning: a checkpoint trained on a replay with
// critic=on is served anyway by a server without the critic, with a
// warning logged and in /v1/policy; with the critic, no warning; a server
// with the critic warns about a policy trained without it.
func TestCriticProvenanceWarning(t *testing.T) {
	dir := t.TempDir()
	write := func(name, env string) string {
		path := filepath.Join(dir, name)
		ck := &checkpoints.Checkpoint{
			Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersion, Step: 3, Seed: 1,
				DataPos: json.RawMessage(`{"mode":"online","iter":1,"env":` + string(mustJSON(t, env)) + `}`)},
			Policy: testNet(t, 1),
		}
		if err := checkpoints.Save(path, ck); err != nil {
			t.Fatal(err)
		}
		return path
	}
	withCritic := write("critic.mpdf", "replay:a/*.json,kind=gsm,critic=on")
	without := write("plain.mpdf", "replay:a/*.json")
	st := filepath.Join(dir, "critic.safetensors")
	if err := checkpoints.SaveSafetensors(st, testNet(t, 1), map[string]string{
		checkpoints.MetaFeatureVersion: metapolicy.FeatureVersion, checkpoints.MetaConfidenceSource: checkpoints.ConfidenceTextCritic}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path   string
		critic bool
		source string
		warn   string // in the warning; "" for none
	}{
		{withCritic, false, checkpoints.ConfidenceTextCritic, "runs without the critic"},
		{withCritic, true, checkpoints.ConfidenceTextCritic, ""},
		{st, false, checkpoints.ConfidenceTextCritic, "runs without the critic"},
		{without, true, checkpoints.ConfidenceNone, "never trained on"},
		{without, false, checkpoints.ConfidenceNone, ""},
	} {
		var log bytes.Buffer
		s, err := New(Config{PolicyPath: c.path, Critic: c.critic, Log: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		logged := log.String() // the load's log; Serve writes to it from now on
		url := newHTTPTest(t, s)
		code, body := get(t, url+"/v1/policy")
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, body)
		}
		var info PolicyInfo
		if err := json.Unmarshal(body, &info); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(c.path)
		if info.ConfidenceSource != c.source || info.Critic != c.critic {
			t.Errorf("%s, critic %v: /v1/policy says source %q critic %v", name, c.critic, info.ConfidenceSource, info.Critic)
		}
		warned := strings.Contains(logged, "level=WARN")
		switch {
		case c.warn == "" && (warned || len(info.Warnings) > 0):
			t.Errorf("%s, critic %v: unexpected warning %q / log %q", name, c.critic, info.Warnings, logged)
		case c.warn != "" && (!warned || len(info.Warnings) != 1 || !strings.Contains(info.Warnings[0], c.warn)):
			t.Errorf("%s, critic %v: warnings %q, log %q; want one saying %q", name, c.critic, info.Warnings, logged, c.warn)
		}
		// A reload keeps saying it.
		if rinfo, err := s.Reload(); err != nil || len(rinfo.Warnings) != len(info.Warnings) {
			t.Errorf("%s: reload: %v, warnings %q", name, err, rinfo.Warnings)
		}
	}
}
