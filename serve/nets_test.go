package serve

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
)

// writeDecoupled saves a checkpoint of a policy with a network per key
// (and its safetensors export), the reference its fallback.
func writeDecoupled(t *testing.T, keys ...string) (ckpt, st string) {
	t.Helper()
	dir := t.TempDir()
	ck := &checkpoints.Checkpoint{
		Header:    checkpoints.Header{FeatureVersion: metapolicy.FeatureVersion, Step: 7, Seed: 1},
		Reference: testNet(t, 99),
		NetKeys:   keys,
	}
	for k := range keys {
		ck.Nets = append(ck.Nets, testNet(t, uint64(10+k)))
	}
	ck.Policy = ck.Nets[0]
	ckpt, st = filepath.Join(dir, "best.mpdf"), filepath.Join(dir, "policy.safetensors")
	if err := checkpoints.Save(ckpt, ck); err != nil {
		t.Fatal(err)
	}
	if _, _, err := checkpoints.Export(ckpt, st, false); err != nil {
		t.Fatal(err)
	}
	return ckpt, st
}

// A decoupled policy served decides for each agent with its network —
// by its index (slot) or its model field (model), the fallback for the
// others — as the metapolicy policy read from the same file does, batched
// or not; GET /v1/policy names the networks.
func TestDecideDecoupled(t *testing.T) {
	models := []string{"llama", "orca", "wizardlm", "gpt"} // gpt: no network
	for _, c := range []struct {
		by   string
		keys []string
	}{
		{"slot", []string{"slot:0", "slot:1", "slot:2"}},
		{"model", []string{"model:llama", "model:orca", "model:wizardlm"}},
	} {
		for _, file := range []int{0, 1} {
			ckpt, st := writeDecoupled(t, c.keys...)
			path := []string{ckpt, st}[file]
			s, err := New(Config{PolicyPath: path})
			if err != nil {
				t.Fatal(err)
			}
			ref, err := checkpoints.LoadPolicy(path, "ref")
			if err != nil {
				t.Fatal(err)
			}
			if info := s.Policy().Info(); info.AgentPolicy != c.by || len(info.Networks) != 3 {
				t.Errorf("%s: policy info %+v", path, info)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			var req DecideRequest
			for i := range 60 {
				d := randomDeliberation(rng, i)
				for k := range d.Agents {
					if m := models[rng.IntN(5)%4]; rng.IntN(5) > 0 {
						d.Agents[k].Model = &m
					}
				}
				req.Deliberations = append(req.Deliberations, d)
			}
			resp, err := s.Policy().Decide(&req)
			if err != nil {
				t.Fatal(err)
			}
			for i, d := range req.Deliberations {
				obs := observation(t, d, 0)
				for self, got := range resp.Results[i].Agents {
					obs.Self = self
					var want [metapolicy.NumActions]float64
					if err := ref.Probs(&want, obs); err != nil {
						t.Fatal(err)
					}
					p := [metapolicy.NumActions]float64(got.Probs)
					for k := range p {
						if math.Abs(p[k]-want[k]) > 1e-5 {
							t.Fatalf("%s %s: deliberation %d agent %d: probs %v, the policy's %v", c.by, filepath.Base(path), i, self, p, want)
						}
					}
				}
			}
		}
	}
}

// An agent that names no model is decided by the fallback, even when the
// file holds a network keyed "model:" (an old run's, of the agents of
// unknown model): the one rule of training, serve and the Python package.
func TestDecideNoModelIsFallback(t *testing.T) {
	ckpt, _ := writeDecoupled(t, "model:a", "model:")
	s, err := New(Config{PolicyPath: ckpt})
	if err != nil {
		t.Fatal(err)
	}
	ck, err := checkpoints.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	a, two := "a", "2"
	d := Deliberation{Round: 1, Rounds: 2, Agents: []Agent{{Answer: &a, Model: &a}, {Answer: &two}}}
	resp, err := s.Policy().Decide(&DecideRequest{Deliberations: []Deliberation{d}})
	if err != nil {
		t.Fatal(err)
	}
	obs := observation(t, d, 1)
	for _, c := range []struct {
		name string
		net  int // index into ck.Nets, -1 the fallback
		want bool
	}{{"the fallback", -1, true}, {`the "model:" network`, 1, false}} {
		m := ck.Reference
		if c.net >= 0 {
			m = ck.Nets[c.net]
		}
		p, err := metapolicy.NewMLPPolicy("x", m)
		if err != nil {
			t.Fatal(err)
		}
		var want [metapolicy.NumActions]float64
		if err := p.Probs(&want, obs); err != nil {
			t.Fatal(err)
		}
		got := resp.Results[0].Agents[1].Probs
		same := math.Abs(got[metapolicy.Persist]-want[0]) < 1e-6 && math.Abs(got[metapolicy.Refine]-want[1]) < 1e-6
		if same != c.want {
			t.Errorf("agent of no model: probs %+v, %s's %v: same %v, want %v", got, c.name, want, same, c.want)
		}
	}
}

// An agent's model is capped, and reaches the policy over HTTP.
func TestDecideModelField(t *testing.T) {
	ckpt, _ := writeDecoupled(t, "model:a", "model:b")
	s, err := New(Config{PolicyPath: ckpt})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	hs := srv.URL
	body := `{"round":1,"rounds":3,"agents":[{"answer":"1","model":"a"},{"answer":"2","model":"b"}]}`
	code, b := post(t, hs+"/v1/decide", []byte(body))
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, b)
	}
	long := `{"round":1,"rounds":3,"agents":[{"answer":"1","model":"` + strings.Repeat("x", MaxModelBytes+1) + `"},{"answer":"2"}]}`
	code, b = post(t, hs+"/v1/decide", []byte(long))
	var e ErrorBody
	if code != http.StatusBadRequest || json.Unmarshal(b, &e) != nil || !strings.Contains(string(b), "model") {
		t.Errorf("a model of %d bytes: status %d: %s", MaxModelBytes+1, code, b)
	}
}
