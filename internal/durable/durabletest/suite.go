package durabletest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/durable"
)

// Case is one write path: what it starts from, the write, and what a state
// of the folder may be.
type Case struct {
	// Setup fills the empty folder dir with what the write starts from.
	Setup func(t *testing.T, dir string)
	// Write performs the write through fsys, on the files of dir.
	Write func(ctx context.Context, fsys durable.FS, dir string) error
	// Check says what is wrong with a state of the folder (nil: nothing).
	// ok tells whether the write had returned success: then its result
	// must be complete and durable in every state. Without it the user's
	// file must be its old or its new version, whole. Leftover temporary
	// files are judged by Run, not by Check: s.New lists them too.
	Check func(s State, ok bool) error
	// Leaves says whether a file the write makes besides its target may
	// exist under this name (a backup, a manifest); nil: none. Anything
	// else new in a state must carry a temporary name.
	Leaves func(name string) bool
}

// Run drives c's write through the recording file system:
//
//   - once without faults: it must succeed, in the documented order of
//     calls (CheckOrder: write, fsync, close, rename, fsync of the folder),
//     and its result must be what Check wants on disk and in every crash
//     state (so a missing fsync of the file or of the folder fails);
//   - once per call of that run with that call failing (ENOSPC and EIO on
//     writes, EIO on fsync, close and rename, EXDEV on link, no exchange):
//     the folder on disk and every crash state must pass Check, and when
//     the write failed no temporary file may be left, except one whose
//     removal was the failing call (its name marks it as oc's leftover:
//     oc doctor reports it and the next write removes it);
//   - once per call with a crash right before it: every crash state must
//     pass Check, and what is left besides must carry a temporary name.
func Run(t *testing.T, c Case) {
	t.Helper()
	clean, calls := runOnce(t, c, Fault{}, 0)
	if clean.err != nil {
		t.Fatalf("without faults: %v", clean.err)
	}
	if err := CheckOrder(calls); err != nil {
		t.Fatal(err)
	}
	for k, op := range calls {
		for _, ferr := range faultsFor(op.Kind) {
			name := fmt.Sprintf("call %d %s fails with %v", k+1, op.Kind, ferr)
			t.Run(name, func(t *testing.T) {
				r, _ := runOnce(t, c, Fault{N: k + 1, Err: ferr}, 0)
				if r.err != nil && op.Kind != "remove" {
					if left := temps(r.live); len(left) > 0 {
						t.Errorf("the write failed (%v) and left %v", r.err, left)
					}
				}
			})
		}
	}
	for k, op := range calls {
		t.Run(fmt.Sprintf("crash before call %d %s", k+1, op), func(t *testing.T) {
			runOnce(t, c, Fault{}, k+1)
		})
	}
}

type result struct {
	err  error
	live State
}

// runOnce runs the write once in a fresh folder and checks the state on
// disk and every crash state.
func runOnce(t *testing.T, c Case, fault Fault, crashAt int) (result, []Op) {
	t.Helper()
	dir := t.TempDir()
	c.Setup(t, dir)
	fsys := New(dir)
	initial := fsys.Live()
	fsys.Fault, fsys.CrashAt = fault, crashAt
	err := c.Write(context.Background(), fsys, dir)
	ok := err == nil
	states := fsys.CrashStates()
	live := fsys.Live()
	if crashAt == 0 {
		states = append([]State{live}, states...)
	}
	for _, s := range states {
		s.New = newFiles(s, initial)
		if cerr := c.Check(s, ok); cerr != nil {
			t.Errorf("%s (the write returned %v): %v\nfiles: %v\ncalls:\n  %s", s.Name, err, cerr, s.New, strings.Join(opStrings(fsys.Log()), "\n  "))
		}
		for _, n := range s.New {
			base := path.Base(n)
			if !durable.IsTempName(base) && (c.Leaves == nil || !c.Leaves(n)) {
				t.Errorf("%s: %s left, neither a temporary name nor one the write makes", s.Name, n)
			}
		}
	}
	return result{err: err, live: live}, fsys.Log()
}

func newFiles(s State, initial State) []string {
	var out []string
	for n := range s.Files {
		if _, ok := initial.Files[n]; !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// temps are the temporary names among s.New.
func temps(s State) []string {
	var out []string
	for n := range s.Files {
		if durable.IsTempName(path.Base(n)) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// OldOrNew checks that file in s is old or new, whole (new when ok), and
// names which (true: new).
func OldOrNew(s State, file string, old, new []byte, ok bool) (bool, error) {
	got, present := s.Files[file]
	switch {
	case ok && (!present || !bytes.Equal(got, new)):
		return false, fmt.Errorf("%s: the write succeeded but the file is not its new version (%s)", file, describe(got, present, old, new))
	case present && bytes.Equal(got, new):
		return true, nil
	case old != nil && present && bytes.Equal(got, old):
		return false, nil
	case old == nil && !present:
		return false, nil
	}
	return false, fmt.Errorf("%s: neither the old nor the new version (%s)", file, describe(got, present, old, new))
}

func describe(got []byte, present bool, old, new []byte) string {
	if !present {
		return "absent"
	}
	return fmt.Sprintf("%d bytes; old %d, new %d", len(got), len(old), len(new))
}

// ErrUnexpected is what a Check returns for a file it does not expect.
var ErrUnexpected = errors.New("unexpected file")
