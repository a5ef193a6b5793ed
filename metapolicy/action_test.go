package metapolicy

import (
	"encoding/json"
	"testing"
)

func TestActionTextRoundTrip(t *testing.T) {
	for _, a := range Actions {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var got Action
		if err := json.Unmarshal(b, &got); err != nil || got != a {
			t.Errorf("%v: round trip via %s gave %v, %v", a, b, got, err)
		}
	}
	if string(must(json.Marshal(Concede))) != `"concede"` {
		t.Errorf("concede marshals as %s", must(json.Marshal(Concede)))
	}
}

func TestActionRejectsUnknown(t *testing.T) {
	var a Action
	for _, s := range []string{`"Persist"`, `"wait"`, `""`, `1`} {
		if err := json.Unmarshal([]byte(s), &a); err == nil {
			t.Errorf("%s: accepted as %v", s, a)
		}
	}
	if _, err := Action(3).MarshalText(); err == nil {
		t.Error("action 3 marshalled")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
