package upgrade

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Which file a registered session is imported from.
//
// 2026.9.6's import (resolveLegacyTranscriptPaths,
// doctor-session-sqlite-verification-*.mjs) reads an entry's `sessionFile`
// when it has one, else `<sessionId>.jsonl`. But `openclaw doctor --fix` runs
// its legacy state migration first (migrateLegacySessions,
// state-migrations.doctor-*.mjs), and when that migration runs for an agent's
// store it rewrites the whole store through normalizePersistedSessionEntryShape
// (store-entry-shape-*.mjs), whose projectCanonicalSessionEntryShape drops
// `sessionFile` from every entry. The import then reads `<sessionId>.jsonl`,
// and a differently named transcript (a Telegram topic's
// `<id>-topic-<n>.jsonl`) becomes unregistered history. Checked with the
// oracle: a relative sessionFile naming `X-topic-7.jsonl` beside an
// unregistered `X.jsonl` imports `X.jsonl`; the same entry with an absolute
// sessionFile imports the topic file.
//
// The migration runs only for the store of the agent doctor migrates into
// (the default agent), when detectLegacyStateMigrations finds one of:
//   - a legacy `<state>/sessions` folder holding sessions.json or a `.jsonl`;
//   - a stale sessionFile (resolveStaleLegacySessionFile): a path that,
//     read relative to `<state>/sessions`, stays inside it and does not exist
//     there, while the same name exists in the agent's folder and its first
//     line is a session header with the entry's id (or, without a header, the
//     name is `<sessionId>.jsonl`);
//   - a session key that canonicalizeSessionKeyForAgent would rewrite. That
//     function is not reproduced whole: oc counts a key as legacy when it is
//     not trimmed, or is not an `agent:<id>:` key with a lower-case agent id
//     (other than "global" and "unknown").

// doctorDropsSessionFiles reports whether doctor's legacy state migration
// rewrites this agent's sessions.json before the import.
func doctorDropsSessionFiles(stateDir, doctorAgent string, a transcript.Agent, entries []transcript.IndexEntry) bool {
	if doctorAgent == "" {
		doctorAgent = "main"
	}
	if a.ID != doctorAgent || a.IndexPath == "" {
		return false
	}
	legacyDir := filepath.Join(stateDir, "sessions")
	if hasLegacySessions(legacyDir) {
		return true
	}
	for _, e := range entries {
		if legacySessionKey(e.Key) || staleSessionFile(legacyDir, a.SessionsDir, e) {
			return true
		}
	}
	return false
}

func hasLegacySessions(legacyDir string) bool {
	if _, err := os.Stat(filepath.Join(legacyDir, "sessions.json")); err == nil {
		return true
	}
	des, err := os.ReadDir(legacyDir)
	if err != nil {
		return false
	}
	for _, de := range des {
		if de.Type().IsRegular() && strings.HasSuffix(de.Name(), ".jsonl") {
			return true
		}
	}
	return false
}

// legacySessionKey is the part of listLegacySessionKeys oc reproduces (see
// above).
func legacySessionKey(key string) bool {
	k := strings.TrimSpace(key)
	if k != key {
		return true
	}
	if k == "global" || k == "unknown" {
		return false
	}
	rest, ok := strings.CutPrefix(k, "agent:")
	if !ok {
		return true
	}
	id, _, ok := strings.Cut(rest, ":")
	return !ok || id == "" || id != strings.ToLower(id)
}

// staleSessionFile is resolveStaleLegacySessionFile.
func staleSessionFile(legacyDir, targetDir string, e transcript.IndexEntry) bool {
	sf := e.SessionFile
	if strings.TrimSpace(sf) == "" || e.SessionID == "" {
		// no sessionFile, or one that resolves to a folder: never stale
		return false
	}
	legacy := sf
	if !filepath.IsAbs(legacy) {
		legacy = filepath.Join(legacyDir, sf)
	}
	legacy = filepath.Clean(legacy)
	rel, err := filepath.Rel(legacyDir, legacy)
	if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return false
	}
	if _, err := os.Stat(legacy); err == nil {
		return false
	}
	base := filepath.Base(legacy)
	if siblings, _ := os.ReadDir(filepath.Dir(legacyDir)); len(siblings) > 0 {
		for _, de := range siblings {
			if de.IsDir() && strings.HasPrefix(de.Name(), filepath.Base(legacyDir)+".legacy-") {
				if _, err := os.Stat(filepath.Join(filepath.Dir(legacyDir), de.Name(), base)); err == nil {
					return false
				}
			}
		}
	}
	ext := filepath.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	if des, _ := os.ReadDir(targetDir); len(des) > 0 {
		for _, de := range des {
			if de.Type().IsRegular() && strings.HasPrefix(de.Name(), stem+".legacy-") && strings.HasSuffix(de.Name(), ext) {
				return false
			}
		}
	}
	target := filepath.Join(targetDir, base)
	first, ok := firstLine(target)
	if !ok {
		return false
	}
	var header map[string]any
	if json.Unmarshal(first, &header) != nil || header == nil {
		return false
	}
	if header["type"] == "session" {
		id, _ := header["id"].(string)
		return id == e.SessionID
	}
	return filepath.Base(e.SessionID) == e.SessionID && e.SessionID+".jsonl" == base
}

// firstLine reads the first line of a regular file (readFirstLineSync).
func firstLine(path string) ([]byte, bool) {
	f, _, err := durable.OpenRegular(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 16<<20)).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil, false
	}
	return bytes.TrimRight(line, "\r\n"), true
}
