// Package budget bounds the memory one run of oc gives to decompressed
// data: one allowance of bytes shared by every worker of the run (a
// weighted semaphore), so that what a run holds at once does not grow with
// the number of rows, sessions or CPUs.
package budget

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/semaphore"
)

// Default is the allowance of a run that names none: 256 MiB.
const Default = 256 << 20

// ErrOver is the error of a request larger than the whole allowance: it can
// never be granted.
var ErrOver = errors.New("more than the memory budget for decoded data")

// Bytes is an allowance of bytes. Acquire blocks until the bytes are free
// (another worker releases them) or the context ends. It also keeps the
// most it ever lent at once, which the tests read.
type Bytes struct {
	size int64
	sem  *semaphore.Weighted
	mu   sync.Mutex
	held int64
	peak int64
}

// New is an allowance of size bytes (Default when size <= 0).
func New(size int64) *Bytes {
	if size <= 0 {
		size = Default
	}
	return &Bytes{size: size, sem: semaphore.NewWeighted(size)}
}

// Size is the whole allowance.
func (b *Bytes) Size() int64 { return b.size }

// Acquire takes n bytes, waiting for them while other workers hold them.
// A request over the whole allowance fails at once (ErrOver); n <= 0 takes
// nothing.
func (b *Bytes) Acquire(ctx context.Context, n int64) error {
	if n <= 0 {
		return nil
	}
	if n > b.size {
		return fmt.Errorf("%d bytes: %w (%d)", n, ErrOver, b.size)
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return err
	}
	b.mu.Lock()
	b.held += n
	b.peak = max(b.peak, b.held)
	b.mu.Unlock()
	return nil
}

// Release gives back n bytes taken by Acquire.
func (b *Bytes) Release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
	b.sem.Release(n)
}

// Peak is the most bytes lent at once so far.
func (b *Bytes) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}
