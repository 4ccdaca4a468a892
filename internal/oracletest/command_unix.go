//go:build unix

package oracletest

import (
	"bytes"
	"errors"
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
// variables, found through /proc (where there is none, it finds none), and
// returns their pids.
func killMarked(mark string) []int {
	entries, _ := os.ReadDir("/proc")
	var killed []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !hasVariable(env, mark) {
			continue
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err == nil || !errors.Is(err, syscall.ESRCH) {
			killed = append(killed, pid)
		}
	}
	return killed
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
