package replay

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		n        int
		heldOut  float64
		wantTest int
	}{{10, 0.3, 3}, {10, 0, 0}, {10, 1, 10}, {2, 0.01, 1}, {2, 0.99, 1}, {1, 0.5, 1}, {0, 0.5, 0}, {7, 0.5, 4}} {
		train, test, err := Split(c.n, c.heldOut, 42)
		if err != nil {
			t.Fatal(err)
		}
		if len(test) != c.wantTest || len(train)+len(test) != c.n {
			t.Errorf("Split(%d, %v): %d train, %d test, want %d test", c.n, c.heldOut, len(train), len(test), c.wantTest)
		}
		all := append(slices.Clone(train), test...)
		slices.Sort(all)
		for i, v := range all {
			if v != i {
				t.Fatalf("Split(%d, %v): not a partition of 0..n−1: %v / %v", c.n, c.heldOut, train, test)
			}
		}
		if !slices.IsSorted(train) || !slices.IsSorted(test) {
			t.Errorf("not ascending: %v / %v", train, test)
		}
	}
	a1, b1, _ := Split(100, 0.2, 1)
	a2, b2, _ := Split(100, 0.2, 1)
	_, b3, _ := Split(100, 0.2, 2)
	if !slices.Equal(a1, a2) || !slices.Equal(b1, b2) {
		t.Error("same seed, different split")
	}
	if slices.Equal(b1, b3) {
		t.Error("seeds 1 and 2 give the same held-out set")
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		if _, _, err := Split(10, bad, 1); err == nil {
			t.Errorf("held-out %v accepted", bad)
		}
	}
}

// TestSplitKeys: indices sharing a key stay together, and the fraction
// counts distinct keys.
func TestSplitKeys(t *testing.T) {
	var keys []string
	for i := range 60 {
		keys = append(keys, fmt.Sprint("q", i%20)) // 20 questions, 3 copies each
	}
	for seed := range uint64(10) {
		train, test, err := SplitKeys(keys, 0.25, seed)
		if err != nil {
			t.Fatal(err)
		}
		side := map[string]string{}
		for _, i := range train {
			side[keys[i]] = "train"
		}
		for _, i := range test {
			if side[keys[i]] == "train" {
				t.Fatalf("seed %d: %s on both sides", seed, keys[i])
			}
		}
		if len(test) != 15 { // 5 of 20 questions × 3
			t.Errorf("seed %d: %d held out, want 15", seed, len(test))
		}
	}
}

// TestEnvSplit: the same question in two files (two team sizes) has one ID
// and so one side.
func TestEnvSplit(t *testing.T) {
	qs := questions(t, tiny, "gsm_a_agents3.json")
	qs = append(qs, questions(t, tiny, "gsm_b_agents3.json")...)
	e, err := New(qs)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != "replay:gsm_a_agents3.json,gsm_b_agents3.json" {
		t.Errorf("name %q", e.Name())
	}
	train, test, err := e.Split(0.5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 2 || len(test) != 2 {
		t.Fatalf("split %v / %v, want 2 / 2", train, test)
	}
	if e.Question(test[0]).ID != e.Question(test[1]).ID {
		t.Errorf("held-out tasks %v are different questions", test)
	}
}
