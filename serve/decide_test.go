package serve

import (
	"bytes"
	"math"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/metapolicy"
)

// TestDecideMatchesMetapolicy: over HTTP, every agent's probabilities are
// metapolicy.MLPPolicy's (up to the float32 kernels' rounding), the greedy
// action is their argmax, and the team answer and concede targets are
// metapolicy's consensus rules.
func TestDecideMatchesMetapolicy(t *testing.T) {
	s, hs, _ := newTestServer(t, Config{})
	ref, err := metapolicy.NewMLPPolicy("ref", s.Policy().net)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var req DecideRequest
	for i := range 300 {
		req.Deliberations = append(req.Deliberations, randomDeliberation(rng, i))
	}
	code, body := post(t, hs.URL+"/v1/decide", mustJSON(t, &req))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	resp := decodeResp(t, body)
	if resp.FeatureVersion != metapolicy.FeatureVersion || resp.Policy != "best.mpdf" || resp.Step == nil || *resp.Step != 100 || resp.Mode != "greedy" {
		t.Fatalf("response header %+v", resp)
	}
	if len(resp.Results) != len(req.Deliberations) {
		t.Fatalf("%d results for %d deliberations", len(resp.Results), len(req.Deliberations))
	}
	actions := map[metapolicy.Action]int{}
	for i, d := range req.Deliberations {
		res := resp.Results[i]
		if res.ID != d.ID || len(res.Agents) != len(d.Agents) {
			t.Fatalf("result %d: id %q, %d agents; want %q, %d", i, res.ID, len(res.Agents), d.ID, len(d.Agents))
		}
		obs := observation(t, d, 0)
		answers, conf := make([]string, len(obs.Agents)), make([]float64, len(obs.Agents))
		for k, a := range obs.Agents {
			answers[k], conf[k] = a.Answer, a.Confidence
		}
		if want := metapolicy.TeamAnswer(answers, conf, -1); res.TeamAnswer != want {
			t.Errorf("deliberation %d: team answer %q, want %q", i, res.TeamAnswer, want)
		}
		for self, got := range res.Agents {
			obs.Self = self
			var want [metapolicy.NumActions]float64
			if err := ref.Probs(&want, obs); err != nil {
				t.Fatal(err)
			}
			p := [metapolicy.NumActions]float64(got.Probs)
			for k := range p {
				if math.Abs(p[k]-want[k]) > 1e-5 {
					t.Errorf("deliberation %d agent %d: probs %v, metapolicy %v", i, self, p, want)
					break
				}
			}
			best := metapolicy.Persist
			for k := range p {
				if p[k] > p[best] {
					best = metapolicy.Action(k)
				}
			}
			if got.Action != best || math.Abs(got.LogProb-math.Log(p[best])) > 1e-12 {
				t.Errorf("deliberation %d agent %d: greedy %v (log %v), probs %v", i, self, got.Action, got.LogProb, p)
			}
			if want := metapolicy.ConcedeTarget(answers, conf, self); got.ConcedeTarget != want {
				t.Errorf("deliberation %d agent %d: concede target %q, want %q", i, self, got.ConcedeTarget, want)
			}
			if got.Answer != answers[self] {
				t.Errorf("deliberation %d agent %d: answer %q, want %q", i, self, got.Answer, answers[self])
			}
			actions[got.Action]++
		}
	}
	if len(actions) < 2 {
		t.Errorf("every greedy decision is the same (%v): the test policy does not discriminate", actions)
	}
}

