package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
)

type exportOptions struct {
	Output string
	All    bool
	Agent  string
	// BusyTimeout bounds the wait for a SQLite writer's lock.
	BusyTimeout time.Duration
	// MaxDecoded bounds what one session decodes to from compressed
	// storage (zstd rows, a cold archive, an archived generation's blob).
	MaxDecoded byteSize
}

func newExportCmd(g *Globals) *cobra.Command {
	opts := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "export SESSION",
		Short: "Write a session as a JSONL transcript (from either storage era)",
		Long: `Export one session as a JSONL transcript: the stored event JSON of every row,
one per line, header first, byte for byte as OpenClaw stored it. SESSION is a
transcript path, a session key (agent:main:telegram:direct:42), a session id or
a unique prefix of one, in the state dir of either era (SQLite agent databases
of OpenClaw 2026.8.1+, or JSONL transcripts). The result is read by every oc
command and by jq, and is an offline backup of one conversation.

oc export exports sessions only. A path that is not an OpenClaw transcript
(a file none of whose lines is a session header or entry, a binary, any
SQLite file) is refused: exit 3, nothing written, no -o file. An agent
database given as a path is refused with the list of its session keys, to
export one by key. A session with no transcript rows (OpenClaw's import
found no readable header) is refused too (exit 3): there is no transcript
to write. --json is a usage error (exit 2): a transcript is JSONL, not one
JSON document.

--all --agent ID -o DIR exports every SQLite session of an agent into DIR as
<sessionId>.jsonl with a sessions.json, a JSONL sessions folder. A session
with no transcript rows is skipped (named on stderr; not an error). A
session that cannot be written (an id that is not a file name, such as
"../x"; a file already there; a damaged row) is refused, the others are
exported, and the exit is 3. With --json it prints {agent, dir, files,
skipped, refused}.

A session that OpenClaw 2026.9.6 moved to cold storage (its
session_transcript_cold_archives row, the archive in sessions/cold/ or in
the database) is read from its archive after the checks 2026.9.6's restore
makes (size, sha256, contents); stderr names the archive. A damaged archive
is an error naming it.

An archived generation, the transcript of a session OpenClaw 2026.9.6
deleted or reset (a session_transcript_archives row; oc inspect --archived
lists them), is SESSION as SESSIONID@GENERATION (either of them, or a
unique prefix of each) or as its archive name (the derived
SESSIONID.jsonl.deleted.STAMP.GENERATION[.zst] file's name, whether or not
that file exists). Its blob is checked as 2026.9.6 checks it (sha256 of the
stored bytes) and decoded whole before anything is written; the output is
the decoded text, the transcript as it was when the session was deleted. A
damaged blob is a one-line error naming the database and the row, and
nothing is written.

What a session decodes to from compressed storage (its zstd rows, its cold
archive, an archived generation's blob) is checked before anything is
written: over --max-decoded-size (default 1 GiB) the export is refused, so
that a small hostile blob cannot fill a disk. A zstd row that OpenClaw
2026.9.6 cannot read (over its 4 MiB bounds, or decoding to another size
than its event_utf8_bytes) is an error naming the session and the seq.

The databases and archives are opened read-only and never written.`,
		Example: `  oc export agent:main:main -o main.jsonl
  oc export 0197d2a4 | jq -c 'select(.type=="message") | .message.role'
  oc export 0197d2b9-0c4a-7d11-8e22-33f4a5b6c7d8@cc61585f -o deleted.jsonl
  oc export --all --agent main -o ./main-sessions`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.All {
				if len(args) != 0 {
					return cli.Usagef("--all takes no SESSION")
				}
				if opts.Agent == "" || opts.Output == "" {
					return cli.Usagef("--all needs --agent ID and -o DIR")
				}
				return nil
			}
			if len(args) != 1 {
				return cli.Usagef("export needs exactly one SESSION (or --all --agent ID -o DIR)")
			}
			if g.JSON {
				// A transcript is JSONL, not the one JSON document --json promises.
				return cli.Usagef("--json: oc export writes a transcript as JSONL, not one JSON document (without --json: JSONL on stdout or in -o FILE; with --all, --json describes the files written)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), g, opts, args)
		},
	}
	cmd.ValidArgsFunction = g.completeSessions
	f := cmd.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "write to FILE (a new file; default stdout), or the folder DIR with --all")
	f.BoolVar(&opts.All, "all", false, "export every session of --agent into the folder -o DIR")
	f.StringVar(&opts.Agent, "agent", "", "the agent whose sessions --all exports")
	f.DurationVar(&opts.BusyTimeout, "busy-timeout", 5*time.Second, "how long to wait for a SQLite database another process holds locked")
	opts.MaxDecoded = store.DefaultMaxExportDecoded
	f.Var(&opts.MaxDecoded, "max-decoded-size", "refuse a session that decodes to more than SIZE bytes from compressed storage (512M, 4G)")
	return cmd
}

