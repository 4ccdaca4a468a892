package oracletest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
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
//
// A process that left the group for a session of its own is not in it: a
// 2026.9.6 `openclaw-doctor` that deadlocked on exit (its main thread
// joining a thread that never ends) outlived a hung import that way and
// slept on, 260 MB, after the test had passed on its second try. So the
// run's environment carries a mark of its own (RunMark; a caller that sets
// cmd.Env must start from cmd.Environ() to keep it), which every process
// it starts inherits, and the cancellation also kills every process that
// carries the mark.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	mark := fmt.Sprintf("%s=%016x", RunMark, rand.Uint64())
	cmd.Env = append(os.Environ(), mark)
	ownProcessGroup(cmd, mark)
	cmd.WaitDelay = waitDelay
	return cmd
}

// RunMark is the variable whose value marks the processes of one Command.
const RunMark = "OC_ORACLE_RUN"
