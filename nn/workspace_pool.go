package nn

import "sync"

// runner is what a pool runs: worker id's share of the current job.
type runner interface{ runWorker(id int) }

// pool is a fixed set of worker goroutines started once. The caller's
// goroutine is worker 0; workers 1..n−1 wait on their own channel. Waking
// them and waiting for them passes no values and builds no closures, so a
// step allocates nothing.
type pool struct {
	r    runner
	wake []chan struct{}
	done chan struct{}
	once sync.Once
}

// startPool starts n−1 goroutines that run r's work when woken.
func startPool(n int, r runner) *pool {
	p := &pool{r: r, wake: make([]chan struct{}, n-1), done: make(chan struct{}, n)}
	for i := range p.wake {
		p.wake[i] = make(chan struct{}, 1)
		go p.loop(i+1, p.wake[i])
	}
	return p
}

func (p *pool) loop(id int, wake <-chan struct{}) {
	for range wake {
		p.r.runWorker(id)
		p.done <- struct{}{}
	}
}

// run runs workers 0..nw−1 and returns when all of them are done.
func (p *pool) run(nw int) {
	for i := 1; i < nw; i++ {
		p.wake[i-1] <- struct{}{}
	}
	p.r.runWorker(0)
	for i := 1; i < nw; i++ {
		<-p.done
	}
}

// stop ends the goroutines; it may be called more than once.
func (p *pool) stop() {
	p.once.Do(func() {
		for _, c := range p.wake {
			close(c)
		}
	})
}
