package sqlitestore

import (
	"context"
	"errors"
	"testing"
	"time"
)

// The command's context reaches the queries: cancelled while PRAGMA
// quick_check runs, the check stops with the context's error instead of an
// answer; cancelled while a session's rows are read, the read stops at the
// next row.
func TestReadsStopWithTheirContext(t *testing.T) {
	path := oneSessionDB(t, 30000)
	db, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(5*time.Millisecond, cancel)
	answer, err := db.QuickCheck(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("quick_check cancelled after 5 ms: answer %q, error %v; want context.Canceled", answer, err)
	}

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	read := 0
	_, err = db.RawEvents(ctx, "s", nil, func(Event) error {
		if read++; read == 100 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || read >= 30000 {
		t.Errorf("read cancelled at row 100: %d rows read, error %v; want context.Canceled", read, err)
	}
	// the database still reads with a live context
	if got, err := db.QuickCheck(t.Context()); err != nil || got != "ok" {
		t.Errorf("after the cancelled reads: quick_check %q, %v", got, err)
	}
}
