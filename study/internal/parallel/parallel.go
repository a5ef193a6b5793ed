package parallel

import (
	"sync"
	"sync/atomic"
)

// Do runs do(0..n−1) on workers goroutines, calls progress after
// each (from the calling goroutine), and returns the first error.
func Do(n, workers int, do func(int) error, progress func(done, total int)) error {
	jobs := make(chan int)
	done := make(chan error)
	var failed atomic.Bool // after an error, the remaining jobs are skipped
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range jobs {
				if failed.Load() {
					done <- nil
					continue
				}
				err := do(i)
				if err != nil {
					failed.Store(true)
				}
				done <- err
			}
		})
	}
	go func() {
		for i := range n {
			jobs <- i
		}
		close(jobs)
	}()
	var first error
	for k := range n {
		if err := <-done; err != nil && first == nil {
			first = err
		}
		if progress != nil {
			progress(k+1, n)
		}
	}
	wg.Wait()
	return first
}
