// Package durabletest is the test suite every write path of oc runs
// against (as restic runs one backend suite against every backend): a
// recording file system that logs each call oc makes through durable.FS,
// models what a crash would leave (data not fsynced is lost, a rename not
// followed by an fsync of its folder may be undone), fails any one call on
// demand (ENOSPC, EIO, a failing rename, no exchange) or stops everything
// after a given call (a crash), and Run, which drives one write path through
// all of that and checks what it left.
package durabletest

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/openclaw-tools/oc/internal/durable"
)

// ErrCrashed is what every call returns once the simulated crash happened.
var ErrCrashed = errors.New("simulated crash: nothing more reaches the disk")

// Op is one recorded call.
type Op struct {
	Kind  string // create, write, sync, close, chmod, chown, rename, rename-noreplace, exchange, link, remove, mkdir, syncdir
	Path  string // absolute
	Path2 string // the second name of rename, exchange and link
	Inode int    // the file written, synced or closed (0 otherwise)
	Err   error  // what the call returned
}

func (o Op) String() string {
	s := o.Kind + " " + filepath.Base(o.Path)
	if o.Path2 != "" {
		s += " -> " + filepath.Base(o.Path2)
	}
	if o.Err != nil {
		s += " (" + o.Err.Error() + ")"
	}
	return s
}

// Fault fails one call: the n-th (counting from 1) fails with Err and has
// no effect.
type Fault struct {
	N   int
	Err error
}

// FS is a durable.FS on the real folder Root that records every call and
// keeps a model of what is durable. It is safe for concurrent use.
type FS struct {
	Root string
	// Fault, when set, fails one call.
	Fault Fault
	// CrashAt, when > 0, is the first call that fails with ErrCrashed,
	// without effect, as does every later one (a kill right after call
	// CrashAt-1: no clean-up reaches the disk either).
	CrashAt int

	mu     sync.Mutex
	log    []Op
	n      int
	inodes map[int]*inode
	next   int
	dirs   map[string]*folder
}

type inode struct {
	data, synced []byte
	written      bool // written through this FS
}

type folder struct {
	cur, synced map[string]int // name -> inode
}

// New records calls on the files below root, which it takes as durable as
// they are now.
func New(root string) *FS {
	f := &FS{Root: root, inodes: map[int]*inode{}, dirs: map[string]*folder{}}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			f.folder(p)
		}
		return nil
	})
	return f
}

// folder is the model of dir, loaded from the disk when first seen (its
// files are then taken as durable).
func (f *FS) folder(dir string) *folder {
	dir = filepath.Clean(dir)
	if d, ok := f.dirs[dir]; ok {
		return d
	}
	d := &folder{cur: map[string]int{}, synced: map[string]int{}}
	f.dirs[dir] = d
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		id := f.newInode()
		f.inodes[id].data, f.inodes[id].synced = raw, raw
		d.cur[e.Name()], d.synced[e.Name()] = id, id
	}
	return d
}

func (f *FS) newInode() int {
	f.next++
	f.inodes[f.next] = &inode{}
	return f.next
}

// name splits path into its folder's model and base name.
func (f *FS) name(path string) (*folder, string) {
	return f.folder(filepath.Dir(path)), filepath.Base(path)
}

// Log is a copy of the calls recorded so far.
func (f *FS) Log() []Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}

// begin counts a call and says whether it may happen: a fault or the crash
// returns the error to give instead.
func (f *FS) begin(kind string) error {
	f.n++
	switch {
	case f.CrashAt > 0 && f.n >= f.CrashAt:
		return ErrCrashed
	case f.Fault.N == f.n:
		return f.Fault.Err
	}
	return nil
}

func (f *FS) record(op Op) error {
	f.log = append(f.log, op)
	return op.Err
}

// CreateTemp implements durable.FS.
func (f *FS) CreateTemp(dir, pattern string) (durable.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("create"); err != nil {
		return nil, f.record(Op{Kind: "create", Path: filepath.Join(dir, pattern), Err: &os.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: err}})
	}
	file, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, f.record(Op{Kind: "create", Path: filepath.Join(dir, pattern), Err: err})
	}
	return f.opened(file), nil
}

