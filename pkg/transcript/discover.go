package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/lazyre"
)

// FileKind is what a file in a sessions folder is, judged by its name the way
// OpenClaw's artifact classifier judges it.
type FileKind string

const (
	KindLive       FileKind = "live"       // <id>.jsonl: a transcript the gateway writes
	KindArchived   FileKind = "archived"   // .reset/.deleted/.bak archives, checkpoints, repair backups
	KindIndex      FileKind = "index"      // sessions.json (and its old rotations)
	KindLock       FileKind = "lock"       // <file>.lock
	KindTemp       FileKind = "temp"       // leftover temporary files
	KindSidecar    FileKind = "sidecar"    // trajectory files
	KindQuarantine FileKind = "quarantine" // oc repair's .rejected-<stamp> (.rejected-<stamp>.jsonl before)
	KindOther      FileKind = "other"
)

var (
	// <id>.jsonl.<reason>.<stamp>, and since OpenClaw 2026.9.6 the files it
	// derives from session_transcript_archives rows:
	// <id>.jsonl.<reason>.<stamp>.<generation>[.zst]
	archiveSuffixRE = lazyre.New(`\.jsonl\.(reset|deleted|bak)\.\d{4}-\d{2}-\d{2}T[0-9.\-]+Z(\.[0-9a-f]{32})?(\.zst|\.gz)?$`)
	repairBackupRE  = lazyre.New(`\.jsonl\.bak-\d+-\d+$`)
	ocBackupRE      = lazyre.New(`\.jsonl\.bak-oc-\d{8}T\d{6}Z(\.zst)?$`)
	// oc repair's quarantine files: "<file>.rejected-<stamp>", and the
	// "<file>.rejected-<stamp>.jsonl" of earlier oc versions (never a transcript).
	ocRejectedRE = lazyre.New(`\.jsonl\.rejected-\d{8}T\d{6}Z(\.jsonl)?$`)
	// the manifest beside an oc backup
	ocManifestRE = lazyre.New(`\.jsonl\.bak-oc-\d{8}T\d{6}Z\.manifest\.json$`)
	checkpointRE = lazyre.New(`\.checkpoint\.[0-9a-fA-F-]{8,}\.jsonl$`)
	corruptRE    = lazyre.New(`\.jsonl\.corrupt-[0-9TZ\-]+-[0-9a-fA-F]{8}\.jsonl$`)
	tmpRE        = lazyre.New(`(\.tmp$|\.repair-\d+-\d+\.tmp$|\.repair[^/]*$)`)
)

// ClassifyName returns the kind of a sessions-folder file and, for archives,
// the reason in its name (reset, deleted, bak, checkpoint, repair-backup, ...).
func ClassifyName(name string) (FileKind, string) {
	switch {
	case name == "sessions.json" || strings.HasPrefix(name, "sessions.json.bak"):
		return KindIndex, ""
	case strings.HasSuffix(name, ".lock"):
		return KindLock, ""
	case ocRejectedRE().MatchString(name):
		return KindQuarantine, ""
	case ocManifestRE().MatchString(name):
		return KindOther, "oc-backup-manifest"
	case strings.Contains(name, ".trajectory.jsonl") || strings.HasSuffix(name, ".trajectory-path.json"):
		return KindSidecar, ""
	case tmpRE().MatchString(name):
		return KindTemp, ""
	case archiveSuffixRE().MatchString(name):
		return KindArchived, archiveSuffixRE().FindStringSubmatch(name)[1]
	case ocBackupRE().MatchString(name):
		return KindArchived, "oc-backup"
	case repairBackupRE().MatchString(name):
		return KindArchived, "repair-backup"
	case checkpointRE().MatchString(name):
		return KindArchived, "checkpoint"
	case corruptRE().MatchString(name):
		return KindArchived, "corrupt-header-backup"
	case strings.HasSuffix(name, ".jsonl"), strings.HasSuffix(name, ".jsonl.gz"), strings.HasSuffix(name, ".jsonl.zst"):
		return KindLive, ""
	}
	return KindOther, ""
}

// Agent is one agent's folder in a state dir.
type Agent struct {
	ID          string `json:"id"`
	SessionsDir string `json:"sessionsDir"`
	IndexPath   string `json:"index,omitempty"` // sessions.json, "" when there is none
}

