package serve

import (
	"sync"
	"time"

	"github.com/mpdf/mpdf/metapolicy"
)

// An arena holds everything one decide request served over HTTP is decoded
// into and decided with: the request, the values its fields point to, the
// validated deliberations and the response. Arenas are pooled, so that a
// request of a size seen before allocates almost nothing of its own; what
// the handler and its pool did allocate was most of the garbage a request
// left behind, beside net/http's (BenchmarkHandlerSingle). Nothing in an
// arena may outlive its request: Policy.Decide, whose response the caller
// keeps, decodes and decides without one.
type arena struct {
	req DecideRequest
	// Values the request's fields point to, and the arrays of its
	// deliberations, in chunks that are never moved.
	strs     slab[string]
	floats   slab[float64]
	ints     slab[int]
	profiles slab[Profile]
	agents   slab[Agent]
	rows     slab[[]string] // history rows
	// Arrays being parsed, before they are copied into a slab: agents and
	// history rows and cells do not nest in themselves.
	agentTmp []Agent
	rowTmp   [][]string
	cellTmp  []string
	delibs   []Deliberation // the request's batch: one per request
	// Validation and decisions.
	checked   []delib
	states    slab[metapolicy.AgentState]
	resp      DecideResponse
	results   []Result
	decisions []Decision
	// The handler's wait for the work (decideJob): reused, as the arena.
	done  chan struct{}
	timer *time.Timer
	job   decideJob
}

var arenaPool = sync.Pool{New: func() any { return new(arena) }}

// maxPooledArena bounds the values a pooled arena keeps (of each slab, and
// the delibs, results and decisions): the arena of a huge batch is dropped.
const maxPooledArena = 1 << 14

// put clears a and returns it to the pool, keeping its memory but none of
// the request's strings.
func (a *arena) put() {
	if cap(a.delibs) > maxPooledArena || cap(a.decisions) > maxPooledArena || a.states.big() || a.agents.big() || a.strs.big() {
		return
	}
	a.req = DecideRequest{}
	a.strs.reset()
	a.floats.reset()
	a.ints.reset()
	a.profiles.reset()
	a.agents.reset()
	a.rows.reset()
	a.states.reset()
	clear(a.agentTmp[:cap(a.agentTmp)])
	clear(a.rowTmp[:cap(a.rowTmp)])
	clear(a.cellTmp[:cap(a.cellTmp)])
	clear(a.delibs[:cap(a.delibs)])
	clear(a.checked[:cap(a.checked)])
	a.resp = DecideResponse{}
	clear(a.results[:cap(a.results)])
	clear(a.decisions[:cap(a.decisions)])
	arenaPool.Put(a)
}

// slab hands out values from a chunk that is never reallocated, so that
// pointers into it stay valid; a full chunk is left to the values already
// handed out (and the garbage collector) and a larger one started.
type slab[T any] struct{ buf []T }

// one returns a pointer to a copy of v.
func (s *slab[T]) one(v T) *T {
	if len(s.buf) == cap(s.buf) {
		s.grow(1)
	}
	s.buf = append(s.buf, v)
	return &s.buf[len(s.buf)-1]
}

// copyOf returns a copy of vs, non-nil even when vs is empty.
func (s *slab[T]) copyOf(vs []T) []T {
	n := len(vs)
	if n == 0 {
		return []T{}
	}
	if cap(s.buf)-len(s.buf) < n {
		s.grow(n)
	}
	out := s.buf[len(s.buf) : len(s.buf)+n : len(s.buf)+n]
	copy(out, vs)
	s.buf = s.buf[:len(s.buf)+n]
	return out
}

// take returns n zero values.
func (s *slab[T]) take(n int) []T {
	if cap(s.buf)-len(s.buf) < n {
		s.grow(n)
	}
	out := s.buf[len(s.buf) : len(s.buf)+n : len(s.buf)+n]
	s.buf = s.buf[:len(s.buf)+n]
	return out
}

func (s *slab[T]) grow(n int) { s.buf = make([]T, 0, max(32, 2*cap(s.buf), n)) }

func (s *slab[T]) reset() {
	clear(s.buf)
	s.buf = s.buf[:0]
}

func (s *slab[T]) big() bool { return cap(s.buf) > maxPooledArena }
