package durable

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TempPrefix is how oc's temporary files in a transcript's folder begin:
// "." + base name + TempPrefix + random. A run killed before its rename leaves
// one behind; RemoveStaleTemps deletes them.
const TempPrefix = ".oc-tmp-"

// AtomicOptions tune ReplaceAtomic.
type AtomicOptions struct {
	FS FS // nil: OSFS
	// Mode, UID and GID of the new file. With KeepFrom set they are copied
	// from that file (the original being replaced).
	Mode     os.FileMode
	UID, GID int
	KeepFrom os.FileInfo
	// BeforeRename runs after the temp file is complete and synced, just
	// before the swap: the last moment to give up (e.g. the original
	// changed under us).
	BeforeRename func() error
	// Displaced, when set, makes the swap an atomic exchange of the two
	// names (renameat2 RENAME_EXCHANGE) and then judges what it displaced,
	// under its new (temporary) name: an error means a writer replaced the
	// file between BeforeRename's check and the swap, so the exchange is
	// undone (that writer's version is back under path, nothing of it is
	// lost) and the error is returned. Where names cannot be exchanged,
	// BeforeRename is the last check and a rename replaces the file.
	Displaced func(name string) error
	// AfterRename runs as soon as the new content is in place, before the
	// folder is fsynced: from then on the new content is in place even if
	// an error (of that fsync) is returned.
	AfterRename func()
}

// ReplaceAtomic replaces path with what write produces, so that a crash at
// any moment leaves either the old or the new content: the temp file is
// created in the same folder, written, fsynced, closed, given the old
// file's mode and owner, renamed over path (or exchanged with it, see
// Displaced), and the folder is fsynced. On any error before the swap the
// temp file is removed and path is untouched. A cancelled ctx stops the
// write and is checked again before the swap, never after.
func ReplaceAtomic(ctx context.Context, path string, opts AtomicOptions, write func(w io.Writer) error) (err error) {
	fsys := orOS(opts.FS)
	dir := filepath.Dir(path)
	mode, uid, gid := opts.Mode, opts.UID, opts.GID
	if mode == 0 {
		mode = 0o600
	}
	chown := false
	if st := opts.KeepFrom; st != nil {
		mode = st.Mode().Perm()
		if u, g, ok := FileOwner(st); ok {
			uid, gid = u, g
			chown = true
		}
	}
	var chownFn func(File) error
	if chown && os.Geteuid() == 0 {
		chownFn = func(f File) error { return f.Chown(uid, gid) }
	}
	t, err := createTemp(ctx, fsys, path, mode, chownFn, false)
	if err != nil {
		return err
	}
	handled := false // the temp file was renamed, or exchangeInto dealt with it
	defer func() {
		if !handled {
			t.Discard()
		}
	}()
	if err = write(t); err != nil {
		return fmt.Errorf("%s: write: %w", t.name, err)
	}
	if _, err = t.Commit(); err != nil {
		return err
	}
	if opts.BeforeRename != nil {
		if err = opts.BeforeRename(); err != nil {
			return err
		}
	}
	if err = ctx.Err(); err != nil {
		return err
	}
	afterRename := func() {
		handled = true
		if opts.AfterRename != nil {
			opts.AfterRename()
		}
	}
	if opts.Displaced != nil {
		outcome, err := exchangeInto(fsys, t.name, path, opts.Displaced)
		switch {
		case outcome == exchangeUndone:
			handled = true
			return err
		case outcome == exchangeReplaced && err != nil:
			afterRename() // ours is in place, the other version kept aside
			_ = fsys.SyncDir(dir)
			return err
		case outcome == exchangeReplaced:
			afterRename()
			// t.name now holds what was replaced: removed whatever the
			// fsync says (a leftover name otherwise).
			serr := fsys.SyncDir(dir)
			_ = fsys.Remove(t.name)
			if serr != nil {
				return folderSyncError(dir, serr)
			}
			return nil
		case !errors.Is(err, ErrNoExchange) && !errors.Is(err, fs.ErrNotExist):
			return err
		}
		// No exchange here, or nothing to exchange with (path absent):
		// BeforeRename's check was the last one.
	}
	if err = fsys.Rename(t.name, path); err != nil {
		return fmt.Errorf("%s: rename: %w", path, err)
	}
	afterRename()
	if err := fsys.SyncDir(dir); err != nil {
		// The rename happened; only its durability is in doubt. Report it but
		// do not remove anything.
		return folderSyncError(dir, err)
	}
	return nil
}

