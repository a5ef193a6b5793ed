package serve

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mpdf/mpdf/metapolicy"
)

// slowDecode is the reference: encoding/json, as decodeJSON runs it.
func slowDecode(b []byte) (*DecideRequest, bool) {
	var r DecideRequest
	return &r, decodeJSON(b, &r) == nil
}

// checkFast fails when fastDecode accepts b but encoding/json rejects it or
// decodes something else. It reports whether the fast path accepted.
func checkFast(t *testing.T, b []byte) bool {
	t.Helper()
	var fast DecideRequest
	if !fastDecode(b, &fast) {
		return false
	}
	slow, ok := slowDecode(b)
	if !ok {
		t.Fatalf("fast path accepted what encoding/json rejects: %s", b)
	}
	if d := cmp.Diff(slow, &fast); d != "" {
		t.Fatalf("%s\n(-encoding/json +fast path):\n%s", b, d)
	}
	return true
}

// TestFastDecodeMatchesJSON: on the requests clients send, the fast path
// is taken and decodes what encoding/json decodes; on the forms it leaves
// to encoding/json (escapes, case-folded or repeated keys, nulls, numbers
// JSON forbids) it declines or agrees.
func TestFastDecodeMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := range 300 {
		var req DecideRequest
		// Every other deliberation has a history (what a v2 policy reads).
		if trial%2 == 0 {
			req.Deliberation = maybeHistory(rng, randomDeliberation(rng, trial))
		} else {
			for i := range 1 + rng.IntN(5) {
				req.Deliberations = append(req.Deliberations, maybeHistory(rng, randomDeliberation(rng, i)))
			}
		}
		if rng.IntN(2) == 0 {
			seed := rng.Uint64()
			req.Mode, req.Seed = "sample", &seed
		}
		b, err := json.Marshal(&req)
		if err != nil {
			t.Fatal(err)
		}
		if !checkFast(t, b) {
			t.Fatalf("fast path declined a plain request: %s", b)
		}
		var ind bytes.Buffer
		json.Indent(&ind, b, "", " \t")
		if !checkFast(t, ind.Bytes()) {
			t.Fatalf("fast path declined an indented request: %s", ind.Bytes())
		}
	}
	base := `{"round":1,"rounds":2,"agents":[{"answer":"1","confidence":0.5},{"answer":"2"}]}`
	if !checkFast(t, []byte(base)) {
		t.Fatal("declined the base request")
	}
	for _, v := range []string{
		strings.Replace(base, `"answer":"1"`, `"answer":"1","answer":"3"`, 1),
		strings.Replace(base, `"round":1`, `"Round":1`, 1),
		strings.Replace(base, `"round":1`, `"round":null`, 1),
		strings.Replace(base, `"answer":"1"`, `"answer":null`, 1),
		strings.Replace(base, `0.5`, `null`, 1),
		strings.Replace(base, `0.5`, `5e-1`, 1),
		strings.Replace(base, `0.5`, `0.5E+0`, 1),
		strings.Replace(base, `0.5`, `.5`, 1),
		strings.Replace(base, `0.5`, `00.5`, 1),
		strings.Replace(base, `0.5`, `-0`, 1),
		strings.Replace(base, `0.5`, `+0.5`, 1),
		strings.Replace(base, `0.5`, `1.`, 1),
		strings.Replace(base, `0.5`, `1e999`, 1),
		strings.Replace(base, `"round":1`, `"round":1.0`, 1),
		strings.Replace(base, `"round":1`, `"round":1e0`, 1),
		strings.Replace(base, `"round":1`, `"round":-0`, 1),
		strings.Replace(base, `"round":1`, `"round":99999999999999999999`, 1),
		strings.Replace(base, `"answer":"1"`, `"answer":"a\"b"`, 1),
		strings.Replace(base, `"answer":"1"`, `"answer":"naïve"`, 1),
		strings.Replace(base, `"answer":"1"`, "\"answer\":\"bad\xff\"", 1),
		strings.Replace(base, `"answer":"1"`, "\"answer\":\"tab\there\"", 1),
		strings.Replace(base, `"answer":"1"`, `"answer":"1","profile":{"steps":1},"profile":{"hedges":2}`, 1),
		strings.Replace(base, `"answer":"1"`, `"profile":{"self_confidence":null,"steps":3}`, 1),
		strings.Replace(base, `}]}`, `}],"seed":-1}`, 1),
		strings.Replace(base, `}]}`, `}],"seed":18446744073709551615,"mode":"sample"}`, 1),
		strings.Replace(base, `}]}`, `}],"seed":18446744073709551616}`, 1),
		strings.Replace(base, `}]}`, `}],"deliberations":[]}`, 1),
		strings.Replace(base, `}]}`, `},]}`, 1),
		`{"deliberations":[{"round":1,"rounds":1,"agents":[{},{}]},{"round":1,"round":2}]}`,
		base + ` x`, base + " \n", `[]`, `{}`, ``, `{"agents":null}`, `{"agents":[{"answer":"1"}`,
	} {
		checkFast(t, []byte(v))
	}
	hist := strings.Replace(base, `"round":1`, `"round":2,"history":[["1","3"],["1","2"]]`, 1)
	if !checkFast(t, []byte(hist)) {
		t.Fatal("declined the base request with a history")
	}
	for _, v := range []string{
		strings.Replace(hist, `"history"`, `"History"`, 1),
		strings.Replace(hist, `[["1","3"],["1","2"]]`, `null`, 1),
		strings.Replace(hist, `[["1","3"],["1","2"]]`, `[]`, 1),
		strings.Replace(hist, `[["1","3"],["1","2"]]`, `[[],[]]`, 1),
		strings.Replace(hist, `["1","3"]`, `null`, 1),
		strings.Replace(hist, `"3"`, `null`, 1),
		strings.Replace(hist, `"3"`, `3`, 1),
		strings.Replace(hist, `"3"`, `"\u0033"`, 1),
		strings.Replace(hist, `"3"`, `["3"]`, 1),
		strings.Replace(hist, `["1","3"]`, `"1"`, 1),
		strings.Replace(hist, `[["1","3"],["1","2"]]`, `{}`, 1),
		strings.Replace(hist, `["1","2"]]`, `["1","2"],]`, 1),
		strings.Replace(hist, `"round":2,`, `"round":2,"history":[],`, 1),
		`{"deliberations":[{"round":1,"rounds":1,"agents":[{},{}],"history":[["",""]]}],"history":[["x"]]}`,
	} {
		checkFast(t, []byte(v))
	}
}

