package transcript

import (
	"strings"

	"github.com/openclaw-tools/oc/internal/lazyre"
)

// A Go copy of OpenClaw 2026.5.6's session artifact naming rules
// (src/config/sessions/artifacts.ts, dist/artifacts-*.js). They decide which
// files of a sessions folder OpenClaw treats as live sessions: its doctor
// offers to archive them, its disk-budget cleanup deletes them, and
// 2026.9.6's upgrade imports them as history. No file oc creates in a
// sessions folder may be one (TestOpenClawNamingRuleAgreesWithNode checks the
// copy against the JS function under node).
var (
	openclawArchiveTimestampRE = lazyre.New(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}(?:\.[0-9]{3})?Z$`)
	openclawLegacyStoreBackup  = lazyre.New(`^sessions\.json\.bak\.[0-9]+$`)
	// JavaScript's "." does not match \n, \r, U+2028 or U+2029. The JS regex
	// is /i without /u: only ASCII letters fold (Go's (?i) would also fold
	// U+212A to k and U+017F to s), hence the explicit classes.
	openclawCheckpointRE = lazyre.New(`^[^\n\r\x{2028}\x{2029}]+\.[cC][hH][eE][cC][kK][pP][oO][iI][nN][tT]\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}\.[jJ][sS][oO][nN][lL]$`)
)

func openclawHasArchiveSuffix(name, reason string) bool {
	marker := "." + reason + "."
	i := strings.LastIndex(name, marker)
	if i < 0 {
		return false
	}
	return openclawArchiveTimestampRE().MatchString(name[i+len(marker):])
}

// IsSessionArchiveArtifactName is OpenClaw's isSessionArchiveArtifactName.
func IsSessionArchiveArtifactName(name string) bool {
	if openclawLegacyStoreBackup().MatchString(name) {
		return true
	}
	return openclawHasArchiveSuffix(name, "deleted") || openclawHasArchiveSuffix(name, "reset") || openclawHasArchiveSuffix(name, "bak")
}

// IsPrimarySessionTranscriptFileName is OpenClaw 2026.5.6's
// isPrimarySessionTranscriptFileName: a ".jsonl" name that is not
// sessions.json, not a trajectory, not a compaction checkpoint and not an
// archive counts as a live session.
func IsPrimarySessionTranscriptFileName(name string) bool {
	if name == "sessions.json" {
		return false
	}
	if !strings.HasSuffix(name, ".jsonl") {
		return false
	}
	if strings.HasSuffix(name, ".trajectory.jsonl") {
		return false
	}
	if openclawCheckpointRE().MatchString(name) {
		return false
	}
	return !IsSessionArchiveArtifactName(name)
}