// CreateExcl implements durable.FS.
func (f *FS) CreateExcl(path string, mode os.FileMode) (durable.File, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.begin("create"); err != nil {
		return nil, f.record(Op{Kind: "create", Path: path, Err: &os.PathError{Op: "open", Path: path, Err: err}})
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return nil, f.record(Op{Kind: "create", Path: path, Err: err})
	}
	return f.opened(file), nil
}

func (f *FS) opened(file *os.File) durable.File {
	d, base := f.name(file.Name())
	id := f.newInode()
	d.cur[base] = id
	f.record(Op{Kind: "create", Path: file.Name(), Inode: id})
	return &recFile{fs: f, f: file, id: id}
}

// Rename implements durable.FS.
func (f *FS) Rename(oldpath, newpath string) error {
	return f.move("rename", oldpath, newpath, func() error { return os.Rename(oldpath, newpath) })
}

// RenameNoReplace implements durable.FS.
func (f *FS) RenameNoReplace(oldpath, newpath string) error {
	return f.move("rename-noreplace", oldpath, newpath, func() error { return durable.OSFS{}.RenameNoReplace(oldpath, newpath) })
}

func (f *FS) move(kind, oldpath, newpath string, do func() error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	op := Op{Kind: kind, Path: oldpath, Path2: newpath}
	if err := f.begin(kind); err != nil {
		op.Err = &os.LinkError{Op: kind, Old: oldpath, New: newpath, Err: err}
		return f.record(op)
	}
	if op.Err = do(); op.Err == nil {
		od, ob := f.name(oldpath)
		nd, nb := f.name(newpath)
		id, ok := od.cur[ob]
		delete(od.cur, ob)
		if ok {
			nd.cur[nb] = id
		}
	}
	return f.record(op)
}

// Exchange implements durable.FS.
func (f *FS) Exchange(a, b string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	op := Op{Kind: "exchange", Path: a, Path2: b}
	if err := f.begin("exchange"); err != nil {
		op.Err = err
		if !errors.Is(err, durable.ErrNoExchange) {
			op.Err = &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
		}
		return f.record(op)
	}
	if op.Err = (durable.OSFS{}).Exchange(a, b); op.Err == nil {
		ad, ab := f.name(a)
		bd, bb := f.name(b)
		ia, oka := ad.cur[ab]
		ib, okb := bd.cur[bb]
		delete(ad.cur, ab)
		delete(bd.cur, bb)
		if okb {
			ad.cur[ab] = ib
		}
		if oka {
			bd.cur[bb] = ia
		}
	}
	return f.record(op)
}

// Link implements durable.FS.
func (f *FS) Link(oldpath, newpath string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	op := Op{Kind: "link", Path: oldpath, Path2: newpath}
	if err := f.begin("link"); err != nil {
		op.Err = &os.LinkError{Op: "link", Old: oldpath, New: newpath, Err: err}
		return f.record(op)
	}
	if op.Err = os.Link(oldpath, newpath); op.Err == nil {
		od, ob := f.name(oldpath)
		nd, nb := f.name(newpath)
		if id, ok := od.cur[ob]; ok {
			nd.cur[nb] = id
		}
	}
	return f.record(op)
}

// Remove implements durable.FS.
func (f *FS) Remove(path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	op := Op{Kind: "remove", Path: path}
	if err := f.begin("remove"); err != nil {
		op.Err = &os.PathError{Op: "remove", Path: path, Err: err}
		return f.record(op)
	}
	if op.Err = os.Remove(path); op.Err == nil {
		d, b := f.name(path)
		delete(d.cur, b)
	}
	return f.record(op)
}

