//go:build windows

package gatewaylock

import "os"

// signalZero reports whether a process with this pid exists.
func signalZero(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Release()
}
