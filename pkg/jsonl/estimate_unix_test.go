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
	// a wait would never end: the test binary fails loudly instead
	stuck := time.AfterFunc(5*time.Second, func() { panic("EstimateLines waited on a FIFO for 5 s") })
	defer stuck.Stop()
	require.Equal(t, int64(-1), EstimateLines(fifo, 4096))
}