// Mkdir implements durable.FS. A folder is modelled as durable once it
// exists (its entry in its parent is not modelled).
func (f *FS) Mkdir(path string, perm os.FileMode) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	op := Op{Kind: "mkdir", Path: path}
	if err := f.begin("mkdir"); err != nil {
		op.Err = &os.PathError{Op: "mkdir", Path: path, Err: err}
		return f.record(op)
	}
	if op.Err = os.Mkdir(path, perm); op.Err == nil {
		f.folder(path)
	}
	return f.record(op)
}

// SyncDir implements durable.FS.
func (f *FS) SyncDir(dir string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	op := Op{Kind: "syncdir", Path: dir}
	if err := f.begin("syncdir"); err != nil {
		op.Err = &os.PathError{Op: "fsync", Path: dir, Err: err}
		return f.record(op)
	}
	if op.Err = (durable.OSFS{}).SyncDir(dir); op.Err == nil {
		d := f.folder(dir)
		d.synced = maps.Clone(d.cur)
	}
	return f.record(op)
}

// recFile is a file created through FS: its writes, fsyncs and close are
// recorded (and modelled).
type recFile struct {
	fs *FS
	f  *os.File
	id int
}

func (r *recFile) Name() string { return r.f.Name() }

func (r *recFile) Write(p []byte) (int, error) {
	r.fs.mu.Lock()
	defer r.fs.mu.Unlock()
	op := Op{Kind: "write", Path: r.f.Name(), Inode: r.id}
	if err := r.fs.begin("write"); err != nil {
		op.Err = &os.PathError{Op: "write", Path: r.f.Name(), Err: err}
		return 0, r.fs.record(op)
	}
	n, err := r.f.Write(p)
	in := r.fs.inodes[r.id]
	in.data = append(in.data, p[:n]...)
	in.written = true
	op.Err = err
	return n, r.fs.record(op)
}

func (r *recFile) Sync() error {
	return r.call("sync", r.f.Sync, func(in *inode) { in.synced = slices.Clone(in.data) })
}

func (r *recFile) Close() error { return r.call("close", r.f.Close, nil) }

func (r *recFile) Chmod(mode os.FileMode) error {
	return r.call("chmod", func() error { return r.f.Chmod(mode) }, nil)
}

func (r *recFile) Chown(uid, gid int) error {
	return r.call("chown", func() error { return r.f.Chown(uid, gid) }, nil)
}

func (r *recFile) call(kind string, do func() error, model func(*inode)) error {
	r.fs.mu.Lock()
	defer r.fs.mu.Unlock()
	op := Op{Kind: kind, Path: r.f.Name(), Inode: r.id}
	if err := r.fs.begin(kind); err != nil {
		op.Err = &os.PathError{Op: kind, Path: r.f.Name(), Err: err}
		if kind == "close" {
			_ = r.f.Close() // the descriptor is gone whatever close says
		}
		return r.fs.record(op)
	}
	if op.Err = do(); op.Err == nil && model != nil {
		model(r.fs.inodes[r.id])
	}
	return r.fs.record(op)
}

// State is the files below Root (slash-separated paths relative to it ->
// content) as a moment leaves them.
type State struct {
	Name  string
	Files map[string][]byte
	// New are the files that did not exist when the write started (set
	// by Run), sorted.
	New []string
}

// Live reads the files below Root as they are on disk now.
func (f *FS) Live() State {
	s := State{Name: "on disk", Files: map[string][]byte{}}
	_ = filepath.WalkDir(f.Root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if raw, err := os.ReadFile(p); err == nil {
				s.Files[f.rel(p)] = raw
			}
		}
		return nil
	})
	return s
}

// CrashStates are what a crash (power loss) right now could leave, at the
// two extremes: every name change reached the disk but only fsynced data
// did, and only what was fsynced (names as of each folder's last fsync,
// data as of each file's). A file never fsynced is empty.
func (f *FS) CrashStates() []State {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := State{Name: "crash: names as now, data as fsynced", Files: map[string][]byte{}}
	synced := State{Name: "crash: names and data as fsynced", Files: map[string][]byte{}}
	for dir, d := range f.dirs {
		for name, id := range d.cur {
			names.Files[f.rel(filepath.Join(dir, name))] = f.inodes[id].synced
		}
		for name, id := range d.synced {
			synced.Files[f.rel(filepath.Join(dir, name))] = f.inodes[id].synced
		}
	}
	return []State{names, synced}
}