func runExport(ctx context.Context, g *Globals, opts *exportOptions, args []string) error {
	st, err := store.Open(g.ResolvedStateDir(), store.Options{SQLite: sqlitestore.Options{BusyTimeout: opts.BusyTimeout}, MaxExportDecoded: int64(opts.MaxDecoded)})
	if err != nil {
		return cli.Incomplete(err)
	}
	warnSkippedIndexes(g, st)
	if opts.All {
		res, err := st.ExportAgent(ctx, opts.Agent, opts.Output)
		var partial *store.PartialExportError
		if err != nil && !errors.As(err, &partial) {
			return exportError(ctx, err, fmt.Sprintf("the sessions exported before it are in %s", opts.Output))
		}
		if g.JSON {
			if werr := writeJSON(g.IO, res); werr != nil {
				return werr
			}
		} else {
			printAgentExport(g, res)
		}
		if partial != nil {
			return cli.Incomplete(partial)
		}
		return nil
	}
	if store.IsSQLiteFile(args[0]) {
		_, _, err := st.ExportWithSource(ctx, store.Session{Era: store.EraJSONL, Path: args[0]}, nil, io.Discard)
		return exportError(ctx, err, "nothing written")
	}
	ses, err := st.Resolve(ctx, args[0])
	if err != nil {
		var amb *store.AmbiguousError
		if errors.As(err, &amb) {
			return cli.Exit(cli.ExitUsage, err)
		}
		return cli.Incomplete(err)
	}
	if opts.Output == "" || opts.Output == "-" {
		n, cold, err := st.ExportWithSource(ctx, ses, g.IO.In, g.IO.Out)
		if err != nil {
			return exportError(ctx, err, "the output is incomplete")
		}
		noteCold(g, cold)
		noteArchive(g, ses, n)
		return nil
	}
	n, cold, err := exportToFile(ctx, st, ses, g.IO.In, opts.Output)
	if err != nil {
		return exportError(ctx, err, opts.Output+" was not written")
	}
	if !g.JSON {
		fmt.Fprintf(g.IO.ErrOut, "exported %s (%d lines) to %s\n", cleanText(ses.Label()), n, cleanText(opts.Output))
	}
	noteCold(g, cold)
	noteArchive(g, ses, n)
	return nil
}

// printAgentExport is the human report of --all: what was written, what
// was skipped or refused (one line each on stderr).
func printAgentExport(g *Globals, res store.AgentExport) {
	lines := 0
	for _, f := range res.Files {
		lines += f.Lines
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(g.IO.ErrOut, "oc: skipped %s (%s): %s\n", cleanText(refusalName(s)), cleanText(s.ID), cleanText(s.Reason))
	}
	for _, s := range res.Refused {
		fmt.Fprintf(g.IO.ErrOut, "oc: refused %s: %s\n", cleanText(refusalName(s)), cleanText(oneLine(s.Reason)))
	}
	fmt.Fprintf(g.IO.Out, "exported %s (%s) of agent %s to %s\n", plural(len(res.Files), "session"), plural(lines, "line"), cleanText(res.Agent), cleanText(res.Dir))
}

func refusalName(s store.SessionRefusal) string {
	if s.Key != "" {
		return s.Key
	}
	return "session " + s.ID
}

// noteArchive says on stderr that the exported lines are an archived
// generation (a deleted or reset session's transcript), not a live session.
func noteArchive(g *Globals, ses store.Session, lines int) {
	if ses.Archive == nil || g.JSON {
		return
	}
	fmt.Fprintf(g.IO.ErrOut, "oc: %d lines from the archived generation %s of %s (%s; session_transcript_archives of %s, sha256 verified)\n",
		lines, cleanText(ses.Label()), cleanText(ses.Key), cleanText(ses.Archive.Reason), cleanText(ses.Path))
}

// noteCold says on stderr that the exported rows came from a cold archive
// (OpenClaw 2026.9.6's transcript cold storage), not from transcript_events.
func noteCold(g *Globals, cold *sqlitestore.ColdSource) {
	if cold == nil || g.JSON {
		return
	}
	fmt.Fprintf(g.IO.ErrOut, "oc: %d lines from the cold archive %s (storage %s; size, sha256 and contents verified; not in transcript_events until OpenClaw restores it)\n",
		cold.Events, cleanText(cold.Path), cleanText(cold.Archive.Storage))
}

// exportToFile writes a new file, complete or not at all
// (durable.WriteNew); an existing file is left alone.
func exportToFile(ctx context.Context, st *store.State, ses store.Session, stdin io.Reader, path string) (int, *sqlitestore.ColdSource, error) {
	if _, err := os.Lstat(path); err == nil {
		return 0, nil, fmt.Errorf("%s: already exists; not overwritten", path)
	}
	var n int
	var cold *sqlitestore.ColdSource
	_, err := durable.WriteNew(ctx, nil, path, 0o600, nil, func(w io.Writer) error {
		var err error
		n, cold, err = st.ExportWithSource(ctx, ses, stdin, w)
		return err
	})
	return n, cold, err
}

// exportError is the error of an export that stopped: after SIGINT or
// SIGTERM (ctx cancelled), "interrupted" and what is left (exit 3, as
// every command).
func exportError(ctx context.Context, err error, left string) error {
	if ctx.Err() != nil {
		return cli.Incomplete(fmt.Errorf("interrupted: %s", left))
	}
	// What holds no session is named as itself, not through the temporary
	// file -o was writing.
	var notSession *store.NotSessionError
	if errors.As(err, &notSession) {
		err = notSession
	}
	return cli.Incomplete(err)
}
