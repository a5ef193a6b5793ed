package serve

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
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
	if !reflect.DeepEqual(&fast, slow) {
		t.Fatalf("%s\nfast %+v\nslow %+v", b, fast, *slow)
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
		if trial%2 == 0 {
			req.Deliberation = randomDeliberation(rng, trial)
		} else {
			for i := range 1 + rng.IntN(5) {
				req.Deliberations = append(req.Deliberations, randomDeliberation(rng, i))
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
}

// FuzzFastDecode: whatever the input, the fast path accepts only what
// encoding/json decodes to the same request.
func FuzzFastDecode(f *testing.F) {
	f.Add([]byte(`{"round":1,"rounds":2,"agents":[{"answer":"1","confidence":0.5},{"answer":"2","profile":{"steps":3,"self_confidence":null}}]}`))
	f.Add([]byte(`{"deliberations":[{"id":"x","kind":"gsm","round":1,"rounds":1,"agents":[{"text":"42","completion_tokens":3},{}]}],"mode":"sample","seed":7}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFast(t, b)
	})
}