func (f *FS) rel(p string) string {
	r, err := filepath.Rel(f.Root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// CheckOrder checks the order of the recorded calls: every name a file
// is published under (a rename, exchange or link to a name that is not a
// temporary one) names a file whose last write was followed by an fsync
// and then its close before the publishing call, and the folder of that
// name is fsynced after it. A file is never created under its final name,
// except a lock file (OpenClaw's lock protocol is O_EXCL on the name).
func CheckOrder(log []Op) error {
	type fileState struct{ wrote, syncedAfter, closedAfter bool }
	files := map[int]*fileState{}
	owner := map[string]int{} // path -> inode, for files created through FS
	var problems []string
	for i, op := range log {
		if op.Err != nil {
			continue
		}
		switch op.Kind {
		case "create":
			files[op.Inode] = &fileState{}
			owner[op.Path] = op.Inode
			if !durable.IsTempName(filepath.Base(op.Path)) && !strings.HasSuffix(op.Path, ".lock") {
				problems = append(problems, fmt.Sprintf("call %d: %s created under its final name", i+1, filepath.Base(op.Path)))
			}
		case "write":
			*files[op.Inode] = fileState{wrote: true}
		case "sync":
			if s := files[op.Inode]; s.wrote && !s.closedAfter {
				s.syncedAfter = true
			}
		case "close":
			if s := files[op.Inode]; s.syncedAfter {
				s.closedAfter = true
			}
		case "rename", "rename-noreplace", "link", "exchange":
			type move struct{ from, to string }
			moves := []move{{op.Path, op.Path2}}
			if op.Kind == "exchange" {
				moves = append(moves, move{op.Path2, op.Path})
			}
			before := maps.Clone(owner)
			if op.Kind == "rename" || op.Kind == "rename-noreplace" {
				delete(owner, op.Path)
			}
			for _, m := range moves {
				id, ours := before[m.from]
				if ours {
					owner[m.to] = id
				} else {
					delete(owner, m.to)
				}
				base := filepath.Base(m.to)
				if durable.IsTempName(base) || strings.Contains(base, durable.ConflictInfix) {
					continue
				}
				if s := files[id]; ours && s.wrote && !s.closedAfter {
					problems = append(problems, fmt.Sprintf("call %d: %s published before its last write was fsynced and closed", i+1, base))
				}
				if !syncedLater(log[i+1:], filepath.Dir(m.to)) {
					problems = append(problems, fmt.Sprintf("call %d: %s published and its folder never fsynced after", i+1, base))
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("order of the calls:\n  %s\ncalls:\n  %s", strings.Join(problems, "\n  "), strings.Join(opStrings(log), "\n  "))
	}
	return nil
}

func syncedLater(rest []Op, dir string) bool {
	for _, op := range rest {
		if op.Kind == "syncdir" && op.Err == nil && filepath.Clean(op.Path) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

func opStrings(log []Op) []string {
	out := make([]string, len(log))
	for i, op := range log {
		out[i] = fmt.Sprintf("%d %s", i+1, op)
	}
	return out
}

// faultsFor are the failures injected into a call of this kind.
func faultsFor(kind string) []error {
	switch kind {
	case "create", "mkdir":
		return []error{syscall.ENOSPC}
	case "write":
		return []error{syscall.ENOSPC, syscall.EIO}
	case "sync", "close", "remove", "syncdir":
		return []error{syscall.EIO}
	case "chmod", "chown":
		return []error{syscall.EPERM}
	case "link":
		return []error{syscall.EIO, syscall.EXDEV}
	case "exchange":
		return []error{syscall.EIO, durable.ErrNoExchange}
	case "rename", "rename-noreplace":
		return []error{syscall.EIO}
	}
	return nil
}
