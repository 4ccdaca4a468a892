// Package parallel runs independent pieces of work on a bounded number of
// goroutines.
package parallel

import (
	"runtime"
	"sync"
)

// Each calls fn(i) for every i in [0, n) on at most jobs goroutines (jobs <= 0:
// one per CPU Go runs on at once, GOMAXPROCS, which follows a container's CPU
// limit) and returns when all calls have returned. fn must be safe for
// concurrent use; results are usually written to the i-th slot of a slice.
func Each(n, jobs int, fn func(i int)) {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, n)
	if jobs <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
}