// maybeHistory gives d a history half the time.
func maybeHistory(rng *rand.Rand, d Deliberation) Deliberation {
	if rng.IntN(2) == 0 {
		return d
	}
	return withHistory(rng, d)
}

// FuzzFastDecode: whatever the input, the fast path accepts only what
// encoding/json decodes to the same request.
func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"round":1,"rounds":2,"agents":[{"answer":"1","confidence":0.5},{"answer":"2","profile":{"steps":3,"self_confidence":null}}]}`))
	f.Add([]byte(`{"deliberations":[{"id":"x","kind":"gsm","round":1,"rounds":1,"agents":[{"text":"42","completion_tokens":3},{}]}],"mode":"sample","seed":7}`))
	f.Add([]byte(`{"round":2,"rounds":3,"history":[["1",""],["1","2"]],"agents":[{"answer":"1"},{"answer":"2"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFast(t, b)
	})
}

// decideOutcome is what the server answers to body b once decoded by
// decode: the error body of a request it refuses, or the decisions. With an
// arena (the handler's way) the request is decoded, checked and decided in
// it, as the handler does.
func decideOutcome(t *testing.T, p *Policy, b []byte, decode func([]byte, *DecideRequest, *arena) *ErrorBody, a *arena) (*ErrorBody, *DecideResponse) {
	t.Helper()
	req := new(DecideRequest)
	if a != nil {
		req = &a.req
	}
	if eb := decode(b, req, a); eb != nil {
		return eb, nil
	}
	ds, fe := req.checkIn(stopper{}, a, false)
	if fe != nil {
		return &ErrorBody{Kind: "invalid", Error: fe.Error(), Field: fe.field}, nil
	}
	if req.Seed == nil { // else sample mode draws a fresh seed each time
		req.Seed = new(uint64)
	}
	resp, err := p.decide(stopper{}, req, ds, a)
	if err != nil {
		t.Fatalf("%s: decide: %v", b, err)
	}
	return nil, resp
}