// Outcomes of exchangeInto.
const (
	exchangeFailed   = iota // nothing happened: tmp is still our temp file
	exchangeReplaced        // the new content is in place; tmp names what it replaced
	exchangeUndone          // another writer's version was displaced and put back
)

// exchangeInto exchanges tmp and path and judges what it displaced with
// displaced. When that finds another writer's version, the exchange is
// undone (exchangeUndone; the error says what became of each version); when
// even that fails, ours stays in place (exchangeReplaced with the error). Our own file is held open meanwhile, so that
// its inode (and inode number) cannot be given to anyone else, and identity
// tells whether the name tmp still holds it after the exchange back: when a
// third writer replaced our short-lived version, theirs is kept under a
// conflict name rather than removed.
func exchangeInto(fsys FS, tmp, path string, displaced func(name string) error) (outcome int, err error) {
	ours, err := os.Open(tmp)
	if err != nil {
		return exchangeFailed, err
	}
	defer ours.Close()
	ourSt, err := ours.Stat()
	if err != nil {
		return exchangeFailed, err
	}
	if err := fsys.Exchange(tmp, path); err != nil {
		if errors.Is(err, ErrNoExchange) || errors.Is(err, fs.ErrNotExist) {
			return exchangeFailed, err
		}
		return exchangeFailed, fmt.Errorf("%s: exchange: %w", path, err)
	}
	derr := displaced(tmp)
	if derr == nil {
		return exchangeReplaced, nil
	}
	dir := filepath.Dir(path)
	if err := fsys.Exchange(tmp, path); err != nil {
		// Ours stays in place; the other writer's version is kept visible.
		return exchangeReplaced, fmt.Errorf("%w, and putting the other version back failed (it is in %s): %v", derr, keepConflict(fsys, path, tmp), err)
	}
	if st, err := os.Lstat(tmp); err != nil || !os.SameFile(st, ourSt) {
		kept := keepConflict(fsys, path, tmp)
		_ = fsys.SyncDir(dir)
		return exchangeUndone, fmt.Errorf("%w; a third writer replaced our version meanwhile, its version is kept in %s", derr, kept)
	}
	_ = fsys.Remove(tmp)
	_ = fsys.SyncDir(dir)
	return exchangeUndone, derr
}

// ConflictInfix names a file holding another writer's version that a
// compare-and-swap displaced and could not put back: "<file>.oc-conflict-<ns>".
// No clean-up (oc's temp-file removal included) takes it for a leftover.
const ConflictInfix = ".oc-conflict-"

// keepConflict gives tmp a visible conflict name beside path, and returns
// the name the file has now.
func keepConflict(fsys FS, path, tmp string) string {
	name := fmt.Sprintf("%s%s%d", path, ConflictInfix, time.Now().UnixNano())
	if err := fsys.RenameNoReplace(tmp, name); err != nil {
		return tmp
	}
	return name
}

func newBufWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 256<<10) }

// IsTempName reports whether a file name is one of oc's temporary names
// (".<name>.oc-tmp-<random>"): a leftover of an interrupted write, which
// RemoveStaleTemps and oc doctor --fix remove.
func IsTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, TempPrefix)
}

// isTempOf reports whether name is one of oc's temporary files for the file
// base: ".<base>.oc-tmp-*" (the replacement), ".<base>.rejected-<stamp>.oc-tmp-*"
// (a quarantine file) or ".<base>.bak-oc-<stamp>[...].oc-tmp-*" (a backup or
// its manifest).
func isTempOf(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base)
	if !ok {
		return false
	}
	i := strings.Index(rest, TempPrefix)
	if i < 0 {
		return false
	}
	mid := rest[:i]
	return mid == "" || strings.HasPrefix(mid, ".rejected-") || strings.HasPrefix(mid, BackupInfix)
}

// RemoveStaleTemps removes temporary files an interrupted oc run left beside
// path (see isTempOf) that are older than minAge, and returns their names.
func RemoveStaleTemps(path string, minAge time.Duration, now time.Time) []string {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !isTempOf(e.Name(), base) {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < minAge {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}
