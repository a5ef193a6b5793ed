package serve

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// TestEncoderMatchesJSON: the hand-written response encoder writes the
// bytes encoding/json writes, for single and batched responses, strings
// that need escapes, and floats of every magnitude.
func TestEncoderMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	strs := []string{"", "42", "A", `quote"s`, `back\slash`, "<b>&amp;</b>", "tab\there", "naïve", "\u2028", "bad\xffutf8", "\x00"}
	floats := []float64{0, 1, -0.5, 1e-7, 1.5e-9, 3e21, 1e20, 0.30000000000000004, -1e-300, math.SmallestNonzeroFloat64, math.MaxFloat64}
	pick := func() float64 {
		if rng.IntN(2) == 0 {
			return floats[rng.IntN(len(floats))]
		}
		return math.Exp(-rng.Float64() * 40)
	}
	for trial := range 300 {
		step, seed := rng.Int64N(1e9)-5, rng.Uint64()
		r := &DecideResponse{FeatureVersion: metapolicy.FeatureVersion, Policy: strs[rng.IntN(len(strs))], Mode: "greedy"}
		if rng.IntN(2) == 0 {
			r.Step = &step
		}
		if rng.IntN(2) == 0 {
			r.Mode, r.Seed = "sample", &seed
		}
		mk := func() Result {
			res := Result{ID: strs[rng.IntN(len(strs))], TeamAnswer: strs[rng.IntN(len(strs))]}
			if rng.IntN(10) > 0 {
				res.Agents = []Decision{}
			}
			for range rng.IntN(4) {
				res.Agents = append(res.Agents, Decision{Action: metapolicy.Action(rng.IntN(3)),
					Probs:   Probs{Persist: pick(), Refine: pick(), Concede: pick()},
					LogProb: -pick(), Answer: strs[rng.IntN(len(strs))], ConcedeTarget: strs[rng.IntN(len(strs))]})
			}
			return res
		}
		if trial%2 == 0 {
			res := mk()
			r.Result = &res
		} else {
			for range rng.IntN(3) {
				r.Results = append(r.Results, mk())
			}
		}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendResponse(nil, r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("trial %d:\nhand-written %s\nencoding/json %s", trial, got, want)
		}
	}
	bad := &DecideResponse{Result: &Result{Agents: []Decision{{LogProb: math.Inf(-1)}}}}
	if _, err := appendResponse(nil, bad, nil); err == nil {
		t.Error("an infinite log-probability was encoded")
	}
}
