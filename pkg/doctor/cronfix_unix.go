//go:build unix

package doctor

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own, which a timeout
// or an interrupt stops as a whole (SIGTERM, then SIGKILL from Wait).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}

// killProcessGroup kills what is left of cmd's process group after a
// timeout or an interrupt (workers the command started).
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
