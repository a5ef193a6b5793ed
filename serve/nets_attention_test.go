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

// Decoupled attention networks (--agent-policy slot --arch attention, the
// paper's recipe) are served from the checkpoint and from its safetensors
// export: GET /v1/policy names the networks and the width, and each
// agent's probabilities over HTTP are those of checkpoints.LoadPolicy's
// policy, its own network's, on the same observation.
func TestServeDecoupledAttention(t *testing.T) {
	ck := decoupledAttentionCheckpoint(t)
	dir := t.TempDir()
	ckpt, st := filepath.Join(dir, "best.mpdf"), filepath.Join(dir, "policy.safetensors")
	if err := checkpoints.Save(ckpt, ck); err != nil {
		t.Fatal(err)
	}
	if _, _, err := checkpoints.Export(ckpt, st, false); err != nil {
		t.Fatal(err)
	}
	fz, err := metapolicy.FeaturizerFor(metapolicy.FeatureVersionPeers)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{ckpt, st} {
		s, err := New(Config{PolicyPath: path})
		if err != nil {
			t.Fatal(err)
		}
		hs := newHTTPTest(t, s)
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
		if info.AgentPolicy != "slot" || len(info.Networks) != 3 || info.AttnDim != 8 || info.FeatureVersion != metapolicy.FeatureVersionPeers {
			t.Fatalf("%s: policy info %+v", path, info)
		}
		ref, err := checkpoints.LoadPolicy(path, "ref")
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		var req DecideRequest
		for i := range 80 {
			req.Deliberations = append(req.Deliberations, randomDeliberation(rng, i))
		}
		got := decideHTTP(t, hs, &req)
		if !checkDecoupledProbs(t, filepath.Base(path), ck.Nets, fz, ref, &req, got) {
			t.Errorf("%s: every agent's probabilities are another network's too: the dispatch is not tested", path)
		}
	}
}

// decoupledAttentionCheckpoint is a slot policy of three attention
// networks, their weights scaled so that they decide apart.
func decoupledAttentionCheckpoint(t *testing.T) *checkpoints.Checkpoint {
	t.Helper()
	attnNet := func(seed uint64) *nn.MLP[float32] {
		m, err := nn.NewAttention[float32](8, []int{nn.AttnSelf + 8, 16, nn.NumActions}, nn.Tanh)
		if err != nil {
			t.Fatal(err)
		}
		m.Init(seed)
		for i := range m.Params {
			m.Params[i] *= 3
		}
		return m
	}
	keys := []string{"slot:0", "slot:1", "slot:2"}
	ck := &checkpoints.Checkpoint{
		Header:    checkpoints.Header{FeatureVersion: metapolicy.FeatureVersionPeers, Step: 3, Seed: 1},
		Reference: attnNet(99),
		NetKeys:   keys,
	}
	for k := range keys {
		ck.Nets = append(ck.Nets, attnNet(uint64(30+k)))
	}
	ck.Policy = ck.Nets[0]
	return ck
}

// checkDecoupledProbs holds every served decision's probabilities to the
// loaded policy's and, for slots 0–2, to the slot's own network's, and
// reports whether some agent's differ from the next slot's network (so
// that the dispatch is seen).
func checkDecoupledProbs(t *testing.T, name string, nets []*nn.MLP[float32], fz metapolicy.Featurizer, ref metapolicy.Policy, req *DecideRequest, got *DecideResponse) (apart bool) {
	t.Helper()
	for i, d := range req.Deliberations {
		obs := observation(t, d, 0)
		for self, dec := range got.Results[i].Agents {
			obs.Self = self
			var want [metapolicy.NumActions]float64
			if err := ref.Probs(&want, obs); err != nil {
				t.Fatal(err)
			}
			p := [metapolicy.NumActions]float64(dec.Probs)
			for k := range p {
				if math.Abs(p[k]-want[k]) > 1e-6 {
					t.Fatalf("%s: deliberation %d agent %d: probs %v, the policy's %v", name, i, self, p, want)
				}
			}
			if self >= 3 {
				continue
			}
			one, err := metapolicy.NewFeaturizedPolicy("one", nets[self], fz)
			if err != nil {
				t.Fatal(err)
			}
			var mine [metapolicy.NumActions]float64
			if err := one.Probs(&mine, obs); err != nil {
				t.Fatal(err)
			}
			for k := range p {
				if math.Abs(p[k]-mine[k]) > 1e-6 {
					t.Fatalf("%s: deliberation %d agent %d: probs %v, its own network's %v", name, i, self, p, mine)
				}
			}
			other, _ := metapolicy.NewFeaturizedPolicy("other", nets[(self+1)%3], fz)
			var theirs [metapolicy.NumActions]float64
			if err := other.Probs(&theirs, obs); err == nil && math.Abs(theirs[0]-p[0]) > 1e-3 {
				apart = true
			}
		}
	}
	return apart
}
