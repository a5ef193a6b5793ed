package nn

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// runner is what a pool runs: block blk of the current job.
type runner interface{ runBlock(blk int) }

// pool is a fixed set of helper goroutines started once; the caller's
// goroutine works beside them. A job is a number of blocks, which the
// goroutines taking part claim one at a time from a shared counter until
// none is left: the caller runs every block nobody else has claimed, so it
// never waits for a helper that has not started yet, only for blocks a
// helper is running. Which goroutine runs a block changes no result: each
// block has its own buffers, and the caller combines them in block order.
//
// A helper that finishes a job watches for the next one for spinFor before
// it sleeps on its channel: a step of a few hundred rows lasts about
// 100 µs, and waking a sleeping thread (on a virtual machine, an idle vCPU)
// costs a good part of that; the caller waits for the blocks in progress
// the same way. Waiting goroutines yield (runtime.Gosched), so that the
// goroutines they wait for run even on fewer Ps than goroutines. Neither
// wakes nor waits allocate.
type pool struct {
	r    runner
	wake []chan struct{} // wake[i]: helper i+1's, a token when it sleeps
	// sleeping[i]: helper i+1 sleeps (or is about to) on wake[i].
	sleeping []atomic.Bool
	// claim is the current job and its next block: generation, goroutines
	// taking part, blocks and next block, 16 bits each (newWorkspace keeps
	// threads below 1<<15). A helper claims a block by a compare-and-swap
	// of the whole word, so it never takes a block of a job it did not see.
	claim   atomic.Uint64
	done    atomic.Int64 // blocks of the current job finished
	gen     uint64       // the caller's: the current job's generation
	stopped atomic.Bool
	once    sync.Once
}

// spinFor is how long a helper watches for the next job before it sleeps.
const spinFor = 100 * time.Microsecond

func startPool(n int, r runner) *pool {
	p := &pool{r: r, wake: make([]chan struct{}, n-1), sleeping: make([]atomic.Bool, n-1)}
	for i := range p.wake {
		p.wake[i] = make(chan struct{}, 1)
		go p.loop(i + 1)
	}
	return p
}

func claimWord(gen uint64, goroutines, blocks, next int) uint64 {
	return gen&0xffff<<48 | uint64(goroutines)<<32 | uint64(blocks)<<16 | uint64(next)
}

// next claims the next block of job word c's generation; ok is false when
// none is left or another job has begun.
func (p *pool) next(gen uint64) (blk int, ok bool) {
	for {
		c := p.claim.Load()
		blocks, n := int(c>>16&0xffff), int(c&0xffff)
		if c>>48 != gen&0xffff || n >= blocks {
			return 0, false
		}
		if p.claim.CompareAndSwap(c, c+1) {
			return n, true
		}
	}
}

// work runs blocks of job gen until none is left.
func (p *pool) work(gen uint64) {
	for {
		blk, ok := p.next(gen)
		if !ok {
			return
		}
		p.r.runBlock(blk)
		p.done.Add(1)
	}
}

func (p *pool) loop(id int) {
	var seen uint64 // the generation of the last job this helper saw
	t0 := time.Now()
	for i := 0; ; i++ {
		c := p.claim.Load()
		if g := c >> 48; g != seen {
			seen = g
			if id < int(c>>32&0xffff) {
				p.work(g)
			}
			t0, i = time.Now(), 0
			continue
		}
		if p.stopped.Load() {
			return
		}
		if i&63 == 63 && time.Since(t0) > spinFor {
			p.sleeping[id-1].Store(true)
			if p.claim.Load()>>48 == seen { // no job since: sleep
				if _, ok := <-p.wake[id-1]; !ok {
					return
				}
			}
			p.sleeping[id-1].Store(false)
			t0, i = time.Now(), 0
			continue
		}
		runtime.Gosched()
	}
}

// run runs blocks blocks of the current job on up to goroutines goroutines,
// the caller's among them, and returns when all of them are done.
func (p *pool) run(blocks, goroutines int) {
	goroutines = min(goroutines, len(p.wake)+1, blocks)
	if goroutines <= 1 {
		for blk := range blocks {
			p.r.runBlock(blk)
		}
		return
	}
	p.gen++
	p.done.Store(0)
	p.claim.Store(claimWord(p.gen, goroutines, blocks, 0))
	for i := range goroutines - 1 {
		if p.sleeping[i].Swap(false) {
			select {
			case p.wake[i] <- struct{}{}:
			default:
			}
		}
	}
	p.work(p.gen)
	for p.done.Load() < int64(blocks) {
		runtime.Gosched()
	}
}

// stop ends the goroutines; it may be called more than once.
func (p *pool) stop() {
	p.once.Do(func() {
		p.stopped.Store(true)
		for _, c := range p.wake {
			close(c)
		}
	})
}
