package oracletest

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// RunOnceMoreIfHung runs the command start makes (with a context that ends
// after limit) and returns how it ended. An oracle run still going at the
// deadline (its process group killed, see Command) is logged and run once
// more, with a fresh command from start (a fresh output folder, fresh
// buffers); a second hang fails t. Why: once in a CI run (2026-12-02) a
// 2026.9.6 import that takes 10-40 s printed nothing for minutes until it
// was killed, and passed at once when run again. A run that fails in any
// other way is not retried: the caller gets its error. Only runs that can
// be started again from scratch belong here (the imports, which write a new
// folder each time); the fixture scripts (script96) are not: they refuse a
// folder a hung run left half written, and --restore changes its states.
func RunOnceMoreIfHung(t testing.TB, limit time.Duration, start func(ctx context.Context) *exec.Cmd) error {
	t.Helper()
	for try := 1; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		cmd := start(ctx)
		err := cmd.Run()
		hung := ctx.Err() != nil
		cancel()
		if !hung {
			return err
		}
		if try == 2 {
			t.Fatalf("%s hung twice (%v each)", cmd.Path, limit)
		}
		t.Logf("%s hung for %v (%v); running it once more", cmd.Path, limit, err)
	}
}
