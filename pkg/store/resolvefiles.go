package store

import (
	"context"
	"fmt"
	"os"
)

// SQLiteSessionError: a command that writes JSONL transcripts (oc repair)
// was given a session OpenClaw keeps in SQLite.
type SQLiteSessionError struct {
	Arg     string
	Session Session
}

func (e *SQLiteSessionError) Error() string {
	label := e.Session.Label()
	return fmt.Sprintf("%s is a SQLite session (agent %s, %s): OpenClaw 2026.8.1+ owns it and oc never writes a database; "+
		"to take it out as JSONL: oc export %s -o FILE; to have OpenClaw fix the install: openclaw doctor --fix",
		e.Arg, e.Session.Agent, e.Session.Path, label)
}

// TranscriptFiles turns the arguments of a command that works on JSONL
// files into paths: a path (an existing file or folder, or anything that
// looks like a path) is kept as it is; a session key, id or unique prefix
// is resolved, and must be a JSONL transcript (one not yet imported, in a
// mid-upgrade install): a SQLite session is a *SQLiteSessionError.
func (s *State) TranscriptFiles(ctx context.Context, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if _, err := os.Stat(a); err == nil || LooksLikePath(a) {
			out = append(out, a)
			continue
		}
		ses, err := s.Resolve(ctx, a)
		if err != nil {
			return nil, err
		}
		if ses.Era != EraJSONL || ses.Archive != nil {
			return nil, &SQLiteSessionError{Arg: a, Session: ses}
		}
		out = append(out, ses.Path)
	}
	return out, nil
}
