package upgrade

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/internal/parallel"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Session is the prediction for one file of a sessions folder.
type Session struct {
	Agent string `json:"agent"`
	Path  string `json:"path"`
	// SessionKey is the key the import stores the session under
	// (sessions.json's, or agent:<id>:recovered:<sessionId>); "" when the file
	// is not imported.
	SessionKey string  `json:"sessionKey,omitempty"`
	SessionID  string  `json:"sessionId,omitempty"`
	Recovered  bool    `json:"recovered,omitempty"`
	Outcome    Outcome `json:"outcome"`
	// Reason explains Deferred, LeftInPlace and ArchivedOnly outcomes.
	Reason string `json:"reason,omitempty"`
	// Result is the reading of an imported file (nil for files the import
	// does not read as a session).
	Result *FileResult `json:"result,omitempty"`
}

// Lost reports whether valid entries of this file stay behind. An
// unregistered transcript the import does not recover counts only when it
// holds a message: one without any (a header, model changes) is archived
// with no conversation in it, and no repair could make it imported.
func (s Session) Lost() bool {
	if s.Result == nil || !s.Result.Lost() {
		return false
	}
	if s.Outcome == Deferred {
		return s.Result.LeftBehindMessages > 0
	}
	return s.SessionKey != ""
}

// FileSessionID is the session id OpenClaw 2026.9.6 reads from a
// transcript's file name (readLegacyPrimaryTranscriptIdentity:
// extractGeneratedTranscriptSessionId of generated-transcript-session-id-*.mjs,
// else the name without ".jsonl"): the UUID of `<uuid>.jsonl`,
// `<uuid>-topic-<topic>.jsonl` and `<stamp>_<uuid>.jsonl`.
func FileSessionID(name string) string {
	stem := strings.TrimSuffix(name, ".jsonl")
	if !strings.HasSuffix(name, ".jsonl") {
		return stem
	}
	generated := func(v string) string {
		if generatedIDRE().MatchString(v) {
			return v
		}
		return ""
	}
	id := ""
	if i := strings.Index(stem, "-topic-"); i > 0 {
		id = generated(stem[:i])
	} else if m := forkNameRE().FindStringSubmatch(stem); m != nil && m[2] != "" {
		id = generated(m[2])
	} else {
		id = generated(stem)
	}
	if id == "" {
		return stem
	}
	return id
}

