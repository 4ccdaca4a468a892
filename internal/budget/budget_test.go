package budget

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// Workers sharing one allowance never hold more than it together, a
// request over it fails at once, and a waiter gives up with its context.
func TestBytesBoundsTheWorkersTogether(t *testing.T) {
	b := New(100)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := b.Acquire(t.Context(), 30); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(10 * time.Microsecond)
				b.Release(30)
			}
		}()
	}
	wg.Wait()
	if p := b.Peak(); p > 100 || p < 30 {
		t.Fatalf("peak %d: want 30..100", p)
	}
	if err := b.Acquire(t.Context(), 101); !errors.Is(err, ErrOver) {
		t.Fatalf("101 of 100: %v, want ErrOver", err)
	}
	if err := b.Acquire(t.Context(), 100); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if err := b.Acquire(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a full allowance: %v, want the context's error", err)
	}
	b.Release(100)
	if New(0).Size() != Default {
		t.Fatal("New(0) is not the default allowance")
	}
}
