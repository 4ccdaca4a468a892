package repair

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/gatewaylock"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func readQuarantine(t *testing.T, path string) map[int64][]byte {
	t.Helper()
	out := map[int64][]byte{}
	if path == "" {
		return out
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return parseQuarantine(t, raw)
}

// parseQuarantine reads a quarantine file's records: each line's original
// bytes by its line number (every record names the rules that took it).
func parseQuarantine(t *testing.T, raw []byte) map[int64][]byte {
	t.Helper()
	out := map[int64][]byte{}
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		if len(l) == 0 {
			continue // no record at all
		}
		var r QuarantineRecord
		require.NoError(t, json.Unmarshal(l, &r), "quarantine line %q", l)
		require.NotEmpty(t, r.Rules)
		b, err := r.Original()
		require.NoError(t, err)
		out[r.Line] = b
	}
	return out
}

// Every damaged copy of the corpus: repaired in place, nothing lost, a second
// run is a no-op without a new backup, --undo restores the original byte for byte.
func TestApplyNothingLostIdempotentUndo(t *testing.T) {
	corpus := oracletest.Transcripts(t)
	base := t.TempDir()
	damaged := makeDamaged(t, corpus, base)
	n := 0
	for path := range damaged {
		n++
		dir := filepath.Join(base, "case", filepath.Base(path))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		orig, err := os.ReadFile(path)
		require.NoError(t, err)
		file := filepath.Join(dir, filepath.Base(path))
		require.NoError(t, os.WriteFile(file, orig, 0o640))

		rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
		require.NoError(t, err, file)
		require.True(t, rep.Changed, "%s: every damage kind changes the file", file)
		repaired, err := os.ReadFile(file)
		require.NoError(t, err)
		st, err := os.Stat(file)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "mode kept")

		// Nothing lost: every original line is in the repaired file (as often
		// as it occurs in the original) or quarantined with its line number.
		outLines := map[string]int{}
		for _, l := range bytes.Split(repaired, []byte("\n")) {
			outLines[string(bytes.TrimSuffix(l, []byte("\r")))]++
		}
		q := readQuarantine(t, rep.Quarantine)
		for i, l := range bytes.Split(orig, []byte("\n")) {
			l = bytes.TrimSuffix(l, []byte("\r"))
			if jsonl.IsBlank(l) {
				continue
			}
			if qb, ok := q[int64(i+1)]; ok {
				assert.Equal(t, string(l), string(bytes.TrimSuffix(qb, []byte("\r"))), "quarantined bytes of line %d", i+1)
				continue
			}
			// Each copy in the repaired file accounts for one original line.
			if !assert.Positive(t, outLines[string(l)], "%s: line %d is neither in the repaired file (as often as in the original) nor quarantined", filepath.Base(file), i+1) {
				continue
			}
			outLines[string(l)]--
		}
		// The backup holds the original.
		bk, err := os.ReadFile(rep.Backup)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(orig, bk), "backup is the original")
		_, err = os.Stat(gatewaylock.LockPath(file))
		assert.True(t, errors.Is(err, os.ErrNotExist), "lock released")

		// Idempotent.
		before := listDir(t, dir)
		rep2, err := ApplyFile(t.Context(), file, ApplyOptions{})
		require.NoError(t, err)
		assert.False(t, rep2.Changed, "%s: second run changed %v", filepath.Base(file), rep2.Rules)
		assert.Equal(t, before, listDir(t, dir), "no new backup on the second run")
		again, _ := os.ReadFile(file)
		assert.True(t, bytes.Equal(repaired, again))

		// Undo.
		_, err = Undo(t.Context(), file, ApplyOptions{})
		require.NoError(t, err)
		undone, _ := os.ReadFile(file)
		assert.True(t, bytes.Equal(orig, undone), "%s: undo restores the original", filepath.Base(file))
	}
	require.NotZero(t, n)
}

