package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// testNet is a random 26→32→32→3 tanh network (mpdf-features/v1); seed
// picks the weights.
func testNet(t testing.TB, seed uint64) *nn.MLP[float32] {
	return testNetOf(t, metapolicy.FeatureWidth, seed)
}

// testNetOf is a random in→32→32→3 tanh network; seed picks the weights.
func testNetOf(t testing.TB, in int, seed uint64) *nn.MLP[float32] {
	t.Helper()
	net, err := nn.NewMLP[float32]([]int{in, 32, 32, metapolicy.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	net.Init(seed)
	// Init's weights give nearly uniform probabilities; scale them up so
	// that decisions depend on the features.
	for i := range net.Params {
		net.Params[i] *= 4
	}
	return net
}

// writeCheckpoint saves a policy checkpoint at step step into dir.
func writeCheckpoint(t testing.TB, path string, seed uint64, step int64) {
	t.Helper()
	ck := &checkpoints.Checkpoint{
		Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersion, Step: step, Seed: seed,
			Train: json.RawMessage(`{"lr":0.001,"iterations":40}`), Metrics: map[string]float64{"reward": 0.5}},
		Policy: testNet(t, seed),
	}
	if err := checkpoints.Save(path, ck); err != nil {
		t.Fatal(err)
	}
}

// newTestServer serves a fresh checkpoint under httptest; cfg may adjust
// the limits.
func newTestServer(t testing.TB, cfg Config) (*Server, *httptest.Server, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "best.mpdf")
	writeCheckpoint(t, path, 1, 100)
	cfg.PolicyPath = path
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	return s, hs, path
}

// post sends body to url and returns the status and the body.
func post(t testing.TB, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// randomDeliberation draws a deliberation with every kind of state the
// featurizer distinguishes: missing answers and confidences, ties of votes
// and of confidence, profiles or none.
func randomDeliberation(rng *rand.Rand, id int) Deliberation {
	n := 2 + rng.IntN(6)
	rounds := 1 + rng.IntN(4)
	d := Deliberation{ID: strconv.Itoa(id), Round: 1 + rng.IntN(rounds), Rounds: rounds, Agents: make([]Agent, n)}
	pool := []string{"", "1", "2", "3", "A"}
	for i := range d.Agents {
		a := &d.Agents[i]
		ans := pool[rng.IntN(len(pool))]
		a.Answer = &ans
		switch rng.IntN(4) {
		case 0: // missing
		case 1:
			c := 0.5 // ties
			a.Confidence = &c
		default:
			c := rng.Float64()
			a.Confidence = &c
		}
		if rng.IntN(3) > 0 {
			a.Profile = &Profile{Steps: rng.IntN(20), Tokens: rng.IntN(3000), Hedges: rng.IntN(5)}
			if rng.IntN(2) == 0 {
				c := rng.Float64()
				a.Profile.SelfConfidence = &c
			}
		}
	}
	return d
}

// observation is the metapolicy view of agent self of a request deliberation.
func observation(t testing.TB, d Deliberation, self int) *metapolicy.Observation {
	t.Helper()
	v, ferr := d.check("")
	if ferr != nil {
		t.Fatal(ferr)
	}
	return &metapolicy.Observation{Self: self, Round: v.round, Rounds: v.rounds, Agents: v.agents}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeResp(t testing.TB, b []byte) *DecideResponse {
	t.Helper()
	var r DecideResponse
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("response %s: %v", b, err)
	}
	return &r
}

var _ = fmt.Sprint

// writeTestPolicy writes a checkpoint into a temporary directory.
func writeTestPolicy(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "best.mpdf")
	writeCheckpoint(t, path, 1, 100)
	return path
}

// serveLoopback runs s.Serve on a loopback port; stop cancels it and
// returns Serve's error through the test.
func serveLoopback(t testing.TB, s *Server) (url string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
}
