package sqlitestore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// The gateway is another process writing the database (WAL) while oc reads
// it. writerEnv makes the test binary that writer (TestWriterProcessHelper):
// it commits without pause, one row with the same number into two tables
// per transaction, never checkpoints (wal_autocheckpoint=0), and answers
// "pause" with "paused <commits>" once no transaction is open, "resume" and
// "exit" on stdin.
const writerEnv = "OC_TEST_SQLITE_WRITER_DB"

func TestWriterProcessHelper(t *testing.T) {
	path := os.Getenv(writerEnv)
	if path == "" {
		t.Skip("helper process for TestReadsUnderAWriterProcess")
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	db.SetMaxOpenConns(1)
	commits := 0
	exec := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			fmt.Println("error", q, err)
			os.Exit(2)
		}
	}
	exec("PRAGMA journal_mode=wal")
	exec("PRAGMA wal_autocheckpoint=0")
	exec("CREATE TABLE IF NOT EXISTS oc_probe_a(n INTEGER)")
	commits++
	exec("CREATE TABLE IF NOT EXISTS oc_probe_b(n INTEGER, pad BLOB)")
	commits++
	cmds := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			cmds <- strings.TrimSpace(sc.Text())
		}
		close(cmds)
	}()
	fmt.Println("ready", commits)
	paused := false
	for {
		select {
		case c, ok := <-cmds:
			switch {
			case !ok || c == "exit":
				db.Close()
				os.Exit(0)
			case c == "pause":
				paused = true
				fmt.Println("paused", commits)
			case c == "resume":
				paused = false
				fmt.Println("resumed", commits)
			}
			continue
		default:
		}
		if paused {
			time.Sleep(time.Millisecond)
			continue
		}
		tx, err := db.Begin()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		n := commits + 1
		_, err = tx.Exec("INSERT INTO oc_probe_a VALUES (?)", n)
		if err == nil {
			_, err = tx.Exec("INSERT INTO oc_probe_b VALUES (?, randomblob(3000))", n)
		}
		if err == nil {
			err = tx.Commit()
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		commits++
		time.Sleep(time.Millisecond)
	}
}