const smallDamaged = `{"type":"session","version":3,"id":"s1","timestamp":"2026-05-12T09:00:00.000Z","cwd":"/"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-05-12T09:00:01.000Z","message":{"role":"user","content":"hi"}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-12T09:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hel
{"type":"message","id":"c","parentId":"b","timestamp":"2026-05-12T09:00:03.000Z","message":{"role":"user","content":"more"}}
`

func TestApplyCompressedBackupAndBackupDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o600))
	bdir := filepath.Join(dir, "backups")
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{BackupDir: bdir, Compress: true})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(rep.Backup, bdir+string(filepath.Separator)))
	assert.True(t, strings.HasSuffix(rep.Backup, ".zst"))
	assert.Equal(t, []int64{3}, rep.Lines[RuleMalformedLine])
	assert.Equal(t, []int64{4}, rep.Lines[RuleRelinkParent])
	got, _ := os.ReadFile(file)
	assert.Contains(t, string(got), `"id":"c","parentId":"a"`)
	_, err = Undo(t.Context(), file, ApplyOptions{BackupDir: bdir})
	require.NoError(t, err)
	got, _ = os.ReadFile(file)
	assert.Equal(t, smallDamaged, string(got))
}

func TestApplyCleanFileUntouched(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	clean := strings.Replace(smallDamaged, "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"timestamp\":\"2026-05-12T09:00:02.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"hel\n", "", 1)
	clean = strings.Replace(clean, `"parentId":"b"`, `"parentId":"a"`, 1)
	require.NoError(t, os.WriteFile(file, []byte(clean), 0o600))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(file, old, old))
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{})
	require.NoError(t, err)
	assert.False(t, rep.Changed)
	assert.Equal(t, []string{"s1.jsonl"}, listDir(t, dir))
	st, _ := os.Stat(file)
	assert.True(t, st.ModTime().Equal(old.Truncate(time.Nanosecond)) || st.ModTime().Unix() == old.Unix())
}

func TestApplyLocks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o600))
	lockPath := gatewaylock.LockPath(file)

	// A live process (this one) holds the lock, as the gateway would.
	st, _ := gatewaylock.ProcessStartTime(os.Getpid())
	live := []byte(`{"pid": ` + itoa(os.Getpid()) + `, "createdAt": "` + time.Now().UTC().Format(time.RFC3339Nano) + `", "starttime": ` + itoa(int(st)) + `}`)
	require.NoError(t, os.WriteFile(lockPath, live, 0o644))
	_, err := ApplyFile(t.Context(), file, ApplyOptions{})
	var le *gatewaylock.LockError
	require.ErrorAs(t, err, &le)
	assert.ErrorIs(t, err, gatewaylock.ErrLocked)
	got, _ := os.ReadFile(file)
	assert.Equal(t, smallDamaged, string(got), "a locked file is not touched")
	lb, _ := os.ReadFile(lockPath)
	assert.Equal(t, live, lb, "someone else's lock is left alone")

	// A recycled pid (starttime differs) is stale: refused without --break-stale-locks.
	recycled := []byte(`{"pid": ` + itoa(os.Getpid()) + `, "createdAt": "` + time.Now().UTC().Format(time.RFC3339Nano) + `", "starttime": ` + itoa(int(st)+12345) + `}`)
	require.NoError(t, os.WriteFile(lockPath, recycled, 0o644))
	_, err = ApplyFile(t.Context(), file, ApplyOptions{})
	assert.ErrorIs(t, err, gatewaylock.ErrStaleLock)

	// A dead pid, broken on request.
	dead := []byte(`{"pid": 999999999, "createdAt": "2026-01-01T00:00:00.000Z"}`)
	require.NoError(t, os.WriteFile(lockPath, dead, 0o644))
	rep, err := ApplyFile(t.Context(), file, ApplyOptions{Lock: gatewaylock.LockOptions{BreakStale: true}})
	require.NoError(t, err)
	assert.True(t, rep.Changed)
	require.NotNil(t, rep.StaleLockBroken)
	assert.Contains(t, rep.StaleLockBroken.StaleReasons, "dead-pid")
	_, err = os.Stat(lockPath)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func TestLockPayloadLikeOpenClaw(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	l, err := gatewaylock.AcquireLock(t.Context(), file, gatewaylock.LockOptions{})
	require.NoError(t, err)
	raw, _ := os.ReadFile(l.Path)
	var p struct {
		PID       int    `json:"pid"`
		CreatedAt string `json:"createdAt"`
		Starttime int64  `json:"starttime"`
	}
	require.NoError(t, json.Unmarshal(raw, &p))
	assert.Equal(t, os.Getpid(), p.PID)
	_, err = time.Parse("2006-01-02T15:04:05.000Z", p.CreatedAt)
	assert.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(raw), "{\n  \"pid\": "), "JSON.stringify(payload, null, 2)")
	info, err := gatewaylock.InspectLock(l.Path, time.Now(), 0)
	require.NoError(t, err)
	assert.True(t, info.Alive)
	assert.False(t, info.Stale)
	_, err = gatewaylock.AcquireLock(t.Context(), file, gatewaylock.LockOptions{Wait: 120 * time.Millisecond})
	assert.ErrorIs(t, err, gatewaylock.ErrLocked)
	require.NoError(t, l.Release())
	_, err = os.Stat(l.Path)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

