// Package replayinput is the session `oc replay` reads, in either era: the
// SESSION argument resolved in a state dir (a transcript path, stdin, or a
// session of the store by key, id or prefix), and its context built by the
// rules of the release that replays it: 2026.5.6 reads a file (a SQLite
// session exported to one), 2026.9.6 its own active branch of the stored
// rows (a JSONL file imported first, as 9.6 would).
package replayinput

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/context96"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

// Source says where a replayed session came from, and so which release
// replays it by default: the install's era.
type Source struct {
	// Era is the install's: SQLite for a session read from a database or
	// resolved in a state dir that has SQLite databases, JSONL otherwise
	// (also for a transcript named by its path, and for stdin).
	Era store.Era
	// From names the database a SQLite session was read from ("" for a file).
	From string
	// Name is how output names a SQLite session: its key and database (its
	// temporary export is gone once read). "" for a file: its path.
	Name string
}

// DefaultRelease is the release of the install's era: 2026.9.6 for the
// SQLite era, 2026.5.6 for JSONL.
func (s Source) DefaultRelease() policy.Release {
	if s.Era == store.EraSQLite {
		return policy.Release96
	}
	return policy.Release56
}

// Describe says why the default release applies.
func (s Source) Describe() string {
	if s.Era == store.EraSQLite {
		return "the install's era: SQLite"
	}
	return "the install's era: JSONL"
}

// Session is a SESSION argument resolved: a transcript file (Path, "-" for
// stdin), or a SQLite session read through the store (Stored set, Path "").
type Session struct {
	Path   string
	Stored *Stored
	Source Source
}

// Stored is a SQLite session resolved for replay: read through the store,
// either as its rows (2026.9.6's context) or exported to a temporary JSONL
// file (2026.5.6's rules read files).
type Stored struct {
	State   *store.State
	Session store.Session
}

// Rows reads the session's rows in export order (header first).
func (s *Stored) Rows(ctx context.Context) ([][]byte, error) {
	var rows [][]byte
	if _, err := s.State.Rows(ctx, s.Session, nil, func(_ int64, line []byte) error {
		rows = append(rows, line)
		return nil
	}); err != nil {
		return nil, err
	}
	return rows, nil
}

// Resolve turns SESSION into what the replay pipeline reads: a path or a
// JSONL session as a file; a SQLite session (either era's key, id or
// prefix) as Stored. skipped is told of each sessions.json the lookup
// passed over (store.State.SkippedIndexes). An ambiguous prefix is a
// *store.AmbiguousError.
func Resolve(ctx context.Context, stateDir, arg string, skipped func(string)) (*Session, error) {
	ses := &Session{Source: Source{Era: store.EraJSONL}}
	if arg == "-" || store.IsTranscriptPath(arg) || store.LooksLikePath(arg) && !store.LooksLikeArchiveName(arg) {
		p, err := replay.FindSession(stateDir, arg)
		if err != nil {
			return nil, err
		}
		ses.Path = p
		return ses, nil
	}
	st, err := store.Open(stateDir, store.Options{})
	if err != nil {
		return nil, err
	}
	for _, s := range st.SkippedIndexes() {
		skipped(s)
	}
	if st.HasSQLite() {
		// A JSONL transcript left in a SQLite-era state dir is imported and
		// replayed by the installed release.
		ses.Source.Era = store.EraSQLite
	}
	found, err := st.Resolve(ctx, arg)
	if err != nil {
		var amb *store.AmbiguousError
		if errors.As(err, &amb) {
			return nil, err
		}
		// The old lookup (a session id under agents/*/sessions) still answers
		// for what the store does not list.
		if p, ferr := replay.FindSession(stateDir, arg); ferr == nil {
			ses.Path = p
			return ses, nil
		}
		return nil, err
	}
	if found.Era == store.EraJSONL {
		ses.Path = found.Path
		return ses, nil
	}
	ses.Source = Source{Era: store.EraSQLite,
		From: "session " + found.Label() + " read from " + found.Path,
		Name: found.Label() + " in " + found.Path}
	ses.Stored = &Stored{State: st, Session: found}
	return ses, nil
}

// Input is a session's context as one release builds it, and its decoded
// messages.
type Input struct {
	Path     string
	Source   Source
	Context  *transcript.Context
	Messages []replay.Message
	// ModelSnapshots and SessionVersion are what 2026.9.6 reads of a SQLite
	// session beside its context (none for a file).
	ModelSnapshots []replay.ModelSnapshot
	SessionVersion int
	// Newer is the same session as 2026.9.6 reads it (its import, its
	// active branch, its bounded read), when two releases are compared;
	// this input is then 2026.5.6's.
	Newer *Input
}

