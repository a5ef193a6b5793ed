package serve

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// testNetV2 is a random mpdf-features/v2 network (40→32→32→3, tanh).
func testNetV2(t testing.TB, seed uint64) *nn.MLP[float32] {
	return testNetOf(t, metapolicy.FeatureWidthV2, seed)
}

// withHistory gives d a random history consistent with its agents: random
// answers in the earlier rounds, the agents' answers in the last.
func withHistory(rng *rand.Rand, d Deliberation) Deliberation {
	pool := []string{"", "1", "2", "3", "A"}
	d.History = make([][]string, d.Round)
	for r := range d.History {
		row := make([]string, len(d.Agents))
		for i := range row {
			if r == d.Round-1 {
				row[i] = *d.Agents[i].Answer
			} else {
				row[i] = pool[rng.IntN(len(pool))]
			}
		}
		d.History[r] = row
	}
	return d
}

// TestServeV2MatchesMetapolicy: a checkpoint recording mpdf-features/v2 is
// served with that layout (GET /v1/policy and decide responses say so),
// and every agent's probabilities are those of the policy
// checkpoints.LoadPolicy builds (metapolicy.FeaturizeV2 and the MLP) on the
// same observation, history or none. The history reaches the network: the
// same deliberations without it decide differently somewhere.
func TestServeV2MatchesMetapolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.mpdf")
	ck := &checkpoints.Checkpoint{
		Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersionV2, Step: 7, Seed: 3},
		Policy: testNetV2(t, 3),
	}
	if err := checkpoints.Save(path, ck); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{PolicyPath: path})
	if err != nil {
		t.Fatal(err)
	}
	hs := newHTTPTest(t, s)
	ref, err := checkpoints.LoadPolicy(path, "ref")
	if err != nil {
		t.Fatal(err)
	}

	resp, err := http.Get(hs + "/v1/policy")
	if err != nil {
		t.Fatal(err)
	}
	var info PolicyInfo
	err = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if info.FeatureVersion != metapolicy.FeatureVersionV2 || info.Sizes[0] != metapolicy.FeatureWidthV2 {
		t.Fatalf("policy info %+v", info)
	}

	rng := rand.New(rand.NewPCG(5, 6))
	var req, bare DecideRequest
	for i := range 300 {
		d := randomDeliberation(rng, i)
		bare.Deliberations = append(bare.Deliberations, d)
		if i%3 > 0 {
			d = withHistory(rng, d)
		}
		req.Deliberations = append(req.Deliberations, d)
	}
	got := decideHTTP(t, hs, &req)
	if got.FeatureVersion != metapolicy.FeatureVersionV2 {
		t.Fatalf("decide feature_version %q", got.FeatureVersion)
	}
	for i, d := range req.Deliberations {
		// A deliberation past round 0 without its history is said to have
		// incomplete features; one with it, or at round 0, is not.
		if inc, want := got.Results[i].FeaturesIncomplete, d.History == nil && d.Round > 0; (inc == HistoryMissing) != want || !want && inc != "" {
			t.Errorf("deliberation %d (round %d, history %v): features_incomplete %q", i, d.Round, d.History != nil, inc)
		}
		obs := observation(t, d, 0)
		obs.History = d.History
		for self, dec := range got.Results[i].Agents {
			obs.Self = self
			var want [metapolicy.NumActions]float64
			if err := ref.Probs(&want, obs); err != nil {
				t.Fatal(err)
			}
			p := [metapolicy.NumActions]float64(dec.Probs)
			for k := range p {
				if math.Abs(p[k]-want[k]) > 1e-5 {
					t.Errorf("deliberation %d agent %d (history %v): probs %v, metapolicy %v", i, self, d.History != nil, p, want)
					break
				}
			}
		}
	}

	without := decideHTTP(t, hs, &bare)
	differ := 0
	for i, d := range req.Deliberations {
		if d.History == nil {
			continue
		}
		for self, dec := range got.Results[i].Agents {
			if math.Abs(dec.Probs[metapolicy.Persist]-without.Results[i].Agents[self].Probs[metapolicy.Persist]) > 1e-6 {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("history changed no probability: the v2 policy does not see it")
	}
}

// TestLoadPolicyV2Safetensors: a safetensors export recording
// mpdf-features/v2 loads with that layout and decides as the checkpoint of
// the same network; one recording an unknown layout is refused.
func TestLoadPolicyV2Safetensors(t *testing.T) {
	dir := t.TempDir()
	net := testNetV2(t, 9)
	st := filepath.Join(dir, "v2.safetensors")
	if err := checkpoints.SaveSafetensors(st, net, map[string]string{checkpoints.MetaFeatureVersion: metapolicy.FeatureVersionV2}); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(st)
	if err != nil {
		t.Fatal(err)
	}
	if v := p.Info().FeatureVersion; v != metapolicy.FeatureVersionV2 {
		t.Fatalf("feature version %q", v)
	}
	mem, err := NewPolicyVersion("mem", metapolicy.FeatureVersionV2, net)
	if err != nil {
		t.Fatal(err)
	}
	req := DecideRequest{Deliberation: withHistory(rand.New(rand.NewPCG(1, 1)), randomDeliberation(rand.New(rand.NewPCG(2, 2)), 0))}
	a, err := p.Decide(&req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := mem.Decide(&req)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Result.Agents {
		if a.Result.Agents[i].Probs != b.Result.Agents[i].Probs {
			t.Errorf("agent %d: safetensors %v, in memory %v", i, a.Result.Agents[i].Probs, b.Result.Agents[i].Probs)
		}
	}

	// A v1 network under the v2 label, and an unknown layout, are refused.
	if _, err := NewPolicyVersion("wrong", metapolicy.FeatureVersionV2, testNet(t, 1)); err == nil {
		t.Error("v1-width network accepted as v2")
	}
	bad := filepath.Join(dir, "v9.safetensors")
	if err := checkpoints.SaveSafetensors(bad, net, map[string]string{checkpoints.MetaFeatureVersion: "mpdf-features/v9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPolicy(bad); err == nil {
		t.Error("unknown feature version accepted")
	}
}

func newHTTPTest(t testing.TB, s *Server) string {
	t.Helper()
	url, stop := serveLoopback(t, s)
	t.Cleanup(stop)
	return url
}

func decideHTTP(t testing.TB, url string, req *DecideRequest) *DecideResponse {
	t.Helper()
	code, body := post(t, url+"/v1/decide", mustJSON(t, req))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	return decodeResp(t, body)
}

// TestReloadSwitchesLayout: reloading a v1 server onto a v2 file and back
// switches the layout requests are featurized with, on the pooled buffers.
func TestReloadSwitchesLayout(t *testing.T) {
	_, hs, path := newTestServer(t, Config{AllowReload: true})
	rng := rand.New(rand.NewPCG(8, 8))
	var req DecideRequest
	for i := range 40 {
		req.Deliberations = append(req.Deliberations, withHistory(rng, randomDeliberation(rng, i)))
	}
	v2 := &checkpoints.Checkpoint{
		Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersionV2, Step: 1},
		Policy: testNetV2(t, 4),
	}
	for _, want := range []string{metapolicy.FeatureVersion, metapolicy.FeatureVersionV2, metapolicy.FeatureVersion} {
		if want == metapolicy.FeatureVersionV2 {
			if err := checkpoints.Save(path, v2); err != nil {
				t.Fatal(err)
			}
		} else {
			writeCheckpoint(t, path, 1, 100)
		}
		if code, b := post(t, hs.URL+"/v1/reload", nil); code != http.StatusOK {
			t.Fatalf("reload: %d %s", code, b)
		}
		got := decideHTTP(t, hs.URL, &req)
		if got.FeatureVersion != want || len(got.Results) != len(req.Deliberations) {
			t.Fatalf("after reload: feature_version %q, %d results; want %q", got.FeatureVersion, len(got.Results), want)
		}
		ref, err := checkpoints.LoadPolicy(path, "ref")
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range req.Deliberations {
			obs := observation(t, d, 0)
			obs.History = d.History
			for self, dec := range got.Results[i].Agents {
				obs.Self = self
				var p [metapolicy.NumActions]float64
				if err := ref.Probs(&p, obs); err != nil {
					t.Fatal(err)
				}
				if math.Abs(p[0]-dec.Probs[metapolicy.Persist]) > 1e-5 || math.Abs(p[2]-dec.Probs[metapolicy.Concede]) > 1e-5 {
					t.Fatalf("%s deliberation %d agent %d: probs %+v, metapolicy %v", want, i, self, dec.Probs, p)
				}
			}
		}
	}
}