func itoa(n int) string { return strconv.Itoa(n) }

// faultFS fails like a full disk after a number of bytes, or like a
// read-only file system on every create.
type faultFS struct {
	durable.OSFS
	budget   int64 // bytes that may be written in total (-1: unlimited)
	readOnly bool
	written  int64
}

type faultFile struct {
	*os.File
	fs *faultFS
}

func (f faultFile) Write(p []byte) (int, error) {
	if f.fs.budget >= 0 && f.fs.written+int64(len(p)) > f.fs.budget {
		n := int(f.fs.budget - f.fs.written)
		if n < 0 {
			n = 0
		}
		m, _ := f.File.Write(p[:n])
		f.fs.written += int64(m)
		return m, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	n, err := f.File.Write(p)
	f.fs.written += int64(n)
	return n, err
}

func (f *faultFS) CreateTemp(dir, pattern string) (durable.File, error) {
	if f.readOnly {
		return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: syscall.EROFS}
	}
	file, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return faultFile{file, f}, nil
}

func (f *faultFS) CreateExcl(path string, mode os.FileMode) (durable.File, error) {
	if f.readOnly {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EROFS}
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return nil, err
	}
	return faultFile{file, f}, nil
}

func TestApplyDiskFullAndReadOnly(t *testing.T) {
	big := strings.Repeat(smallDamaged, 1) + strings.Repeat(`{"type":"message","id":"x","parentId":"c","timestamp":"2026-05-12T09:00:04.000Z","message":{"role":"user","content":"`+strings.Repeat("z", 4000)+`"}}`+"\n", 50)
	for _, budget := range []int64{0, 100, 5000, int64(len(big)) + 10, int64(len(big)) * 2} {
		dir := t.TempDir()
		file := filepath.Join(dir, "s1.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(big), 0o600))
		fs := &faultFS{budget: budget}
		// the lock is written through the same FS: give it room
		_, err := ApplyFile(t.Context(), file, ApplyOptions{FS: fs})
		if err == nil {
			continue // enough room for everything
		}
		assert.True(t, errors.Is(err, syscall.ENOSPC), "budget %d: %v", budget, err)
		assert.Contains(t, err.Error(), "no space left on device")
		got, _ := os.ReadFile(file)
		assert.Equal(t, big, string(got), "budget %d: original untouched", budget)
		assert.Equal(t, []string{"s1.jsonl"}, listDir(t, dir), "budget %d: no temp, backup, quarantine or lock left", budget)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(smallDamaged), 0o600))
	_, err := ApplyFile(t.Context(), file, ApplyOptions{FS: &faultFS{budget: -1, readOnly: true}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, syscall.EROFS), "%v", err)
	assert.Contains(t, err.Error(), "read-only file system")
	got, _ := os.ReadFile(file)
	assert.Equal(t, smallDamaged, string(got))
	assert.Equal(t, []string{"s1.jsonl"}, listDir(t, dir))
}

