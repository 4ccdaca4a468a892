package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
)

// IndexEntry is the part of a sessions.json entry oc reads. The file holds
// many more fields; oc never rewrites it, so they need no modelling here.
type IndexEntry struct {
	Key         string `json:"key"`
	SessionID   string `json:"sessionId"`
	SessionFile string `json:"sessionFile,omitempty"`
}

// ReadIndex reads a sessions.json file: an object of session key -> entry.
// Entries come back sorted by key.
func ReadIndex(path string) ([]IndexEntry, error) {
	data, err := durable.ReadRegular(path) // a FIFO named sessions.json must not hang the reader
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %w", path, err)
	}
	out := make([]IndexEntry, 0, len(raw))
	for key, v := range raw {
		var e struct {
			SessionID   any `json:"sessionId"`
			SessionFile any `json:"sessionFile"`
		}
		_ = json.Unmarshal(v, &e)
		ie := IndexEntry{Key: key}
		ie.SessionID, _ = e.SessionID.(string)
		ie.SessionFile, _ = e.SessionFile.(string)
		out = append(out, ie)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// IndexRef names one sessions.json entry in a finding.
type IndexRef struct {
	Index     string `json:"index"`
	Key       string `json:"key"`
	SessionID string `json:"sessionId,omitempty"`
	Path      string `json:"path,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// IndexCheck is sessions.json cross-checked against the files beside it.
type IndexCheck struct {
	// MissingFiles: entries whose transcript exists nowhere.
	MissingFiles []IndexRef `json:"missingFiles"`
	// OrphanFiles: live transcripts no entry refers to.
	OrphanFiles []string `json:"orphanFiles"`
	// Dangling: entries whose sessionFile OpenClaw cannot use as written:
	// missing, outside the sessions folder (OpenClaw falls back to
	// <sessionId>.jsonl), or another root's path that does not exist here.
	Dangling []IndexRef `json:"dangling"`
}

// ResolveSessionFile is where OpenClaw 2026.5.6 looks for an entry's
// transcript: sessionFile (relative to the sessions folder, or absolute and
// inside it, or an absolute path of another root remapped by its
// agents/<id>/sessions/<file> tail), else <sessionId>.jsonl. dangling
// explains why a set sessionFile was not used.
func ResolveSessionFile(sessionsDir string, e IndexEntry) (path string, dangling string) {
	fallback := ""
	if e.SessionID != "" {
		fallback = filepath.Join(sessionsDir, e.SessionID+".jsonl")
	}
	sf := strings.TrimSpace(e.SessionFile)
	if sf == "" {
		return fallback, ""
	}
	if strings.HasPrefix(sf, "sqlite:") {
		return fallback, ""
	}
	var candidate string
	if filepath.IsAbs(sf) {
		if within(sessionsDir, sf) {
			candidate = sf
		} else {
			parts := strings.Split(filepath.ToSlash(sf), "/")
			n := len(parts)
			if n >= 4 && parts[n-2] == "sessions" && parts[n-4] == "agents" {
				candidate = filepath.Join(sessionsDir, parts[n-1])
			} else {
				return fallback, "sessionFile is outside the sessions folder: " + sf
			}
		}
	} else {
		candidate = filepath.Join(sessionsDir, sf)
		if !within(sessionsDir, candidate) {
			return fallback, "sessionFile escapes the sessions folder: " + sf
		}
	}
	if _, err := os.Stat(candidate); err != nil {
		return fallback, "sessionFile does not exist: " + sf
	}
	return candidate, ""
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// CheckIndex cross-checks an agent's sessions.json with its transcripts.
// Without a sessions.json every transcript is an orphan-free, unchecked file.
func CheckIndex(a Agent) (*IndexCheck, error) {
	if a.IndexPath == "" {
		return &IndexCheck{MissingFiles: []IndexRef{}, OrphanFiles: []string{}, Dangling: []IndexRef{}}, nil
	}
	entries, err := ReadIndex(a.IndexPath)
	if err != nil {
		return nil, err
	}
	return CheckEntries(a, entries)
}

// CheckEntries is CheckIndex on the entries of a.IndexPath already read (by a
// caller with its own reader, e.g. oc doctor's size-capped JSON5 one): each
// entry's transcript is resolved with ResolveSessionFile; an entry whose
// sessionFile OpenClaw cannot use as written is dangling; an entry whose file
// exists nowhere is missing; a primary transcript of a.SessionsDir no entry
// resolves to is an orphan, except a Telegram topic transcript
// <sessionId>-topic-<n>.jsonl of an entry's sessionId, which belongs to it.
// The error is the sessions folder's, when it cannot be listed.
func CheckEntries(a Agent, entries []IndexEntry) (*IndexCheck, error) {
	ic := &IndexCheck{MissingFiles: []IndexRef{}, OrphanFiles: []string{}, Dangling: []IndexRef{}}
	referenced := map[string]bool{}
	sessionIDs := map[string]bool{}
	for _, e := range entries {
		if e.SessionID != "" {
			sessionIDs[e.SessionID] = true
		}
		path, dangling := ResolveSessionFile(a.SessionsDir, e)
		if dangling == "" {
			dangling = foreignSessionFile(a.SessionsDir, e)
		}
		if dangling != "" {
			ic.Dangling = append(ic.Dangling, IndexRef{Index: a.IndexPath, Key: e.Key, SessionID: e.SessionID, Path: e.SessionFile, Reason: dangling})
		}
		if path == "" {
			continue
		}
		referenced[filepath.Clean(path)] = true
		if _, err := os.Stat(path); err != nil {
			ic.MissingFiles = append(ic.MissingFiles, IndexRef{Index: a.IndexPath, Key: e.Key, SessionID: e.SessionID, Path: path, Reason: "transcript file does not exist"})
		}
	}
	files, err := PrimaryTranscripts(a.SessionsDir)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if referenced[filepath.Clean(f)] {
			continue
		}
		if id, ok := topicSessionID(filepath.Base(f)); ok && sessionIDs[id] {
			continue
		}
		ic.OrphanFiles = append(ic.OrphanFiles, f)
	}
	return ic, nil
}

// foreignSessionFile explains why OpenClaw will not find an entry's
// transcript that ResolveSessionFile found here by remapping an absolute
// sessionFile of another root (a state dir copied from another machine or
// home): OpenClaw 2026.5.6 keeps such a path as written (its structural
// fallback in resolvePathWithinSessionsDir), so when that path does not exist
// on this machine the session's history appears to reset. "" otherwise.
func foreignSessionFile(sessionsDir string, e IndexEntry) string {
	sf := strings.TrimSpace(e.SessionFile)
	if !filepath.IsAbs(sf) || within(sessionsDir, sf) {
		return ""
	}
	if _, err := os.Stat(sf); err == nil {
		return ""
	}
	return "sessionFile is another root's path that does not exist here (OpenClaw uses it as written): " + sf
}

// PrimaryTranscripts lists the primary transcripts of a sessions folder, the
// files OpenClaw's isPrimarySessionTranscriptFileName accepts (spec §1.1):
// live "*.jsonl" files, not archives, checkpoints, trajectories, oc's
// quarantine or compressed copies.
func PrimaryTranscripts(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		if kind, _ := ClassifyName(e.Name()); kind == KindLive {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// topicSessionID is the session id of a Telegram forum topic transcript
// name "<sessionId>-topic-<topicId>.jsonl".
func topicSessionID(name string) (string, bool) {
	i := strings.LastIndex(name, "-topic-")
	if i <= 0 || !strings.HasSuffix(name, ".jsonl") || len(name)-len(".jsonl") <= i+len("-topic-") {
		return "", false
	}
	return name[:i], true
}

// StorePath is where an agent's sessions.json lives (OpenClaw's
// resolveStorePath): <stateDir>/agents/<agentId>/sessions/sessions.json, or
// the config's session.store when set, with its {agentId} placeholder filled
// in and a leading "~" expanded. The agent's transcripts are in its folder.
func StorePath(stateDir, store, agentID string) string {
	if store == "" {
		return filepath.Join(stateDir, "agents", agentID, "sessions", "sessions.json")
	}
	p := strings.ReplaceAll(store, "{agentId}", agentID)
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	return p
}
