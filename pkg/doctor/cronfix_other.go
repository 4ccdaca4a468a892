//go:build !unix

package doctor

import "os/exec"

// ownProcessGroup: without Unix process groups, a timeout kills the command
// itself (exec's default).
func ownProcessGroup(*exec.Cmd) {}

func killProcessGroup(*exec.Cmd) {}
