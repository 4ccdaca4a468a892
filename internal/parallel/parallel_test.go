package parallel

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 100} {
		seen := make([]int32, 50)
		var running, peak int32
		Each(len(seen), jobs, func(i int) {
			n := atomic.AddInt32(&running, 1)
			for {
				p := atomic.LoadInt32(&peak)
				if n <= p || atomic.CompareAndSwapInt32(&peak, p, n) {
					break
				}
			}
			atomic.AddInt32(&seen[i], 1)
			atomic.AddInt32(&running, -1)
		})
		for i, c := range seen {
			assert.Equal(t, int32(1), c, "index %d with %d jobs", i, jobs)
		}
		if jobs > 0 {
			assert.LessOrEqual(t, int(peak), jobs)
		}
	}
	Each(0, 4, func(int) { t.Fatal("no work") })
}
