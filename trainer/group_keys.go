package trainer

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// keyTable numbers the distinct group keys of a batch in order of first
// appearance: an open-addressing table of their indices, reused across
// batches. Per new key it hashes once and probes once; a Go map took a
// lookup and an insert, a third of grouping.build's time. The seed is
// random, as a map's, so crafted keys cannot force long probe runs.
type keyTable struct {
	seed  maphash.Seed
	s0    uint64 // seeds of the short keys' hash
	s1    uint64
	slots []int32  // 1 + key index; 0 empty; a power of two, at most half full
	keys  []string // index → key
	hash  []uint64 // index → hash, to grow without hashing again
}

// reset empties the table, keeping room for the last batch's keys (but not
// for a much larger batch's before it: every reset clears the slots).
func (t *keyTable) reset() {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
		t.s0, t.s1 = rand.Uint64(), rand.Uint64()
	}
	if n := len(t.slots); n < 16 || n > 16 && n > 8*len(t.keys) {
		m := 16
		for m < 4*len(t.keys) {
			m *= 2
		}
		t.slots = make([]int32, m)
	}
	clear(t.slots)
	t.keys, t.hash = t.keys[:0], t.hash[:0]
}

// index returns k's index, adding k when new (found false).
func (t *keyTable) index(k string) (id int32, found bool) {
	h := t.hashOf(k)
	mask := uint64(len(t.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s == 0 {
			id = int32(len(t.keys))
			t.slots[j] = id + 1
			t.keys, t.hash = append(t.keys, k), append(t.hash, h)
			if 2*len(t.keys) > len(t.slots) {
				t.grow()
			}
			return id, false
		}
		if t.hash[s-1] == h && t.keys[s-1] == k {
			return s - 1, true
		}
	}
}

// hashOf hashes a key of 4 to 16 bytes from its two words (runKey's) with
// wyhash's mix, a 64×64→128-bit product of the seeded words folded; others
// with maphash. maphash's calls were half of the table's time.
func (t *keyTable) hashOf(k string) uint64 {
	if len(k) < 4 || len(k) > 16 {
		return maphash.String(t.seed, k)
	}
	lo, hi := keyWords(k)
	p1, p0 := bits.Mul64(lo^t.s0, hi^t.s1^uint64(len(k)))
	return p1 ^ p0
}

// grow doubles the slots and places every key again.
func (t *keyTable) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for i, h := range t.hash {
		j := h & mask
		for t.slots[j] != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = int32(i) + 1
	}
}

// runKey is the key of the current run of rows, held so that comparing a
// row's key with it takes no call (same is inlined, cost 80 of 80): for 4
// to 16 bytes, its first and last words (which may overlap), loaded once a
// run. A call a row, with the spills around it, was half of a step's
// grouping.
type runKey struct {
	s      string
	lo, hi uint64
	words  bool
}

func (r *runKey) set(k string) {
	r.s = k
	r.words = len(k) >= 4 && len(k) <= 16
	if r.words {
		r.lo, r.hi = keyWords(k)
	}
}

// same is k == r.s.
func (r *runKey) same(k string) bool {
	if len(k) != len(r.s) {
		return false
	}
	if !r.words {
		return k == r.s
	}
	lo, hi := keyWords(k)
	return lo == r.lo && hi == r.hi
}

// keyWords returns the first and last 8 bytes of k, 8 ≤ len(k) ≤ 16, or
// its first and last 4, 4 ≤ len(k) < 8.
func keyWords(k string) (lo, hi uint64) {
	n := len(k)
	x := unsafe.Slice(unsafe.StringData(k), n)
	if n >= 8 {
		return binary.LittleEndian.Uint64(x), binary.LittleEndian.Uint64(x[n-8:])
	}
	return uint64(binary.LittleEndian.Uint32(x)), uint64(binary.LittleEndian.Uint32(x[n-4:]))
}
