//go:build unix

package oracletest

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own and makes its
// cancellation kill the whole group, and then every process that carries
// mark (NAME=VALUE) in its environment.
func ownProcessGroup(cmd *exec.Cmd, mark string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		killMarked(mark)
		return err
	}
}

// killMarked kills every process whose environment holds mark as one of its
// variables, found through /proc (where there is none, it finds none).
func killMarked(mark string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !hasVariable(env, mark) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL) // one that has exited meanwhile is gone anyway
	}
}

// hasVariable reports whether env (NUL-separated NAME=VALUE entries, as in
// /proc/PID/environ) holds v.
func hasVariable(env []byte, v string) bool {
	for len(env) > 0 {
		entry, rest, _ := bytes.Cut(env, []byte{0})
		if string(entry) == v {
			return true
		}
		env = rest
	}
	return false
}
