//go:build !unix

package oracletest

import "os/exec"

// ownProcessGroup leaves cmd as it is where there are no process groups
// (the oracles run on Linux; WaitDelay still bounds the wait).
func ownProcessGroup(cmd *exec.Cmd, mark string) {}