// generatedIDRE is looksLikeGeneratedSessionId; forkNameRE the fork name of
// extractGeneratedTranscriptSessionId.
var (
	generatedIDRE = lazyre.New(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	forkNameRE    = lazyre.New(`^(\d{4}-\d{2}-\d{2}T[\w-]+(?:Z|[+-]\d{2}(?:-\d{2})?)?)_(.+)$`)
)

// Report is the prediction for a whole state dir.
type Report struct {
	StateDir string    `json:"stateDir"`
	Sessions []Session `json:"sessions"`
}

// Losses returns the sessions that would lose entries.
func (r *Report) Losses() []Session {
	var out []Session
	for _, s := range r.Sessions {
		if s.Lost() {
			out = append(out, s)
		}
	}
	return out
}

// LostEntries totals the entries left behind.
func (r *Report) LostEntries() (entries, sessions int) {
	for _, s := range r.Losses() {
		entries += len(s.Result.LeftBehind)
		sessions++
	}
	return entries, sessions
}

// Summary is the one-line verdict doctor prints.
func (r *Report) Summary() string {
	n, m := r.LostEntries()
	if refused := len(r.Refusals()); refused > 0 {
		return fmt.Sprintf("the upgrade would be refused: %d %s an event 2026.9.6's import stores once but counts twice (a repeated id or header, see upgrade-refused), so 2026.9.6's doctor --fix would import and archive nothing, for every session; run `oc repair` first",
			refused, plural(refused, "transcript holds", "transcripts hold"))
	}
	if m == 0 {
		return fmt.Sprintf("the upgrade to OpenClaw 2026.8+ would import all %d transcripts whole", r.imported())
	}
	return fmt.Sprintf("the upgrade would leave %d %s of %d %s behind; run `oc repair` first",
		n, plural(n, "entry", "entries"), m, plural(m, "session", "sessions"))
}

func (r *Report) imported() int {
	n := 0
	for _, s := range r.Sessions {
		if s.SessionKey != "" {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// compactionCheckpointRE is COMPACTION_CHECKPOINT_TRANSCRIPT_RE of artifacts-*.mjs.
var compactionCheckpointRE = lazyre.New(`(?i)^(.+)\.checkpoint\.([0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$`)

// archiveSuffixRE is ARCHIVE_SUFFIX_RE of artifacts-*.mjs.
var archiveSuffixRE = lazyre.New(`^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)(?:\.([0-9a-f]{32}))?$`)

// oldQuarantineRE: the quarantine name of oc before <file>.rejected-<stamp>.
var oldQuarantineRE = lazyre.New(`\.jsonl\.rejected-\d{8}T\d{6}Z\.jsonl$`)

// legacyStoreBackupRE is LEGACY_STORE_BACKUP_RE of artifacts-*.mjs.
var legacyStoreBackupRE = lazyre.New(`^sessions\.json\.bak\.\d+$`)

// primaryIDRE is the id a recovered transcript's header must carry
// (readLegacyPrimaryTranscriptIdentity, doctor-session-sqlite-readers-*.mjs).
var primaryIDRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

// isPrimary is isPrimarySessionTranscriptFileName of artifacts-*.mjs: a
// `.jsonl` name that is not a trajectory, a compaction checkpoint or a
// .reset./.deleted./.bak. archive.
func isPrimary(name string) bool {
	if name == "sessions.json" || !strings.HasSuffix(name, ".jsonl") {
		return false
	}
	if strings.HasSuffix(name, ".trajectory.jsonl") || compactionCheckpointRE().MatchString(name) {
		return false
	}
	return !isArchiveArtifact(name)
}

// isArchiveArtifact is isSessionArchiveArtifactName of artifacts-*.mjs.
func isArchiveArtifact(name string) bool {
	if legacyStoreBackupRE().MatchString(name) {
		return true
	}
	n := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
	for _, reason := range []string{"deleted", "reset", "bak"} {
		marker := "." + reason + "."
		if i := strings.LastIndex(n, marker); i >= 0 && archiveSuffixRE().MatchString(n[i+len(marker):]) {
			return true
		}
	}
	return false
}

// Options are the facts of an install the prediction needs beyond its
// files.
type Options struct {
	// DoctorAgent is the agent whose store `openclaw doctor --fix` migrates
	// (the configured default agent); "" is "main".
	DoctorAgent string
}

// PredictStateDir predicts the import of every `*.jsonl*` file under
// <root>/agents/*/sessions (the files the oracle's import report lists),
// for an install whose default agent is "main".
func PredictStateDir(root string) (*Report, error) { return Predict(root, Options{}) }

// Predict is PredictStateDir with the install's options.
func Predict(root string, opt Options) (*Report, error) {
	sd, err := transcript.OpenStateDir(root)
	if err != nil {
		return nil, err
	}
	rep := &Report{StateDir: root, Sessions: []Session{}}
	for _, a := range sd.Agents {
		ss, err := predictAgent(sd.Root, opt, a)
		if err != nil {
			return nil, err
		}
		rep.Sessions = append(rep.Sessions, ss...)
	}
	return rep, nil
}

// registration is what an agent's sessions.json says about its files, as
// the import reads it.
type registration struct {
	byPath map[string]reg  // file path -> first sessions.json entry naming it
	ids    map[string]bool // session ids of registered entries whose file exists
	// owners: session id -> the keys of the entries with that id. An
	// unregistered transcript of a registered session whose own file is
	// missing is imported under that key when it is the only one
	// (discoverLegacyHistoricalTranscripts' lineage owner).
	owners map[string][]string
}

type reg struct{ key, id string }

func readRegistration(stateDir string, opt Options, a transcript.Agent) (registration, error) {
	r := registration{byPath: map[string]reg{}, ids: map[string]bool{}, owners: map[string][]string{}}
	if a.IndexPath == "" {
		return r, nil
	}
	entries, err := transcript.ReadIndex(a.IndexPath)
	if err != nil {
		return r, err
	}
	dropped := doctorDropsSessionFiles(stateDir, opt.DoctorAgent, a, entries)
	for _, e := range entries {
		if e.SessionID == "" {
			continue
		}
		if dropped {
			// see sessionfile.go
			e.SessionFile = ""
			e.Key = canonicalSessionKey(e.Key, a.ID)
		}
		r.owners[e.SessionID] = append(r.owners[e.SessionID], e.Key)
		p, _ := transcript.ResolveSessionFile(a.SessionsDir, e)
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			continue // transcript_missing: the session row is kept, nothing to read
		}
		r.ids[e.SessionID] = true
		if _, ok := r.byPath[p]; !ok {
			r.byPath[p] = reg{e.Key, e.SessionID}
		}
	}
	return r, nil
}

func predictAgent(stateDir string, opt Options, a transcript.Agent) ([]Session, error) {
	rg, err := readRegistration(stateDir, opt, a)
	if err != nil {
		return nil, err
	}
	registered, registeredIDs := rg.byPath, rg.ids
	dirents, err := os.ReadDir(a.SessionsDir)
	if err != nil {
		return nil, err
	}
	var out []Session
	for _, de := range dirents {
		name := de.Name()
		if de.IsDir() || !strings.Contains(name, ".jsonl") || strings.HasSuffix(name, ".lock") {
			continue
		}
		s := Session{Agent: a.ID, Path: filepath.Join(a.SessionsDir, name)}
		if r, ok := registered[s.Path]; ok {
			s.SessionKey, s.SessionID = r.key, r.id
		} else if oldQuarantineRE().MatchString(name) {
			// an older oc's quarantine name ends in .jsonl: 9.6 takes it for an
			// unregistered transcript, cannot claim it, and archives it
			s.Outcome, s.Reason = ArchivedOnly, "oc quarantine file with an old name: archived by the import; oc doctor renames it to <file>.rejected-<stamp>"
		} else if isPrimary(name) {
			s.Reason = "not in sessions.json"
		} else if strings.HasSuffix(name, ".trajectory.jsonl") || compactionCheckpointRE().MatchString(name) {
			// trajectories and checkpoints are moved to the import archive, never imported
			s.Outcome, s.Reason = ArchivedOnly, "checkpoint or trajectory: archived, not imported"
		} else {
			s.Outcome, s.Reason = LeftInPlace, "not a primary transcript name: left where it is"
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	errs := make([]error, len(out))
	parallel.Each(len(out), 0, func(i int) {
		s := &out[i]
		if s.Outcome != "" {
			return
		}
		if s.SessionKey != "" {
			s.Result, errs[i] = PredictFile(s.Path, s.SessionID)
			if errs[i] == nil {
				s.Outcome = s.Result.Outcome()
			}
			return
		}
		claimUnregistered(s, registeredIDs, rg.owners, errs, i)
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// claimUnregistered is readLegacyPrimaryTranscriptIdentity and the recovery
// candidates of doctor-session-sqlite-retirement-*.mjs: a primary transcript
// not in sessions.json is imported as agent:<id>:recovered:<sessionId> only
// when it reads to the end without a malformed line, its first entry is a
// header whose id is the file name's, and it holds a message.
func claimUnregistered(s *Session, registeredIDs map[string]bool, owners map[string][]string, errs []error, i int) {
	stem := FileSessionID(filepath.Base(s.Path))
	res, err := PredictFile(s.Path, stem)
	if err != nil {
		errs[i] = err
		return
	}
	defer func() {
		if s.Outcome == Deferred {
			// moved to the import archive ("protected"), nothing imported:
			// every valid line stays behind
			res.LeftBehind = res.valid
			res.LeftBehindMessages += res.Messages
			res.Unmatched = res.valid
			res.Keys, res.Messages, res.LastMessage = 0, 0, nil
		}
	}()
	s.Outcome = Deferred
	// a file of a registered session whose sessionFile doctor --fix drops
	// (sessionfile.go) is read as unregistered history
	unregistered := "not in sessions.json"
	if len(owners[stem]) > 0 {
		unregistered = "named in sessions.json only by a sessionFile 2026.9.6's doctor --fix drops"
	}
	switch {
	case res.StopLine > 0:
		s.Reason = unregistered + " and damaged (line " + fmt.Sprint(res.StopLine) + ")"
	case res.nonRecord:
		s.Reason = unregistered + " and holds lines that are not entries"
	case res.unrecognized > 0:
		s.Reason = unregistered + " and holds a record that is not a transcript entry (line " + fmt.Sprint(res.unrecognized) + ")"
	case res.extraHeader > 0:
		s.Reason = unregistered + " and holds a second session header (line " + fmt.Sprint(res.extraHeader) + ")"
	case !res.firstEventIsHeader || !primaryIDRE().MatchString(res.HeaderID):
		s.Reason = unregistered + " and no session header"
	case res.HeaderID != stem:
		s.Reason = unregistered + " and its header id differs from the file name"
	case res.badVersion || res.HeaderVersion < 1 || res.HeaderVersion > 3:
		s.Reason = unregistered + " and an unsupported header version"
	case res.Messages == 0:
		s.Reason = unregistered + " and no message"
	case registeredIDs[res.HeaderID]:
		s.Reason = "a registered session already claims this id"
	case len(owners[res.HeaderID]) > 1:
		s.Reason = "sessions.json gives this id to more than one session"
	case len(owners[res.HeaderID]) == 1:
		// its session is registered, but the import reads another file for it
		s.SessionID = res.HeaderID
		s.SessionKey = owners[res.HeaderID][0]
		s.Outcome = res.Outcome()
		s.Reason = ""
	default:
		s.SessionID = res.HeaderID
		s.SessionKey = "agent:" + s.Agent + ":recovered:" + res.HeaderID
		s.Recovered = true
		s.Outcome = res.Outcome()
		s.Reason = ""
	}
	s.Result = res
}
