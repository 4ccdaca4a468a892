package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
	data, err := os.ReadFile(path)
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
	// Dangling: entries whose sessionFile is unusable (missing, outside the
	// sessions folder) so OpenClaw falls back to <sessionId>.jsonl.
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
	ic := &IndexCheck{MissingFiles: []IndexRef{}, OrphanFiles: []string{}, Dangling: []IndexRef{}}
	if a.IndexPath == "" {
		return ic, nil
	}
	entries, err := ReadIndex(a.IndexPath)
	if err != nil {
		return nil, err
	}
	referenced := map[string]bool{}
	for _, e := range entries {
		path, dangling := ResolveSessionFile(a.SessionsDir, e)
		if dangling != "" {
			ic.Dangling = append(ic.Dangling, IndexRef{Index: a.IndexPath, Key: e.Key, SessionID: e.SessionID, Path: e.SessionFile, Reason: dangling})
		}
		if path == "" {
			continue
		}
		referenced[filepath.Clean(path)] = true
		// A Telegram topic transcript <id>-topic-<n>.jsonl belongs to the same entry.
		if _, err := os.Stat(path); err != nil {
			ic.MissingFiles = append(ic.MissingFiles, IndexRef{Index: a.IndexPath, Key: e.Key, SessionID: e.SessionID, Path: path, Reason: "transcript file does not exist"})
		}
	}
	files, err := ListSessionsDir(a.SessionsDir, a.ID, false)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if !referenced[filepath.Clean(f.Path)] {
			ic.OrphanFiles = append(ic.OrphanFiles, f.Path)
		}
	}
	return ic, nil
}
