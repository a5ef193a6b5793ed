package metapolicy

import (
	"encoding/json"
	"testing"
)

// TestByNameWritesTheStructsBytes holds ByName to the bytes a struct with
// one field per action wrote (serve's Probs and env's ActionShares were
// such structs), indented too, and reads them back, keys in any case.
func TestByNameWritesTheStructsBytes(t *testing.T) {
	type fields struct {
		Persist float64 `json:"persist"`
		Refine  float64 `json:"refine"`
		Concede float64 `json:"concede"`
	}
	for _, v := range [][NumActions]float64{{0, 0, 0}, {1, 0, 0}, {0.1, 1e-7, 1e21}, {1.0 / 3, 2.0 / 3, -1e-300}} {
		want, _ := json.MarshalIndent(struct{ P fields }{fields{v[0], v[1], v[2]}}, "", "  ")
		got, err := json.MarshalIndent(struct{ P ByName[float64] }{v}, "", "  ")
		if err != nil || string(got) != string(want) {
			t.Fatalf("%v: got %s, %v; want %s", v, got, err, want)
		}
		var back struct{ P ByName[float64] }
		if err := json.Unmarshal(got, &back); err != nil || back.P != v {
			t.Fatalf("%s: read back %v, %v; want %v", got, back, err, v)
		}
	}
	var v ByName[float64]
	if err := json.Unmarshal([]byte(`{"Refine": 0.5, "concede": 0.25, "other": 1}`), &v); err != nil || v != (ByName[float64]{0, 0.5, 0.25}) {
		t.Fatalf("case-folded keys: %v, %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"persist": "x"}`), &v); err == nil {
		t.Fatal("a string for persist was read")
	}
}
