package oracletest

import (
	"context"
	"os/exec"
	"time"
)

// waitDelay is how long Wait waits for an oracle's output pipes to close
// once its process group was killed.
const waitDelay = 10 * time.Second

// Command is exec.CommandContext for an oracle run. An oracle's Node starts
// `openclaw` processes of its own; killing only the process started here
// (what exec.CommandContext does when ctx ends) left them running with its
// output pipes open, so that Wait, and the test, hung until go test's own
// timeout (a 2026.9.6 doctor that deadlocked on exit held a CI run for an
// hour past its 5-minute bound). The run gets a process group of its own,
// the whole group is killed when ctx ends, and Wait stops waiting for the
// pipes waitDelay after. (Being a group of its own, a run no longer gets
// the terminal's Ctrl-C: interrupting go test leaves a running oracle to
// finish on its own.)
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	ownProcessGroup(cmd)
	cmd.WaitDelay = waitDelay
	return cmd
}
