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
// its state migrations first (state-migrations.doctor-*.mjs), and when one
// of them runs for an agent's store it rewrites the whole store through normalizePersistedSessionEntryShape
// (store-entry-shape-*.mjs), whose projectCanonicalSessionEntryShape drops
// `sessionFile` from every entry. The import then reads `<sessionId>.jsonl`,
// and a differently named transcript (a Telegram topic's
// `<id>-topic-<n>.jsonl`) becomes unregistered history. Checked with the
// oracle: a relative sessionFile naming `X-topic-7.jsonl` beside an
// unregistered `X.jsonl` imports `X.jsonl`; the same entry with an absolute
// sessionFile imports the topic file.
//
// Two doctor steps rewrite a store that way:
//   - migrateLegacySessions, for the store of the agent doctor migrates into
//     (the default agent), when detectLegacyStateMigrations finds a legacy
//     `<state>/sessions` folder holding sessions.json or a `.jsonl`, a
//     legacy key, or a stale sessionFile (resolveStaleLegacySessionFile: a
//     path that, read relative to `<state>/sessions`, stays inside it and
//     does not exist there, while the same name exists in the agent's folder
//     and its first line is a session header with the entry's id, or,
//     without a header, the name is `<sessionId>.jsonl`);
//   - migrateOrphanedSessionKeys, for every agent's store that holds a key
//     canonicalizeSessionKeyForAgent rewrites. The keys are stored
//     canonicalized too (checked with the oracle: "ops-direct" becomes
//     "agent:ops:ops-direct", "agent:ops:Discord:Channel:ABC" is lower-cased,
//     and the store of agent ops, not the default agent, loses its
//     sessionFile).
//
// canonicalSessionKey reproduces the common cases of that function, not all
// of it (session.mainKey and session.scope from the config, and keys two
// agents share, are not read).

// doctorDropsSessionFiles reports whether doctor's state migrations rewrite
// this agent's sessions.json before the import.
func doctorDropsSessionFiles(stateDir, doctorAgent string, a transcript.Agent, entries []transcript.IndexEntry) bool {
	if doctorAgent == "" {
		doctorAgent = "main"
	}
	if a.IndexPath == "" {
		return false
	}
	for _, e := range entries {
		if canonicalSessionKey(e.Key, a.ID) != e.Key {
			return true
		}
	}
	if a.ID != doctorAgent {
		return false
	}
	legacyDir := filepath.Join(stateDir, "sessions")
	if hasLegacySessions(legacyDir) {
		return true
	}
	for _, e := range entries {
		if staleSessionFile(legacyDir, a.SessionsDir, e) {
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

// canonicalSessionKey is the key a rewritten store gives an entry (the
// common cases of canonicalizeSessionKeyForAgent, state-migrations.doctor-*.mjs):
// trimmed and lower-cased; "main" is the agent's main session; a key
// without the `agent:` prefix gets the store's agent.
func canonicalSessionKey(key, agent string) string {
	k := strings.ToLower(strings.TrimSpace(key))
	switch {
	case k == "" || k == "global" || k == "unknown":
		return k
	case k == "main":
		return "agent:" + strings.ToLower(agent) + ":main"
	case !strings.HasPrefix(k, "agent:"):
		return "agent:" + strings.ToLower(agent) + ":" + k
	}
	return k
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
	// The header check first (one small read): the .legacy- scans below
	// only turn a stale answer into a "not stale" one, and they read
	// whole folders.
	if !headerNamesSession(filepath.Join(targetDir, base), base, e.SessionID) {
		return false
	}
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
	return true
}

// headerNamesSession is the end of resolveStaleLegacySessionFile: the
// target's first line is a session header with the entry's id, or, when it
// is another object, the target is named <sessionId>.jsonl.
func headerNamesSession(target, base, sessionID string) bool {
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
		return id == sessionID
	}
	return filepath.Base(sessionID) == sessionID && sessionID+".jsonl" == base
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
