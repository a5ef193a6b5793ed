package serve

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
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
					Probs:   Probs{pick(), pick(), pick()},
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

// TestAppendStringMatchesJSON: the hand-written string escape writes what
// encoding/json writes, for every byte, the runes it treats apart, and
// random strings of them.
func TestAppendStringMatchesJSON(t *testing.T) {
	var cases []string
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"z")
	}
	cases = append(cases, "\u2028", "\u2029", "\u2027", "λ", "😀", "\xe2\x80", "\xed\xa0\x80", "\uFFFD")
	rng := rand.New(rand.NewPCG(3, 3))
	for range 2000 {
		var b []byte
		for range rng.IntN(12) {
			b = append(b, cases[rng.IntN(len(cases))]...)
		}
		cases = append(cases, string(b))
	}
	long := strings.Repeat("<λ\xff\"a", 40_000) // flushed in pieces
	for _, s := range append(cases, long) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
		var out []byte
		most := 0
		flush := func(b []byte) []byte {
			out = append(out, b...)
			most = max(most, len(b))
			return b[:0]
		}
		out = append(out, flush(appendStringFlush(nil, s, flush))...)
		if !bytes.Equal(out, want) || most > flushSize+6 {
			t.Fatalf("appendStringFlush(%q) = %s (%d bytes at most held), encoding/json %s", s, out, most, want)
		}
	}
}
