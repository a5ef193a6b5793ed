package nn

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// runner is what a pool runs: part i of phase ph of the current job. A job
// has three phases, run in order: phasePre (the weights' copy), phaseBlocks
// (the row blocks) and phasePost (the gradient's reduction); no part of a
// phase starts before every part of the one before has finished.
type runner interface{ runPart(ph, i int) }

const (
	phasePre = iota
	phaseBlocks
	phasePost
	numPhases
)

// pool is a fixed set of helper goroutines started once; the caller's
// goroutine works beside them. A job is three phases of parts, which the
// goroutines taking part claim one at a time from a shared counter until
// none is left: the caller runs every part nobody else has claimed, so it
// never waits for a helper that has not started yet, only for parts a
// helper is running, and at the two barriers between phases. Which
// goroutine runs a part changes no result: each part writes its own
// buffers or its own slice of a shared one, and the caller combines the
// blocks' buffers in block order (the reduction's parts each take a slice
// of the parameters and add the blocks in order).
//
// A helper that finishes a job watches for the next one for spinFor before
// it sleeps on its channel: a step of a few hundred rows lasts about
// 100 µs, and waking a sleeping thread (on a virtual machine, an idle vCPU)
// costs a good part of that; the caller waits for the parts in progress
// the same way. Waiting goroutines yield (runtime.Gosched), so that the
// goroutines they wait for run even on fewer Ps than goroutines. Neither
// wakes nor waits allocate.
type pool struct {
	r    runner
	wake []chan struct{} // wake[i]: helper i+1's, a token when it sleeps
	// sleeping[i]: helper i+1 sleeps (or is about to) on wake[i].
	sleeping []atomic.Bool
	// claim[ph] is phase ph of the current job and its next part:
	// generation, goroutines taking part, parts and next part, 16 bits
	// each (newWorkspace keeps threads below 1<<15). A helper claims a
	// part by a compare-and-swap of the whole word, so it never takes a
	// part of a job it did not see; claim[phaseBlocks], stored last,
	// publishes the job.
	claim   [numPhases]atomic.Uint64
	done    [numPhases]atomic.Int64 // parts of each phase finished
	gen     uint64                  // the caller's: the current job's generation
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

// next claims the next part of phase ph of job gen; ok is false when none
// is left or another job has begun.
func (p *pool) next(ph int, gen uint64) (i int, ok bool) {
	for {
		c := p.claim[ph].Load()
		blocks, n := int(c>>16&0xffff), int(c&0xffff)
		if c>>48 != gen&0xffff || n >= blocks {
			return 0, false
		}
		if p.claim[ph].CompareAndSwap(c, c+1) {
			return n, true
		}
	}
}

// work runs parts of job gen, phase by phase, until none is left; between
// phases it waits for the parts others run. It returns early if another
// job has begun (a helper that saw the job late).
func (p *pool) work(gen uint64) {
	for ph := range numPhases {
		if ph > 0 && !p.wait(ph-1, gen) {
			return
		}
		for {
			i, ok := p.next(ph, gen)
			if !ok {
				break
			}
			p.r.runPart(ph, i)
			p.done[ph].Add(1)
		}
	}
}

// wait yields until every part of phase ph of job gen has finished; it
// reports false if another job has begun.
func (p *pool) wait(ph int, gen uint64) bool {
	for {
		c := p.claim[ph].Load()
		if c>>48 != gen&0xffff {
			return false
		}
		if p.done[ph].Load() >= int64(c>>16&0xffff) {
			return true
		}
		runtime.Gosched()
	}
}

func (p *pool) loop(id int) {
	var seen uint64 // the generation of the last job this helper saw
	t0 := time.Now()
	for i := 0; ; i++ {
		c := p.claim[phaseBlocks].Load()
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
			if p.claim[phaseBlocks].Load()>>48 == seen { // no job since: sleep
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

// run runs a job of parts[ph] parts in each phase on up to goroutines
// goroutines, the caller's among them, and returns when all of them are
// done.
func (p *pool) run(parts [numPhases]int, goroutines int) {
	goroutines = min(goroutines, len(p.wake)+1, max(parts[0], parts[1], parts[2]))
	if goroutines <= 1 {
		for ph, n := range parts {
			for i := range n {
				p.r.runPart(ph, i)
			}
		}
		return
	}
	p.gen++
	for ph := range numPhases {
		p.done[ph].Store(0)
	}
	for _, ph := range [...]int{phasePre, phasePost, phaseBlocks} {
		p.claim[ph].Store(claimWord(p.gen, goroutines, parts[ph], 0))
	}
	for i := range goroutines - 1 {
		if p.sleeping[i].Swap(false) {
			select {
			case p.wake[i] <- struct{}{}:
			default:
			}
		}
	}
	p.work(p.gen)
	p.wait(phasePost, p.gen)
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