// TestBatchEqualsSingles: a deliberation decides the same, bit for bit,
// alone or at any place in a batch (greedy), and a seeded sampled request
// gives the same bytes twice.
func TestBatchEqualsSingles(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{})
	rng := rand.New(rand.NewPCG(3, 4))
	var batch DecideRequest
	for i := range 700 { // more than a workspace chunk
		batch.Deliberations = append(batch.Deliberations, randomDeliberation(rng, i))
	}
	_, body := post(t, hs.URL+"/v1/decide", mustJSON(t, &batch))
	all := decodeResp(t, body)
	for _, i := range []int{0, 1, 63, 64, 511, 512, 699} {
		single := DecideRequest{Deliberation: batch.Deliberations[i]}
		code, b := post(t, hs.URL+"/v1/decide", mustJSON(t, &single))
		if code != http.StatusOK {
			t.Fatalf("status %d: %s", code, b)
		}
		one := decodeResp(t, b)
		if one.Result == nil || one.Results != nil {
			t.Fatalf("single request answered %s", b)
		}
		if !bytes.Equal(mustJSON(t, one.Result), mustJSON(t, all.Results[i])) {
			t.Errorf("deliberation %d alone:\n%s\nin the batch:\n%s", i, mustJSON(t, one.Result), mustJSON(t, all.Results[i]))
		}
	}

	seed := uint64(42)
	batch.Mode, batch.Seed = "sample", &seed
	_, b1 := post(t, hs.URL+"/v1/decide", mustJSON(t, &batch))
	_, b2 := post(t, hs.URL+"/v1/decide", mustJSON(t, &batch))
	if !bytes.Equal(b1, b2) {
		t.Error("the same seeded request gave different bytes")
	}
	seed = 43
	_, b3 := post(t, hs.URL+"/v1/decide", mustJSON(t, &batch))
	if bytes.Equal(b1, b3) {
		t.Error("seeds 42 and 43 drew the same 2000-odd actions")
	}
	r := decodeResp(t, b1)
	if r.Mode != "sample" || r.Seed == nil || *r.Seed != 42 {
		t.Errorf("sampled response mode %q seed %v", r.Mode, r.Seed)
	}
}

// TestSampleFollowsProbs: sampled actions follow the returned
// probabilities (a chi-square-free check: each action's count within 5
// standard deviations of its expectation over many draws).
func TestSampleFollowsProbs(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{MaxBodyBytes: 8 << 20})
	d := randomDeliberation(rand.New(rand.NewPCG(5, 6)), 0)
	req := DecideRequest{Mode: "sample"}
	for range 4000 {
		req.Deliberations = append(req.Deliberations, d)
	}
	seed := uint64(9)
	req.Seed = &seed
	code, body := post(t, hs.URL+"/v1/decide", mustJSON(t, &req))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	resp := decodeResp(t, body)
	for self := range d.Agents {
		pr := resp.Results[0].Agents[self].Probs
		p := [metapolicy.NumActions]float64(pr)
		var count [metapolicy.NumActions]float64
		for _, r := range resp.Results {
			count[r.Agents[self].Action]++
		}
		n := float64(len(resp.Results))
		for k := range p {
			if sd := math.Sqrt(n * p[k] * (1 - p[k])); math.Abs(count[k]-n*p[k]) > 5*sd+1 {
				t.Errorf("agent %d action %d: %v draws of %v, expected %.1f", self, k, count[k], n, n*p[k])
			}
		}
	}
}

// TestTextAgents: an agent given as raw text gets the importer's answer and
// profile; an explicit answer wins over the text's.
func TestTextAgents(t *testing.T) {
	s, _, _ := newTestServer(t, Config{})
	text := "Step 1: 6 times 7.\nI think it is 42.\nConfidence: 80%\n\\boxed{42}"
	tok := 17
	forced := "41"
	req := DecideRequest{Deliberation: Deliberation{Kind: "gsm", Round: 1, Rounds: 2, Agents: []Agent{
		{Text: &text, CompletionTokens: &tok}, {Text: &text}, {Text: &text, Answer: &forced},
	}}}
	ds, fe := req.check()
	if fe != nil {
		t.Fatal(fe)
	}
	prof := answer.ProfileOf(text)
	for i, a := range ds[0].agents {
		wantAns := answer.Extract(answer.GSM8K, text, answer.Options{})
		if i == 2 {
			wantAns = "41"
		}
		wantTok := prof.Tokens
		if i == 0 {
			wantTok = 17
		}
		if a.Answer != wantAns || a.Profile.Steps != prof.Steps || a.Profile.Hedges != prof.Hedges ||
			a.Profile.Tokens != wantTok || a.Profile.SelfConfidence != *prof.SelfConfidence {
			t.Errorf("agent %d: %+v, want answer %q tokens %d profile %+v", i, a, wantAns, wantTok, prof)
		}
	}
	if ds[0].agents[0].Answer != "42" {
		t.Errorf("answer read %q, want 42", ds[0].agents[0].Answer)
	}
	resp, err := s.Policy().Decide(&req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Result.TeamAnswer != "42" || resp.Result.Agents[2].ConcedeTarget != "42" {
		t.Errorf("team %q, agent 2's concede target %q", resp.Result.TeamAnswer, resp.Result.Agents[2].ConcedeTarget)
	}
}
