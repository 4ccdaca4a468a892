//go:build unix

package oracletest

import (
	"context"
	"testing"
	"time"
)

// A run whose child outlives it (as an oracle's openclaw processes did) is
// killed with its whole group when ctx ends, and Wait returns at once
// instead of waiting for the child's copy of the output pipe.
func TestCommandKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cmd := Command(ctx, "sh", "-c", "sleep 60 & wait")
	var out []byte
	cmd.Stdout = writerFunc(func(p []byte) (int, error) { out = append(out, p...); return len(p), nil })
	start := time.Now()
	err := cmd.Run()
	if err == nil {
		t.Fatal("the run ended without error; want it killed")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run returned after %v; the group's kill should end it at once", d)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
