package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/lazyre"
)

// child runs openclaw commands: never through a shell, stdin empty, in the
// state dir, with the environment built by ChildEnv, each bounded by
// timeout.
type child struct {
	bin     string
	env     []string
	dir     string
	timeout time.Duration
}

// childResult is what one command did.
type childResult struct {
	stdout, stderr []byte
	// exitCode is the exit status; -1 when the command did not exit by
	// itself (timed out, interrupted, could not start).
	exitCode int
	timedOut bool
	err      error // could not start, or did not exit by itself
}

func (r childResult) failed() bool { return r.err != nil || r.exitCode != 0 }

// failure says how the command failed: "exited 1", "did not finish within
// 1m30s and was stopped", "could not start: ...".
func (r childResult) failure() string {
	switch {
	case r.timedOut:
		return r.err.Error()
	case r.err != nil && r.err.Error() == "interrupted":
		return "was interrupted"
	case r.err != nil:
		return "could not start: " + r.err.Error()
	}
	return fmt.Sprintf("exited %d", r.exitCode)
}

// describe says how the command failed, naming it, and its error message
// (the full stderr goes in the result).
func (r childResult) describe(args []string) string {
	return describeFailure(append([]string{"openclaw"}, args...), r.failure(), r.message())
}

// message is the command's error message: with --json, 9.6's CLI prints
// {"ok": false, "error": {"message": ...}} on stdout (its stderr may start
// with log lines); else its stderr.
func (r childResult) message() string {
	var doc struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(r.stdout, &doc) == nil && strings.TrimSpace(doc.Error.Message) != "" {
		return trimOutput([]byte(doc.Error.Message))
	}
	return trimOutput(r.stderr)
}

// describeFailure is "`cmd` exited 1: the first line of its message".
func describeFailure(argv []string, failure, message string) string {
	what := "`" + strings.Join(argv, " ") + "` " + failure
	if msg := firstLine(message); msg != "" {
		what += ": " + msg
	}
	return what
}

// csiSequence is a terminal control sequence (ESC [ ... final byte), as the
// colours of openclaw's log lines.
var csiSequence = lazyre.New(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// firstLine is the first line of s with terminal escape sequences (colours
// of log lines) taken out, and " [...]" when more followed.
func firstLine(s string) string {
	more := ""
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = s[:i], " [...]"
	}
	return strings.TrimSpace(csiSequence().ReplaceAllString(s, "")) + more
}

// run runs openclaw with args. A timeout or a cancelled ctx stops the
// command's whole process group (openclaw's node starts workers).
func (c child) run(ctx context.Context, args []string) childResult {
	timeout := c.timeout
	if timeout <= 0 {
		timeout = DefaultOpenClawTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.bin, args...) //nolint:gosec // argv built by FixCommand, checked by unsafeJobID
	cmd.Env = c.env
	cmd.Dir = c.dir
	stdout, stderr := &cappedBuffer{max: maxChildOutput}, &cappedBuffer{max: maxChildOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownProcessGroup(cmd)
	cmd.WaitDelay = 3 * time.Second
	err := cmd.Run()
	res := childResult{stdout: stdout.buf, stderr: stderr.buf, exitCode: -1}
	if cctx.Err() != nil {
		killProcessGroup(cmd)
		res.timedOut = ctx.Err() == nil
		if res.timedOut {
			res.err = fmt.Errorf("did not finish within %s and was stopped", timeout)
		} else {
			res.err = errors.New("interrupted")
		}
		return res
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		res.exitCode = 0
	case errors.As(err, &exitErr) && exitErr.Exited():
		res.exitCode = exitErr.ExitCode()
	default:
		res.err = err
	}
	return res
}

// cappedBuffer keeps the first max bytes written to it and drops the rest
// (a child's output cannot take oc's memory).
type cappedBuffer struct {
	buf []byte
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
