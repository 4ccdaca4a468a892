//go:build unix

package openclawconfig

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO in the config's place is refused, never opened blocking (which
// would hang the command).
func TestAFIFOConfigDoesNotBlock(t *testing.T) {
	fifoDir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(fifoDir, "openclaw.json"), 0o600))
	_, err := Load(fifoDir, noEnv, nil) // would hang if the FIFO were opened blocking
	require.Error(t, err)
	assert.Contains(t, err.Error(), "openclaw.json")
}