// File is a transcript found on disk.
type File struct {
	Path    string   `json:"path"`
	Agent   string   `json:"agent,omitempty"`
	Kind    FileKind `json:"kind"`
	Archive string   `json:"archive,omitempty"`
	Size    int64    `json:"size"`
	// Explicit: the path was named itself (not found in a folder).
	Explicit bool `json:"-"`
}

// StateDir is an OpenClaw state directory.
type StateDir struct {
	Root   string  `json:"root"`
	Agents []Agent `json:"agents"`
}

// ErrNoTranscripts is returned when a folder holds no transcripts.
var ErrNoTranscripts = errors.New("no OpenClaw transcripts found")

// OpenStateDir finds the agents of a state dir (<root>/agents/<id>/sessions).
func OpenStateDir(root string) (*StateDir, error) {
	sd := &StateDir{Root: root}
	agentsDir := filepath.Join(root, "agents")
	entries, err := os.ReadDir(agentsDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return sd, nil
		}
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(agentsDir, e.Name(), "sessions")
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		a := Agent{ID: e.Name(), SessionsDir: dir}
		if _, err := os.Stat(filepath.Join(dir, "sessions.json")); err == nil {
			a.IndexPath = filepath.Join(dir, "sessions.json")
		}
		sd.Agents = append(sd.Agents, a)
	}
	return sd, nil
}

// IsStateDir reports whether dir looks like an OpenClaw state dir.
func IsStateDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "agents"))
	return err == nil && st.IsDir()
}

// LooksLikeStateDir reports whether dir is an OpenClaw state dir, fresh ones
// included: it has agents/, cron/ or openclaw.json.
func LooksLikeStateDir(dir string) bool {
	if IsStateDir(dir) {
		return true
	}
	if st, err := os.Stat(filepath.Join(dir, "cron")); err == nil && st.IsDir() {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "openclaw.json"))
	return err == nil
}

// ListSessionsDir lists the transcripts of one sessions folder. Archived
// transcripts are included only when archived is true.
func ListSessionsDir(dir, agent string, archived bool) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		kind, reason := ClassifyName(e.Name())
		if kind != KindLive && !(archived && kind == KindArchived) {
			continue
		}
		// Size is left unknown (-1) here: a stat per file would cost as much as
		// reading a small transcript; readers learn it when they open the file.
		out = append(out, File{Path: filepath.Join(dir, e.Name()), Agent: agent, Kind: kind, Archive: reason, Size: -1})
	}
	return out, nil
}

// Discover resolves command-line paths to transcript files: a file is taken
// as it is (whatever its name); a sessions folder gives its transcripts; a
// state dir gives every agent's. Archived transcripts are listed only when
// archived is true. A folder with no transcript is an error, unless it is
// an OpenClaw state dir (a fresh install has none yet: a clean result).
func Discover(paths []string, archived bool) ([]File, error) {
	var out []File
	for _, p := range paths {
		if p == "-" {
			out = append(out, File{Path: "-", Kind: KindLive, Size: -1})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s: %w", p, pe.Err)
			}
			return nil, err
		}
		if !st.IsDir() {
			kind, reason := ClassifyName(filepath.Base(p))
			if kind != KindArchived {
				kind, reason = KindLive, ""
			}
			out = append(out, File{Path: p, Kind: kind, Archive: reason, Size: st.Size(), Agent: agentOf(p), Explicit: true})
			continue
		}
		var found []File
		if IsStateDir(p) {
			sd, err := OpenStateDir(p)
			if err != nil {
				return nil, err
			}
			for _, a := range sd.Agents {
				fs, err := ListSessionsDir(a.SessionsDir, a.ID, archived)
				if err != nil {
					return nil, err
				}
				found = append(found, fs...)
			}
		} else {
			found, err = ListSessionsDir(p, agentOf(filepath.Join(p, "x")), archived)
			if err != nil {
				return nil, err
			}
		}
		if len(found) == 0 && !LooksLikeStateDir(p) {
			return nil, fmt.Errorf("%s: %w (looked for agents/*/sessions/*.jsonl and *.jsonl)", p, ErrNoTranscripts)
		}
		out = append(out, found...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// agentOf guesses the agent id from a path .../agents/<id>/sessions/<file>.
func agentOf(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) != "sessions" {
		return ""
	}
	agentDir := filepath.Dir(dir)
	if filepath.Base(filepath.Dir(agentDir)) != "agents" {
		return ""
	}
	return filepath.Base(agentDir)
}
