package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// splitStream is the second PCG word of Split's generator, so that a split
// seed does not reproduce the stream of an episode seeded alike.
const splitStream = 0x73706c6974 // "split"

// Split divides the indices 0..n−1 into train and held-out sets with
// round(heldOut·n) held out, drawn by a seeded shuffle. Both are ascending;
// the same n, fraction and seed always give the same split. heldOut must be
// in [0, 1]; a fraction strictly between 0 and 1 leaves each side at least
// one index when n ≥ 2.
func Split(n int, heldOut float64, seed uint64) (train, test []int, err error) {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprint(i)
	}
	return SplitKeys(keys, heldOut, seed)
}

// SplitKeys splits indices of keys by key: all indices with the same key
// land on the same side, and the fraction counts distinct keys (in order of
// first appearance, so the split depends on the keys' order, not on how
// they sort). See Split.
func SplitKeys(keys []string, heldOut float64, seed uint64) (train, test []int, err error) {
	if !(heldOut >= 0 && heldOut <= 1) {
		return nil, nil, fmt.Errorf("replay: held-out fraction %v outside [0, 1]", heldOut)
	}
	var distinct []string
	group := make(map[string]int, len(keys))
	for _, k := range keys {
		if _, ok := group[k]; !ok {
			group[k] = len(distinct)
			distinct = append(distinct, k)
		}
	}
	m := len(distinct)
	nTest := int(math.Round(heldOut * float64(m)))
	if heldOut > 0 && heldOut < 1 && m >= 2 {
		nTest = min(max(nTest, 1), m-1)
	}
	perm := rand.New(rand.NewPCG(seed, splitStream)).Perm(m)
	held := make([]bool, m)
	for _, g := range perm[:nTest] {
		held[g] = true
	}
	for i, k := range keys {
		if held[group[k]] {
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	return train, test, nil
}

// Split divides the Env's tasks by question ID (transcript.Question.ID), so
// that a question debated in several files — other models, other team
// sizes — is never on both sides. See SplitKeys.
func (e *Env) Split(heldOut float64, seed uint64) (train, test []int, err error) {
	keys := make([]string, len(e.qs))
	for i := range e.qs {
		keys[i] = e.qs[i].ID
	}
	return SplitKeys(keys, heldOut, seed)
}