// ForRelease is the input rel reads: each release builds its own context.
func (in *Input) ForRelease(rel policy.Release) *Input {
	if rel == policy.Release96 && in.Newer != nil {
		return in.Newer
	}
	return in
}

// LoadOptions say how Load builds the context.
type LoadOptions struct {
	// Releases are the releases the replay follows (see ContextOf96).
	Releases []policy.Release
	// Limits bound 2026.9.6's read of a session.
	Limits context96.Limits
	// Decode decodes the messages; KeepText keeps the context's text after
	// (the context stage prints it).
	Decode, KeepText bool
	// Stdin is read when the session is "-".
	Stdin io.Reader
}

// Load builds the context of a resolved session.
func Load(ctx context.Context, ses *Session, o LoadOptions) (*Input, error) {
	in := &Input{Path: ses.Path, Source: ses.Source}
	var err error
	switch {
	case ses.Stored != nil && ContextOf96(o.Releases):
		// 2026.9.6 builds the context from its own active branch.
		in.Path = ses.Source.Name
		var rows [][]byte
		if rows, err = ses.Stored.Rows(ctx); err != nil {
			return nil, err
		}
		err = in.buildContext96(rows, o.Limits)
	case ses.Stored != nil:
		err = in.loadExported(ctx, ses.Stored, o.Stdin)
	case ses.Path != "-" && len(o.Releases) > 0 && ContextOf96(o.Releases):
		err = in.loadImported96(o.Limits, o.Stdin)
	default:
		in.Context, err = transcript.LoadContext(ses.Path, o.Stdin)
	}
	if err != nil {
		return nil, err
	}
	if o.Decode {
		if err := in.decode(o.KeepText); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// buildContext96 builds the context from a session's rows as 2026.9.6 does
// (its active branch, read within limits), with the model snapshots on it.
func (in *Input) buildContext96(rows [][]byte, limits context96.Limits) error {
	s, err := context96.BuildBounded(rows, limits)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	if in.ModelSnapshots, err = replay.ModelSnapshotsOnBranch(s.Branch); err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	in.Context, in.SessionVersion = s.Context, s.Version
	return nil
}

// loadExported reads a stored session for 2026.5.6's rules, which read the
// session exported as a file; the temporary export is removed on return:
// messages name the session.
func (in *Input) loadExported(ctx context.Context, stored *Stored, stdin io.Reader) error {
	tmp, cleanup, err := stored.State.ExportToTemp(ctx, stored.Session)
	if err != nil {
		return err
	}
	in.Context, err = transcript.LoadContext(tmp, stdin)
	cleanup()
	if err != nil {
		// The error names the session, not its removed temporary file.
		return errors.New(strings.ReplaceAll(err.Error(), tmp, in.Source.Name))
	}
	in.Path = in.Source.Name
	return nil
}

// loadImported96 reads a JSONL transcript replayed by 2026.9.6 (asked for:
// its era's default is 2026.5.6). 9.6 reads no JSONL: it imports the file
// first, then builds the context from the rows it stored.
func (in *Input) loadImported96(limits context96.Limits, stdin io.Reader) error {
	rows, _, err := upgrade.ImportedRows(in.Path)
	if errors.Is(err, upgrade.ErrIDsRewritten) {
		in.Context, err = transcript.LoadContext(in.Path, stdin)
		return err
	}
	if err != nil {
		return err
	}
	return in.buildContext96(rows, limits)
}

// decode decodes the context's messages. Unless the text is printed later
// (keepText), the decoded messages are all that is used from here on: the
// text goes as it is decoded (peak memory on large transcripts).
func (in *Input) decode(keepText bool) error {
	var err error
	in.Messages, err = replay.DecodeMessages(in.Context.Messages, !keepText)
	if err != nil {
		return fmt.Errorf("%s: %w", in.Path, err)
	}
	if !keepText {
		in.Context.Messages = nil
	}
	return nil
}

// ContextOf96 says whether a SQLite session's context is built by
// 2026.9.6's rules: unless 2026.5.6 is asked for (alone, or compared with
// 2026.9.6 on one shared context), the install's era's release builds it.
func ContextOf96(releases []policy.Release) bool {
	for _, r := range releases {
		if r == policy.Release56 {
			return false
		}
	}
	return true
}
