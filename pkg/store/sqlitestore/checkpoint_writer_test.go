package sqlitestore

import (
	"bufio"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// checkpointWriterEnv makes the test binary a short-lived writer
// (TestCheckpointWriterHelper): in a loop it opens the database, appends one
// row with the same number to two tables in one transaction, checkpoints
// with TRUNCATE and closes, so that -wal exists only for a moment and the
// main file changes between the moments oc looks for it. It prints "ready"
// once the probe tables exist and stops when stdin closes.
const checkpointWriterEnv = "OC_TEST_SQLITE_CHECKPOINT_WRITER_DB"

func TestCheckpointWriterHelper(t *testing.T) {
	path := os.Getenv(checkpointWriterEnv)
	if path == "" {
		t.Skip("helper process for TestNoFalseVerdictBesideACheckpointingWriter")
	}
	// A round that fails (SQLITE_BUSY while a reader holds the WAL, say)
	// is a round without a commit: the writer goes on.
	round := func(setup bool) error {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
		if err != nil {
			return err
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if setup {
			if _, err := db.Exec("CREATE TABLE IF NOT EXISTS oc_probe_a(n INTEGER); CREATE TABLE IF NOT EXISTS oc_probe_b(n INTEGER, pad BLOB)"); err != nil {
				return err
			}
		}
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // committed below
		var n int
		if err := tx.QueryRow("SELECT coalesce(max(n), 0) + 1 FROM oc_probe_a").Scan(&n); err != nil {
			return err
		}
		// rows big enough that every round rewrites pages and grows the file
		if _, err := tx.Exec("INSERT INTO oc_probe_a VALUES (?)", n); err != nil {
			return err
		}
		if _, err := tx.Exec("INSERT INTO oc_probe_b VALUES (?, randomblob(6000))", n); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		return err
	}
	if err := round(true); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	stop := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
		}
		close(stop)
	}()
	for {
		select {
		case <-stop:
			os.Exit(0)
		default:
		}
		_ = round(false)
		time.Sleep(time.Duration(5000+rand.IntN(30000)) * time.Microsecond)
	}
}

// startCheckpointWriter starts the helper on db and waits for it to be ready.
func startCheckpointWriter(t *testing.T, db string) {
	t.Helper()
	_, sc := startHelperProcess(t, "TestCheckpointWriterHelper", checkpointWriterEnv, db)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "ready") {
			go func() {
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "error") {
						t.Errorf("writer: %s", sc.Text())
					}
				}
			}()
			return
		}
		if strings.HasPrefix(sc.Text(), "error") {
			t.Fatalf("writer: %s", sc.Text())
		}
	}
	t.Fatalf("writer exited before it was ready: %v", sc.Err())
}

// TestNoFalseVerdictBesideACheckpointingWriter: a WAL database with no -wal
// is read in place with immutable=1. A writer that opens it, appends,
// checkpoints with TRUNCATE and closes between oc's reads changes the main
// file under that read. In 100 rounds of what a command does (open,
// quick_check beside the reads, every session read whole, a read of the two
// tables the writer fills in one transaction), no read may end in a corrupt
// verdict and none may return a torn snapshot.
func TestNoFalseVerdictBesideACheckpointingWriter(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	dbPath := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	startCheckpointWriter(t, dbPath)
	verdicts := map[string]int{}
	immutableRounds := 0
	for round := 0; round < 100; round++ {
		d, err := Open(t.Context(), dbPath, Options{})
		if err != nil {
			verdicts["open: "+err.Error()]++
			continue
		}
		if d.current().immutable {
			immutableRounds++
		}
		quick := make(chan string, 1)
		go func() {
			answer, err := d.QuickCheck(t.Context())
			if err != nil {
				answer = err.Error()
			}
			quick <- answer
		}()
		// fn runs again when the file changed under it: what counts is the
		// snapshot of the run whose result ReadTx returns.
		// (five probes a round, each a chance for the writer to land in it)
		for probe := 0; probe < 5; probe++ {
			var torn string
			err = d.ReadTx(t.Context(), func(tx *sql.Tx) error {
				var a, b, maxA, maxB int
				if err := tx.QueryRow("SELECT count(*), coalesce(max(n),0) FROM oc_probe_a").Scan(&a, &maxA); err != nil {
					return err
				}
				if err := tx.QueryRow("SELECT count(*), coalesce(max(n),0) FROM oc_probe_b").Scan(&b, &maxB); err != nil {
					return err
				}
				torn = ""
				if a != b || maxA != maxB {
					torn = fmt.Sprintf("%d rows (max %d) in one table, %d (max %d) in the other", a, maxA, b, maxB)
				}
				return nil
			})
			if err == nil && torn != "" {
				t.Errorf("round %d: torn snapshot returned: %s", round, torn)
			}
			if err != nil {
				verdicts["probe read: "+err.Error()]++
			}
		}
		ss, err := d.SessionList(t.Context())
		if err != nil {
			verdicts["session list: "+err.Error()]++
		}
		for _, s := range ss {
			if _, err := d.Events(t.Context(), s.SessionID, nil, func(Event) error { return nil }); err != nil {
				verdicts["session read: "+err.Error()]++
			}
		}
		if answer := <-quick; answer != "ok" {
			verdicts["quick_check: "+answer]++
		}
		d.Close()
		// a pause without a connection of oc's, in which the writer's close
		// removes -wal, so that the next open is an immutable one
		time.Sleep(30 * time.Millisecond)
	}
	for v, n := range verdicts {
		t.Errorf("%d of 100 rounds: %s", n, v)
	}
	if immutableRounds < 10 {
		t.Errorf("only %d of 100 rounds read in place with immutable=1: the test did not exercise the immutable open", immutableRounds)
	}
	t.Logf("%d of 100 rounds read with immutable=1", immutableRounds)
}
