package serve

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// TestServeAttention: an attention network's export (mpdf-features/peers-v1)
// is served with its layout and width (GET /v1/policy), every agent's
// probabilities are those checkpoints.LoadPolicy's policy gives on the
// same observation, and a team of 9 is refused with the layout's reason.
func TestServeAttention(t *testing.T) {
	net, err := nn.NewAttention[float32](8, []int{nn.AttnSelf + 8, 16, nn.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	net.Init(21)
	for i := range net.Params {
		net.Params[i] *= 3
	}
	path := filepath.Join(t.TempDir(), "attn.safetensors")
	if err := checkpoints.SaveSafetensors(path, net, map[string]string{checkpoints.MetaFeatureVersion: metapolicy.FeatureVersionPeers}); err != nil {
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
	if info.FeatureVersion != metapolicy.FeatureVersionPeers || info.AttnDim != 8 {
		t.Fatalf("policy info %+v", info)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var req DecideRequest
	for i := range 200 {
		req.Deliberations = append(req.Deliberations, randomDeliberation(rng, i))
	}
	got := decideHTTP(t, hs, &req)
	spread := 0.0
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
					t.Fatalf("deliberation %d agent %d: probs %v, metapolicy %v", i, self, p, want)
				}
			}
			spread = max(spread, math.Abs(p[0]-got.Results[0].Agents[0].Probs[metapolicy.Persist]))
		}
	}
	if spread < 1e-3 {
		t.Error("every agent gets the same probabilities: the network does not see its input")
	}
	nine := randomDeliberation(rng, 0)
	for len(nine.Agents) < 9 {
		nine.Agents = append(nine.Agents, nine.Agents[0])
	}
	body, _ := json.Marshal(DecideRequest{Deliberation: nine})
	r, err := http.Post(hs+"/v1/decide", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var msg bytes.Buffer
	msg.ReadFrom(r.Body)
	r.Body.Close()
	if r.StatusCode != http.StatusBadRequest || !strings.Contains(msg.String(), "holds at most 8") {
		t.Errorf("a team of 9: %d %s", r.StatusCode, msg.String())
	}
}
