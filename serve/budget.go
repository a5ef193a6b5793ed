package serve

// Memory: a decide request is measured by that same walk before it is
// decoded, and its estimated memory (budget.go: per body byte, per JSON
// value, per byte of agents' text, factors measured on the worst shapes by
// TestRequestCostBounds) is reserved from Config.MaxMemory for as long as
// its work runs; 503 with Retry-After when the requests in flight leave too
// little, 413 when it alone could not fit. Responses are streamed as they
// are encoded and bounded by MaxResponseBytes (413 beyond: long answers are
// repeated as concede targets). TestServeMemoryBudget sends 16 of each
// worst shape at once to a server process and checks that each gets a
// status and the peak RSS stays under the budget. An idle server gives a
// burst's memory back to the system.

import (
	"runtime/debug"
	"sync"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// The memory budget (Config.MaxMemory). A decide request's memory is
// estimated from its body before its work starts, reserved out of the
// budget for as long as the request runs, and released at its end; a
// request whose estimate does not fit in what the others leave gets 503
// with Retry-After, one that alone would not fit 413. The estimate is an
// upper bound, measured on the worst shapes (TestRequestCostBounds; the
// figures in the comments are from it), so that the heap of the requests in
// flight stays within the budget whatever they hold, and the garbage
// collector's soft limit (TuneRuntime) keeps their garbage from piling up
// past it (TestServeMemoryBudget checks the process's peak RSS).
const (
	// defaultMaxMemory suits a small container (512 MiB): the server's own
	// ~20 MiB, and room for 2 requests of the worst 1 MiB body at once
	// (~150 MiB each), or hundreds of ordinary ones.
	defaultMaxMemory = 512 << 20
	// minMemory is the least budget a server is configured with.
	minMemory = 128 << 20
	// baseMemory is held back from the budget for the server itself: the
	// runtime, the policy, the pools (its connections are counted apart,
	// conns.go).
	baseMemory = 48 << 20
	// Per request: a fixed part (pools, net/http's request, the goroutine)
	// and per body byte (the body, its one string copy, the response's
	// buffer and the strings the response repeats).
	costBase    = 64 << 10
	costPerByte = 24
	// Per JSON value of the body (Stats.Values): a {} agent is one value
	// of 3 bytes and costs an Agent, an AgentState, a feature row, logits
	// and a Decision, with the garbage the pools do not keep. The most
	// agents a body holds (4096 teams of 64 {}, ~278 k values) raised the
	// peak RSS by 126-133 MiB over 16 runs on one host (2026-12-02; 423 B
	// a value at the top), past the 127 MiB that 400 B a value gave: 480
	// estimates 148 MiB.
	costPerValue = 480
	// Per byte of agents' text, read by the answer reader (answer.Read),
	// and with the critic: both run in linear time and memory under
	// answer's caps; TestRequestCostBounds measures five hostile 1 MiB
	// shapes at 4-14 bytes per body byte, with or without the critic.
	costPerTextByte       = 16
	costPerTextByteCritic = 32
)

// bodyCost is what a body of n bytes costs before its shape is known: the
// buffer it is read into, and the fast path's decoding (an Agent of 40
// bytes for each "{}," of 3 in arena chunks that double: TestBodyCost).
func bodyCost(n int64) int64 { return costBase + 32*n }

// requestCost is the estimated peak memory of a request whose body of n
// bytes measured st.
func requestCost(n int, st jsonscan.Stats, critic bool) int64 {
	perText := int64(costPerTextByte)
	if critic {
		perText = costPerTextByteCritic
	}
	return costBase + costPerByte*int64(n) + costPerValue*int64(st.Values) + perText*int64(st.MeasuredBytes)
}

// gcLimit is the garbage collector's soft limit for a budget: below it,
// so that the process's resident memory stays under the budget.
func gcLimit(maxMemory int64) int64 { return maxMemory - maxMemory/8 }

// admitPool is the part of a budget requests may reserve: what the server
// holds back, its connections (maxConns at connCost each, conns.go), and
// room for the garbage between collections, left out.
func admitPool(maxMemory int64, maxConns int) int64 {
	return maxMemory*3/4 - baseMemory - int64(maxConns)*connCost
}

// budget counts the memory reserved by the requests in flight.
type budget struct {
	mu    sync.Mutex
	used  int64
	pool  int64
	gauge interface{ Set(float64) } // the metric of used
	// peak is the most reserved since the memory was last given back to
	// the system; freeing is set while that runs.
	peak    int64
	freeing bool
}

// freeAfter is the reservation peak past which an idle server gives its
// memory back to the system at once (debug.FreeOSMemory) rather than over
// minutes (the runtime's scavenger): a burst of large requests otherwise
// leaves the process at its peak long after it has passed.
const freeAfter = 64 << 20

// grow raises a reservation *held to n bytes, if the budget has room, and
// reports whether it did; a reservation never shrinks before release.
func (b *budget) grow(held *int64, n int64) bool {
	if n <= *held {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n-*held > b.pool {
		return false
	}
	b.used += n - *held
	*held = n
	b.peak = max(b.peak, b.used)
	b.gauge.Set(float64(b.used))
	return true
}

// release gives back a reservation.
func (b *budget) release(held *int64) {
	if *held == 0 {
		return
	}
	b.mu.Lock()
	b.used -= *held
	b.gauge.Set(float64(b.used))
	free := b.used == 0 && b.peak >= freeAfter && !b.freeing
	if free {
		b.peak, b.freeing = 0, true
	}
	b.mu.Unlock()
	*held = 0
	if free {
		go func() {
			debug.FreeOSMemory()
			b.mu.Lock()
			b.freeing = false
			b.mu.Unlock()
		}()
	}
}

// MaxResponseBytes bounds a decide response: a request whose response
// could be longer gets 413. Long answers make long responses, since each
// is repeated as its peers' concede target and as the team answer (a
// 1 MiB answer among 64 agents would be 400 MiB of JSON); the largest
// batch of short answers (4096 × 64 agents) is ~50 MiB.
const MaxResponseBytes = 64 << 20

// responseBound is an upper bound on the size of the response to ds: a
// decision's fixed part, and every string at 6 bytes a byte (the longest
// JSON escape).
func responseBound(ds []delib) int64 {
	const perDecision = 200 // {"action":"concede","probs":{...},"log_prob":...,"answer":"","concede_target":""}
	n := int64(1 << 10)
	for i := range ds {
		d := &ds[i]
		longest := 0
		for _, a := range d.agents {
			longest = max(longest, len(a.Answer))
			n += perDecision + 6*int64(len(a.Answer))
		}
		// The team answer and each concede target are answers of the team.
		n += 64 + 6*int64(len(d.id)) + 6*int64(longest)*int64(len(d.agents)+1)
	}
	return n
}