// writerProcess drives the helper.
type writerProcess struct {
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startWriter(t *testing.T, db string) *writerProcess {
	t.Helper()
	stdin, out := startHelperProcess(t, "TestWriterProcessHelper", writerEnv, db)
	w := &writerProcess{stdin: stdin, out: out}
	w.expect(t, "ready")
	return w
}

// startHelperProcess runs the test binary as the helper test name with
// env=db, and stops it (closing its stdin, killing it after 10 s) when the
// test ends.
func startHelperProcess(t *testing.T, name, env, db string) (io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v=false")
	cmd.Env = append(os.Environ(), env+"="+db)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	return stdin, bufio.NewScanner(stdout)
}

// expect reads the helper's next answer, which must start with word, and
// returns its commit count.
func (w *writerProcess) expect(t *testing.T, word string) int {
	t.Helper()
	for w.out.Scan() {
		f := strings.Fields(w.out.Text())
		if len(f) == 0 || f[0] == "PASS" || f[0] == "ok" {
			continue
		}
		if f[0] != word || len(f) < 2 {
			t.Fatalf("writer: %q, want %s", w.out.Text(), word)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	t.Fatalf("writer exited before %q: %v", word, w.out.Err())
	return 0
}

func (w *writerProcess) send(t *testing.T, c, answer string) int {
	t.Helper()
	if _, err := io.WriteString(w.stdin, c+"\n"); err != nil {
		t.Fatal(err)
	}
	return w.expect(t, answer)
}

// walFrames validates a WAL file the way SQLite recovers it: the header's
// checksum, then every frame's salts and cumulative checksum. It returns the
// number of valid frames, the commit frames among them, and the byte length
// they cover (anything after is not part of the log).
func walFrames(t *testing.T, wal []byte) (frames, commits int, length int) {
	t.Helper()
	if len(wal) < 32 {
		t.Fatalf("-wal of %d bytes", len(wal))
	}
	magic := binary.BigEndian.Uint32(wal[0:])
	if magic&^1 != 0x377f0682 {
		t.Fatalf("-wal magic %#x", magic)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if magic&1 == 1 {
		order = binary.BigEndian
	}
	sum := func(s0, s1 uint32, b []byte) (uint32, uint32) {
		for i := 0; i+8 <= len(b); i += 8 {
			s0 += order.Uint32(b[i:]) + s1
			s1 += order.Uint32(b[i+4:]) + s0
		}
		return s0, s1
	}
	s0, s1 := sum(0, 0, wal[:24])
	if s0 != binary.BigEndian.Uint32(wal[24:]) || s1 != binary.BigEndian.Uint32(wal[28:]) {
		t.Fatal("-wal header checksum does not match")
	}
	page := int(binary.BigEndian.Uint32(wal[8:]))
	salt1, salt2 := binary.BigEndian.Uint32(wal[16:]), binary.BigEndian.Uint32(wal[20:])
	length = 32
	for off := 32; off+24+page <= len(wal); off += 24 + page {
		h := wal[off : off+24]
		if binary.BigEndian.Uint32(h[8:]) != salt1 || binary.BigEndian.Uint32(h[12:]) != salt2 {
			break
		}
		a, b := sum(s0, s1, h[:8])
		a, b = sum(a, b, wal[off+24:off+24+page])
		if a != binary.BigEndian.Uint32(h[16:]) || b != binary.BigEndian.Uint32(h[20:]) {
			break
		}
		s0, s1 = a, b
		frames++
		if binary.BigEndian.Uint32(h[4:]) != 0 {
			commits++
			length = off + 24 + page
		}
	}
	return frames, commits, length
}

type fileID struct {
	ino  uint64
	mode os.FileMode
}

func dirState(t *testing.T, dir string) map[string]fileID {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fileID{}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		id := fileID{mode: info.Mode()}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			id.ino = st.Ino
		}
		out[e.Name()] = id
	}
	return out
}

// TestReadsUnderAWriterProcess: oc reads an agent database while another
// process commits to it without pause (as the gateway does, WAL). What can
// be asserted byte for byte, given that the writer changes files meanwhile:
//   - the main database file is identical (with checkpoints off only a
//     checkpoint would write it, and a read-only reader never checkpoints);
//   - the -wal is append-only: the log before the reads is an unchanged
//     prefix, and everything appended is valid frames (salts, cumulative
//     checksums) whose commit frames are exactly the writer's commits, so no
//     byte of it came from anyone else;
//   - -shm is shared memory every reader writes by design (read marks): only
//     that it is the same file (inode, mode) is asserted;
//   - no file appears or disappears in the folder.
//
// And every read transaction sees one snapshot: the two tables the writer
// fills in one transaction always hold the same rows, while the sessions of
// the database read whole each time.
func TestReadsUnderAWriterProcess(t *testing.T) {
	state := oracletest.Fixture96State(t, "example-state")
	dbPath := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	dir := filepath.Dir(dbPath)
	w := startWriter(t, dbPath)

	base := w.send(t, "pause", "paused")
	dbBefore, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	walBefore, err := os.ReadFile(dbPath + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	filesBefore := dirState(t, dir)
	if _, ok := filesBefore[filepath.Base(dbPath)+"-shm"]; !ok {
		t.Fatal("the writer has no -shm: not a WAL database")
	}
	w.send(t, "resume", "resumed")

	d, err := Open(t.Context(), dbPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.CopyReason != "" {
		t.Fatalf("read a private copy (%s): the test needs oc to read in place beside the writer", d.CopyReason)
	}
	reads, events, snapshots := 0, 0, map[int]bool{}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) || len(snapshots) < 5 {
		err := d.ReadTx(t.Context(), func(tx *sql.Tx) error {
			var a, b, maxA, maxB int
			if err := tx.QueryRowContext(context.Background(), "SELECT count(*), coalesce(max(n),0) FROM oc_probe_a").Scan(&a, &maxA); err != nil {
				return err
			}
			if err := tx.QueryRowContext(context.Background(), "SELECT count(*), coalesce(max(n),0) FROM oc_probe_b").Scan(&b, &maxB); err != nil {
				return err
			}
			if a != b || maxA != maxB {
				t.Errorf("read %d: not one snapshot: %d rows (max %d) in one table, %d (max %d) in the other", reads, a, maxA, b, maxB)
			}
			snapshots[maxA] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ss, err := d.SessionList(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			if _, err := d.Events(t.Context(), s.SessionID, nil, func(Event) error { events++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		reads++
		if time.Since(deadline) > 30*time.Second {
			t.Fatal("the writer made no progress while oc read")
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	end := w.send(t, "pause", "paused")

	if reads < 5 || events == 0 || len(snapshots) < 5 || end-base < 5 {
		t.Fatalf("%d reads (%d events), %d distinct snapshots, %d commits meanwhile: the test did not read under a writer", reads, events, len(snapshots), end-base)
	}
	dbAfter, err := os.ReadFile(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dbBefore, dbAfter) {
		t.Errorf("the main database file changed (sha256 %x -> %x)", sha256.Sum256(dbBefore), sha256.Sum256(dbAfter))
	}
	walAfter, err := os.ReadFile(dbPath + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	_, commitsBefore, lenBefore := walFrames(t, walBefore)
	frames, commitsAfter, lenAfter := walFrames(t, walAfter)
	if len(walAfter) < lenBefore || !bytes.Equal(walAfter[:lenBefore], walBefore[:lenBefore]) {
		t.Errorf("the -wal's first %d bytes (the log before the reads) changed", lenBefore)
	}
	if got, want := commitsAfter-commitsBefore, end-base; got != want {
		t.Errorf("%d commit frames were appended to the -wal, the writer committed %d times", got, want)
	}
	if lenAfter != len(walAfter) {
		t.Errorf("the -wal holds %d bytes after its last valid commit frame", len(walAfter)-lenAfter)
	}
	if got := dirState(t, dir); fmt.Sprint(got) != fmt.Sprint(filesBefore) {
		t.Errorf("the folder changed: %v, before %v", got, filesBefore)
	}
	t.Logf("%d reads (%d events, %d distinct snapshots) while the writer process committed %d times; %d valid -wal frames", reads, events, len(snapshots), end-base, frames)
}
