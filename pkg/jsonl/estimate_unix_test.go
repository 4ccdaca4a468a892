//go:build unix

package jsonl

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// EstimateLines gives up on a FIFO at once instead of waiting for a writer
// (Discover's stat gives a FIFO no size, but a path may change meanwhile).
func TestEstimateLinesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan int64, 1)
	go func() { done <- EstimateLines(fifo, 4096) }()
	select {
	case got := <-done:
		require.Equal(t, int64(-1), got)
	case <-time.After(5 * time.Second):
		t.Fatal("EstimateLines waited on a FIFO")
	}
}
