package trainer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeyTableMatchesMap numbers keys as a map in order of first appearance
// does, across resets of batches of very different sizes (growth and
// shrinking), with keys that share prefixes and suffixes.
func TestKeyTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var kt keyTable
	for batch := range 60 {
		n := 1 + rng.IntN(3000>>(batch%5*2))
		distinct := 1 + rng.IntN(n)
		kt.reset()
		want := map[string]int32{}
		for range n {
			k := fmt.Sprintf("task-%d", rng.IntN(distinct))
			if rng.IntN(3) == 0 {
				k = strings.Repeat("x", rng.IntN(20)) + k
			}
			id, found := kt.index(k)
			w, ok := want[k]
			if !ok {
				w = int32(len(want))
				want[k] = w
			}
			if id != w || found != ok {
				t.Fatalf("batch %d: %q: %d %v, want %d %v", batch, k, id, found, w, ok)
			}
		}
		if len(kt.keys) != len(want) || 2*len(kt.keys) > len(kt.slots) {
			t.Fatalf("batch %d: %d keys in %d slots, want %d", batch, len(kt.keys), len(kt.slots), len(want))
		}
		for k, w := range want {
			if kt.keys[w] != k {
				t.Fatalf("batch %d: key %d is %q, want %q", batch, w, kt.keys[w], k)
			}
		}
	}
}

// TestRunKeySame holds runKey.same to ==, for lengths around its two-word
// compare (4 to 16 bytes) and strings that differ in one byte anywhere.
func TestRunKeySame(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 20000 {
		n := rng.IntN(22)
		a := make([]byte, n)
		for i := range a {
			a[i] = byte('a' + rng.IntN(3))
		}
		b := append([]byte(nil), a...)
		switch rng.IntN(4) {
		case 0:
			if n > 0 {
				b[rng.IntN(n)] ^= 1 << rng.IntN(8)
			}
		case 1:
			b = append(b, 'a')
		}
		x, y := string(a), string(b)
		var r runKey
		r.set(x)
		if r.same(y) != (x == y) || !r.same(x) || !r.same(string(a)) {
			t.Fatalf("%q: same(%q) = %v", x, y, r.same(y))
		}
	}
}