// slowOnly decodes as decodeRequest does when the fast path declines:
// the strict check, the protocol limits, then encoding/json.
func slowOnly(b []byte, req *DecideRequest, _ *arena) *ErrorBody {
	if _, eb := checkBody(b); eb != nil {
		return eb
	}
	if fe := scanLimits(b); fe != nil {
		return &ErrorBody{Kind: "invalid", Error: fe.Error(), Field: fe.field}
	}
	return decodeJSON(b, req)
}

// checkPaths fails unless the server answers b the same, error or
// decisions, whether the handler's decoder (the fast path, in a pooled
// arena that served other requests before) or encoding/json decodes it.
func checkPaths(t *testing.T, p *Policy, b []byte) (ok bool) {
	t.Helper()
	a := arenaPool.Get().(*arena)
	defer a.put()
	feb, fresp := decideOutcome(t, p, b, decodeIn, a)
	seb, sresp := decideOutcome(t, p, b, slowOnly, nil)
	if d := cmp.Diff([]any{seb, sresp}, []any{feb, fresp}); d != "" {
		t.Fatalf("%s\n(-encoding/json +fast path):\n%s", b, d)
	}
	return feb == nil
}

// mutate returns b with a few random byte edits that JSON cares about.
func mutate(rng *rand.Rand, b []byte) []byte {
	b = bytes.Clone(b)
	const alphabet = `[]{}",:0123456789.-enul\ hAR`
	for range 1 + rng.IntN(3) {
		i := rng.IntN(len(b) + 1)
		c := alphabet[rng.IntN(len(alphabet))]
		switch rng.IntN(3) {
		case 0:
			if i < len(b) {
				b = append(b[:i], b[i+1:]...)
			}
		case 1:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		default:
			if i < len(b) {
				b[i] = c
			}
		}
	}
	return b
}

// TestDecodePathsAgree: requests with and without a history, valid or
// broken by random edits (bad histories among them: wrong lengths, wrong
// types, a last row that is not the current answers), get the same answer,
// decisions or error naming the same field, through the fast decoder as
// through encoding/json; and the plain ones take the fast path.
func TestDecodePathsAgree(t *testing.T) {
	p, err := NewPolicyVersion("v2", metapolicy.FeatureVersionV2, testNetV2(t, 5))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(12, 12))
	accepted, refused := 0, 0
	for trial := range 2000 {
		var req DecideRequest
		if trial%2 == 0 {
			req.Deliberation = maybeHistory(rng, randomDeliberation(rng, trial))
		} else {
			for i := range 1 + rng.IntN(3) {
				req.Deliberations = append(req.Deliberations, maybeHistory(rng, randomDeliberation(rng, i)))
			}
		}
		b := mustJSON(t, &req)
		var fast DecideRequest
		if !fastDecode(b, &fast) {
			t.Fatalf("fast path declined a plain request: %s", b)
		}
		// The fast path measures a body as the strict walk does (the
		// memory budget's estimate reads either).
		st, _, _ := decodeFast(b, new(DecideRequest), new(arena))
		if want, _ := checkBody(b); st.Values != want.Values || st.MeasuredBytes != want.MeasuredBytes {
			t.Fatalf("%s: fast path measured %+v, the walk %+v", b, st, want)
		}
		if !checkPaths(t, p, b) {
			t.Fatalf("a valid request was refused: %s", b)
		}
		for range 5 {
			if checkPaths(t, p, mutate(rng, b)) {
				accepted++
			} else {
				refused++
			}
		}
	}
	t.Logf("mutated requests: %d decided, %d refused", accepted, refused)
	if accepted < 500 || refused < 5000 {
		t.Errorf("mutations too mild or too harsh: %d decided, %d refused", accepted, refused)
	}
}

// FuzzDecodePaths: whatever the body, the server answers the same through
// either decoder (run with -fuzz FuzzDecodePaths).
func FuzzDecodePaths(f *testing.F) {
	f.Add([]byte(`{"round":2,"rounds":3,"history":[["1",""],["1","2"]],"agents":[{"answer":"1"},{"answer":"2"}]}`))
	f.Add([]byte(`{"deliberations":[{"round":1,"rounds":1,"history":[["1","2"]],"agents":[{"answer":"1","confidence":0.5},{"answer":"2"}]}]}`))
	p, err := NewPolicyVersion("v2", metapolicy.FeatureVersionV2, testNetV2(f, 5))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkPaths(t, p, b)
	})
}
