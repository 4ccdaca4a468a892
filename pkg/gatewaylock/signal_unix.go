//go:build unix

package gatewaylock

import "syscall"

// signalZero is kill(pid, 0): nil when the process exists and may be signalled.
func signalZero(pid int) error { return syscall.Kill(pid, 0) }