// renderLineByLine is Render as it was written before it copied the spans
// between edits whole: every line read, an untouched one written with its
// line end (FuzzPlan and TestRenderSpans compare the two).
func renderLineByLine(p *Plan, r io.Reader, w io.Writer, q io.Writer) error {
	rd := jsonl.NewReader(r)
	next := 0
	qenc := json.NewEncoder(q)
	qenc.SetEscapeHTML(false)
	for {
		ln, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if next < len(p.edits) && p.edits[next].line == ln.Num {
			ed := p.edits[next]
			next++
			if err := p.renderEdited(w, ln, ed); err != nil {
				return err
			}
			if !ed.keep {
				if err := qenc.Encode(quarantineRecord(ln, ed)); err != nil {
					return err
				}
			}
			continue
		}
		term := ln.Term.Bytes()
		if ln.Term == jsonl.TermNone && p.finalNL {
			term = []byte{'\n'}
		}
		if err := writeAll(w, append(append([]byte(nil), ln.Data...), term...)); err != nil {
			return err
		}
	}
	if next != len(p.edits) {
		return ErrFileChanged
	}
	return nil
}

// TestRenderSpans: Render writes what a render line by line writes on
// damaged files of every shape, and refuses an original that is not the one
// planned (cut, grown, an edited line changed or moved) with ErrFileChanged.
func TestRenderSpans(t *testing.T) {
	entry := func(id, parent string) string {
		return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"t","message":{"role":"user","content":"x"}}`
	}
	hdr := `{"type":"session","version":3,"id":"0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b","timestamp":"t","cwd":"/"}`
	files := map[string]string{
		"middle":          hdr + "\n" + entry("a", "") + "\n{broken\n" + entry("b", "a") + "\n",
		"crlf":            hdr + "\r\n" + entry("a", "") + "\r\n{broken\r\n" + entry("b", "a") + "\r\n",
		"last cut":        hdr + "\n" + entry("a", "") + "\n" + entry("b", "a")[:40],
		"no final NL":     hdr + "\n{broken\n" + entry("a", "") + "\n" + entry("b", "a"),
		"blank last line": hdr + "\n{broken\n" + entry("a", "") + "\n   ",
		"first line":      "garbage\n" + hdr + "\n" + entry("a", ""),
		"glued":           hdr + "\n" + entry("a", "") + entry("b", "a") + "\n" + entry("c", "b") + "\n",
		"header lost":     hdr[:30] + "\n" + entry("a", "") + "\n" + entry("b", "a") + "\n",
		"long untouched":  hdr + "\n" + strings.Repeat(entry("a", "")+"\n", 40000) + "{broken\n",
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			p, err := PlanReader(strings.NewReader(data), "0197a3c2-5d1e-7f00-9b2a-4c5d6e7f8a9b.jsonl", Options{NewID: func() string { return "x" }})
			require.NoError(t, err)
			require.True(t, p.Changed())
			var out, q, refOut, refQ bytes.Buffer
			require.NoError(t, p.Render(strings.NewReader(data), &out, &q))
			require.NoError(t, renderLineByLine(p, strings.NewReader(data), &refOut, &refQ))
			assert.Equal(t, refOut.String(), out.String())
			assert.Equal(t, refQ.String(), q.String())

			last := p.edits[len(p.edits)-1]
			changed := map[string]string{
				"cut":                      data[:len(data)-1],
				"grew":                     data + entry("z", "y") + "\n",
				"cut before the last edit": data[:last.off],
				"edited line moved":        "\n" + data,
			}
			if !last.keep {
				b := []byte(data)
				b[last.off] ^= 0x20
				changed["edited line changed"] = string(b)
			}
			for how, other := range changed {
				err := p.Render(strings.NewReader(other), io.Discard, io.Discard)
				assert.ErrorIs(t, err, ErrFileChanged, how)
			}
		})
	}
}
