package serve_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/serve"
)

// A Server is an http.Handler: mount it (here under httptest) and POST a
// deliberation's state to /v1/decide; each agent gets persist, refine or
// concede. mpdf serve runs the same handler on a policy file
// (Config.PolicyPath); this one serves a network built in memory.
func ExampleServer() {
	net, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 16, metapolicy.NumActions}, nn.Tanh)
	if err != nil {
		panic(err)
	}
	net.Init(1)
	policy, err := serve.NewPolicy("example", net)
	if err != nil {
		panic(err)
	}
	s, err := serve.New(serve.Config{})
	if err != nil {
		panic(err)
	}
	s.SetPolicy(policy)
	ts := httptest.NewServer(s)
	defer ts.Close()

	body := `{"round": 1, "rounds": 3, "agents": [
		{"answer": "42", "confidence": 0.9},
		{"answer": "42", "confidence": 0.6},
		{"answer": "17", "confidence": 0.3}]}`
	resp, err := http.Post(ts.URL+"/v1/decide", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var out serve.DecideResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		panic(err)
	}
	fmt.Println(resp.Status, out.FeatureVersion, out.Mode, "team answer", out.TeamAnswer)
	for i, a := range out.Agents {
		fmt.Printf("agent %d: %v (π = %.3f %.3f %.3f), concede target %q\n",
			i, a.Action, a.Probs[metapolicy.Persist], a.Probs[metapolicy.Refine], a.Probs[metapolicy.Concede], a.ConcedeTarget)
	}
	// Output:
	// 200 OK mpdf-features/v1 greedy team answer 42
	// agent 0: refine (π = 0.295 0.456 0.249), concede target "42"
	// agent 1: refine (π = 0.295 0.457 0.248), concede target "42"
	// agent 2: refine (π = 0.262 0.476 0.262), concede target "42"
}
