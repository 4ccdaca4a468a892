package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// runRecordDir is where a repair run records the files it changes for
// `oc repair --undo` without FILE: the runs folder of --backup-dir when
// given, else of the state dir when the run is over the state dir (no
// PATH) or every file lies in it. "" (not recorded): files elsewhere, so
// that repairing /tmp/x.jsonl writes nothing into ~/.openclaw.
func runRecordDir(g *Globals, opts *repairOptions, overStateDir bool, files []transcript.File) string {
	if opts.Check || opts.DryRun {
		return ""
	}
	if opts.BackupDir != "" {
		return repair.RunsDir(opts.BackupDir)
	}
	sd := g.ResolvedStateDir()
	if overStateDir {
		return repair.RunsDir(sd)
	}
	root := realPath(sd)
	for _, f := range files {
		if !within(realPath(f.Path), root) {
			return ""
		}
	}
	return repair.RunsDir(sd)
}

func realPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// runUndoRun is --undo without FILE: the newest repair run recorded for
// the state dir (or --backup-dir) is undone, file by file.
func runUndoRun(ctx context.Context, g *Globals, opts repair.ApplyOptions) error {
	root := g.ResolvedStateDir()
	if opts.BackupDir != "" {
		root = opts.BackupDir
	}
	rep, err := repair.UndoRun(ctx, repair.RunsDir(root), opts)
	if errors.Is(err, repair.ErrNoRun) {
		hint := "; undo a file with oc repair --undo FILE"
		if opts.BackupDir == "" {
			hint += " (a run made with --backup-dir DIR is undone with the same --backup-dir DIR)"
		}
		return cli.Incomplete(fmt.Errorf("%w%s", err, hint))
	}
	if err != nil {
		return cli.Incomplete(err)
	}
	out := make([]undone, len(rep.Files))
	for i, f := range rep.Files {
		out[i] = undone{UndoReport: f, Error: rep.Errors[i]}
	}
	if g.JSON {
		if err := writeJSON(g.IO, map[string]any{"run": rep.Run, "runManifest": rep.Manifest, "startedAt": rep.Started, "undone": out}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(g.IO.Out, "undoing the repair run of %s (%s, %s)\n", rep.Started.Local().Format(time.DateTime), plural(len(rep.Files), "file"), cli.Safe(rep.Manifest))
		printUndone(g, out)
		for _, u := range out {
			if u.Error != "" {
				fmt.Fprintf(g.IO.Out, "%s %s\n", g.IO.Styles().Error.Render("not undone"), cli.Safe(u.Error))
			}
		}
	}
	if n := rep.Failed(); n > 1 {
		return cli.Incomplete(fmt.Errorf("%d of %s not undone; first: %s", n, plural(len(out), "file"), firstError(out)))
	}
	return undoExit(out)
}

func firstError(out []undone) string {
	for _, u := range out {
		if u.Error != "" {
			return u.Error
		}
	}
	return ""
}

// pruneUsage checks --prune-backups and --older-than against the other flags.
func pruneUsage(opts *repairOptions) error {
	switch {
	case !opts.PruneBackups && opts.OlderThan != "":
		return cli.Usagef("--older-than only applies to --prune-backups")
	case !opts.PruneBackups:
		return nil
	case opts.OlderThan == "":
		return cli.Usagef("--prune-backups needs --older-than AGE (e.g. 30d): oc never removes its newest backups by default")
	case opts.Check || opts.Undo || opts.Force:
		return cli.Usagef("--prune-backups cannot be combined with --check, --undo or --force")
	}
	if _, err := repair.ParseAge(opts.OlderThan); err != nil {
		return cli.Usagef("--older-than %v", err)
	}
	return nil
}

// runPrune is --prune-backups: oc's repair files older than --older-than
// below the state dir's sessions folders (or PATHs), its run records and
// --backup-dir are listed, then removed (not with --dry-run).
func runPrune(ctx context.Context, g *Globals, opts *repairOptions, args []string) error {
	age, _ := repair.ParseAge(opts.OlderThan) // checked by pruneUsage
	roots := args
	if len(roots) == 0 {
		roots = repair.ArtifactRoots(g.ResolvedStateDir())
	}
	if opts.BackupDir != "" {
		roots = append(roots, opts.BackupDir, repair.RunsDir(opts.BackupDir))
	}
	all, err := repair.FindArtifacts(roots)
	if err != nil {
		return cli.Incomplete(err)
	}
	cutoff := time.Now().Add(-age)
	old := repair.Older(all, cutoff)
	var results []repair.PruneResult
	if opts.DryRun {
		for _, a := range old {
			results = append(results, repair.PruneResult{Artifact: a})
		}
	} else {
		if !g.JSON {
			printPruneList(g, "removing", old)
		}
		results = repair.Prune(ctx, nil, old)
	}
	var removed, failed int
	var bytes int64
	for _, r := range results {
		switch {
		case r.Removed:
			removed++
			bytes += r.Size
		case r.Error != "":
			failed++
		}
	}
	if g.JSON {
		if err := writeJSON(g.IO, map[string]any{"dryRun": opts.DryRun, "olderThan": opts.OlderThan, "cutoff": cutoff.UTC(),
			"files": results, "removed": removed, "removedBytes": bytes, "kept": len(all) - len(old)}); err != nil {
			return err
		}
	} else if opts.DryRun {
		printPruneList(g, "would remove", old)
		var size int64
		for _, a := range old {
			size += a.Size
		}
		fmt.Fprintf(g.IO.Out, "%s (%s) older than %s would be removed; %d newer kept\n", plural(len(old), "file"), humanBytes(size), opts.OlderThan, len(all)-len(old))
	} else {
		for _, r := range results {
			if r.Error != "" {
				fmt.Fprintf(g.IO.Out, "%s %s: %s\n", g.IO.Styles().Error.Render("not removed"), cli.Safe(r.Path), cli.Safe(r.Error))
			}
		}
		fmt.Fprintf(g.IO.Out, "removed %s (%s) older than %s; %d newer kept\n", plural(removed, "file"), humanBytes(bytes), opts.OlderThan, len(all)-len(old))
	}
	if ctx.Err() != nil {
		return cli.Incomplete(fmt.Errorf("interrupted: %d of %s removed", removed, plural(len(old), "file")))
	}
	if failed > 0 {
		return cli.Incomplete(fmt.Errorf("%s not removed", plural(failed, "file")))
	}
	return nil
}

// printPruneList lists the files about to be (or that would be) removed.
func printPruneList(g *Globals, verb string, arts []repair.Artifact) {
	if len(arts) == 0 {
		return
	}
	st := g.IO.Styles()
	fmt.Fprintf(g.IO.Out, "%s:\n", verb)
	for _, a := range arts {
		kind := a.Kind
		if a.Legacy {
			kind += " (legacy)"
		}
		fmt.Fprintf(g.IO.Out, "  %s  %-19s %9s  %s\n", a.Time.UTC().Format(time.DateOnly), kind, humanBytes(a.Size), st.Dim.Render(cli.Safe(a.Path)))
	}
}
