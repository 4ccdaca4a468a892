// Package repair finds and fixes damage in OpenClaw session transcripts: the
// rules of OpenClaw 2026.5.6's repairSessionFileIfNeeded (byte-compatible in
// effect, checked against the release itself), the rules later OpenClaw
// releases added, and oc's own salvage, header and tree rules.
//
// PlanFile reads a file and says what would change (read-only); ApplyFile
// changes it safely (OpenClaw's write lock, backup, quarantine of every
// dropped or rewritten line, atomic replace); Undo restores the newest backup.
package repair

import (
	"fmt"
	"sort"
	"strings"
)

// RuleSet names a set of rules.
type RuleSet string

const (
	// RuleSetOpenClaw is exactly what OpenClaw 2026.5.6's repair does
	// (malformed-line, empty-assistant-error, blank-user-text).
	RuleSetOpenClaw RuleSet = "openclaw-2026.5.6"
	// RuleSetAll is the default: the 2026.5.6 rules, the rules later OpenClaw
	// releases added, and oc's salvage, header and tree rules.
	RuleSetAll RuleSet = "all"
)

// ParseRuleSet accepts "all", "openclaw-2026.5.6" (and "openclaw").
func ParseRuleSet(s string) (RuleSet, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "all", "default":
		return RuleSetAll, nil
	case "openclaw-2026.5.6", "openclaw", "2026.5.6":
		return RuleSetOpenClaw, nil
	}
	return "", fmt.Errorf("unknown rule set %q (want %q or %q)", s, RuleSetAll, RuleSetOpenClaw)
}

// Rule ids. They appear in reports, --json and the quarantine file.
const (
	RuleMalformedLine       = "malformed-line"
	RuleEmptyAssistantError = "empty-assistant-error"
	RuleBlankUserText       = "blank-user-text"
	RuleInvalidMessageRole  = "invalid-message-role"
	RuleCorruptedImage      = "corrupted-image"
	RuleCodeModeToolResult  = "missing-tool-result-code-mode"
	RuleMirrorToolResult    = "missing-tool-result-before-mirror"
	RuleSalvageGlued        = "salvage-glued-entries"
	RuleSalvageGarbage      = "salvage-garbage-around-entry"
	RuleDuplicateSalvage    = "salvage-duplicate-id"
	RuleInvalidUTF8         = "invalid-utf8"
	RuleHeaderRebuild       = "header-rebuild"
	RuleRelinkParent        = "relink-parent"
	RuleRecoveryNonEntry    = "recovery-non-entry"
	RuleRecoveryHeaderID    = "recovery-header-id"
	RuleRepeatedID          = "repeated-id"
	RuleParentCycle         = "parent-cycle"
	RuleRepeatedHeader      = "repeated-header"
	RuleRepeatedRow         = "repeated-row"
)

// Scope says what a rule looks at.
type Scope string

const (
	ScopeLine  Scope = "line"  // one physical line (parse, salvage)
	ScopeEntry Scope = "entry" // one parsed entry
	ScopeFile  Scope = "file"  // needs the whole file (header, tree, tool results)
)

// Rule is one entry of the registry.
type Rule struct {
	ID     string `json:"id"`
	Origin string `json:"origin"` // the OpenClaw release (and PR) it comes from, or "oc"
	Reason string `json:"reason"` // one line: what it fixes and why
	Scope  Scope  `json:"scope"`
	// InOpenClaw is true for the rules of RuleSetOpenClaw.
	InOpenClaw bool `json:"openclaw_2026_5_6"`
	// Apply is the rule's function for entry rules; nil for line and file
	// rules, which the planner runs because they need neighbouring lines.
	Apply func(e *Entry) EntryFix `json:"-"`
}

// Rules returns the registry in the order the rules run.
func Rules() []Rule {
	return []Rule{
		{ID: RuleSalvageGlued, Origin: "oc", Scope: ScopeLine,
			Reason: "two or more entries glued on one line (`}{`, a lost newline): split them instead of dropping both"},
		{ID: RuleSalvageGarbage, Origin: "oc", Scope: ScopeLine,
			Reason: "NUL bytes, garbage or a cut-off record before/after a complete entry: keep the entry, quarantine the rest"},
		{ID: RuleMalformedLine, Origin: "OpenClaw 2026.5.6", Scope: ScopeLine, InOpenClaw: true,
			Reason: "a line JSON.parse rejects (cut off by a crash, `undefined`, control characters) is dropped; oc keeps it in the quarantine file"},
		{ID: RuleDuplicateSalvage, Origin: "oc", Scope: ScopeLine,
			Reason: "a salvaged entry whose id an earlier entry already has is an overlapping duplicate write: quarantined, not kept twice"},
		{ID: RuleInvalidUTF8, Origin: "oc", Scope: ScopeLine,
			Reason: "bytes that are not UTF-8 (read as U+FFFD) make OpenClaw 2026.8+'s SQLite import stop at their 64 KiB block, leaving the rest of the session behind: written as U+FFFD"},
		{ID: RuleInvalidMessageRole, Origin: "OpenClaw after 2026.5.6 (PR #77288)", Scope: ScopeEntry, Apply: fixInvalidRole,
			Reason: "a message entry without a message object or with a null/blank role cannot be replayed to any provider: dropped (#77228)"},
		{ID: RuleEmptyAssistantError, Origin: "OpenClaw 2026.5.6 (PR #71627)", Scope: ScopeEntry, InOpenClaw: true, Apply: fixEmptyAssistantError,
			Reason: "an assistant turn with content [] and stopReason \"error\" makes strict providers reject every later turn: given the text " + strconvQuote(StreamErrorFallbackText)},
		{ID: RuleCorruptedImage, Origin: "OpenClaw after 2026.5.6 (PR #80969)", Scope: ScopeEntry, Apply: fixCorruptedImages,
			Reason: "an image block whose base64 is not a real image (non-ASCII, bad base64, unknown signature) is replayed forever and rejected: replaced by " + strconvQuote(CorruptedImageFallbackText)},
		{ID: RuleBlankUserText, Origin: "OpenClaw 2026.5.6 (PR #75606)", Scope: ScopeEntry, InOpenClaw: true, Apply: fixBlankUser,
			Reason: "blank user text is rejected by Bedrock and others: blank text blocks removed, an empty message becomes " + strconvQuote(BlankUserFallbackText)},
		{ID: RuleHeaderRebuild, Origin: "oc", Scope: ScopeFile,
			Reason: "a missing or damaged session header makes OpenClaw start the session over and wipe the file: rebuilt from the file name and the first entry's timestamp"},
		{ID: RuleRecoveryNonEntry, Origin: "oc", Scope: ScopeLine,
			Reason: "in a transcript not in sessions.json, a line OpenClaw 2026.8+'s import does not take for an entry (a JSON array, string, number or true, a trajectory record, an object without id and parentId of no known entry type) makes the import archive the whole file without importing it: quarantined (only in a file that holds a message)"},
		{ID: RuleRecoveryHeaderID, Origin: "oc", Scope: ScopeFile,
			Reason: "in a transcript not in sessions.json, a header id other than the file name's session id makes OpenClaw 2026.8+'s import archive the file without importing it: the header id is set to the file name's, as 2026.8+ itself replaces a registered transcript's header id by sessions.json's (the original header line is quarantined)"},
		{ID: RuleRepeatedID, Origin: "oc", Scope: ScopeFile,
			Reason: "an entry whose id repeats an earlier entry's with different content makes OpenClaw 2026.8+'s import store one of them, fail its own count check (sqlite_transcript_count_mismatch) and refuse the migration of the whole state dir: the later entry gets a new id (its id plus \"-oc\" and its line number) and the entries written after it that name the id as parentId or firstKeptEntryId name the new one (the original lines are quarantined)"},
		{ID: RuleRepeatedHeader, Origin: "oc", Scope: ScopeFile,
			Reason: "a session header written again inside the transcript (a header line repeated verbatim) is an event OpenClaw 2026.8+'s import stores once but counts twice: it fails its own count check (sqlite_transcript_count_mismatch) and refuses the migration of the whole state dir: the repeat is quarantined (an entry of another type with the header's id is renamed by repeated-id)"},
		{ID: RuleRepeatedRow, Origin: "oc", Scope: ScopeFile,
			Reason: "a line that repeats an earlier line byte for byte and is not an entry OpenClaw indexes (a record of an unknown type, an object without an id, a JSON array) is a row OpenClaw 2026.8+'s import stores once but counts twice: it fails its count check (sqlite_transcript_count_mismatch) and refuses the migration of the whole state dir: the copy is quarantined (an exact repeat of an indexed entry is left alone: the import drops it itself)"},
		{ID: RuleParentCycle, Origin: "oc", Scope: ScopeFile,
			Reason: "parentId links that form a cycle (m1's parent m3, m3's m2, m2's m1; an entry its own parent) make OpenClaw 2026.5.6's context build loop forever, so the session hangs: the link of the cycle's entry written first, which names an entry written after it, is cut, and the entry's parent becomes the nearest entry before it (null when there is none): the link 2026.9.6 cuts when it reads the file and the parent it reads for the entry, so 2026.9.6 reads the same branch as before (the original line is quarantined)"},
		{ID: RuleRelinkParent, Origin: "oc", Scope: ScopeFile,
			Reason: "an entry whose parent was lost is re-linked to the nearest surviving ancestor (a compaction whose first kept entry was lost keeps from the entry re-linked in its place), so the active branch keeps its history"},
		{ID: RuleCodeModeToolResult, Origin: "OpenClaw after 2026.5.6 (PR #76420)", Scope: ScopeFile,
			Reason: "a code-mode (openai-codex/openai-chatgpt Responses) tool call without a result anywhere gets a synthetic \"aborted\" result after it"},
		{ID: RuleMirrorToolResult, Origin: "OpenClaw after 2026.5.6 (PR #80969)", Scope: ScopeFile,
			Reason: "a Responses `message` tool call followed by a delivery mirror and no result gets a synthetic \"aborted\" result after it"},
	}
}

// Breaking reports whether rule fixes damage that breaks OpenClaw outright
// rather than degrading a session: a context build that never returns
// (parent-cycle) or an upgrade to 2026.8+ refused for the whole state dir
// (repeated-header, repeated-id, repeated-row). Reports give such a finding the level
// error (doctor, inspect's repair finding).
func Breaking(rule string) bool {
	switch rule {
	case RuleParentCycle, RuleRepeatedHeader, RuleRepeatedID, RuleRepeatedRow:
		return true
	}
	return false
}

// BreakingRules are the rules of counts that Breaking reports, in registry
// order.
func BreakingRules(counts map[string]int) []string {
	var out []string
	for id := range counts {
		if Breaking(id) {
			out = append(out, id)
		}
	}
	SortRuleIDs(out)
	return out
}

// ruleOrder gives each rule id its registry position (for stable reports).
func ruleOrder(id string) int {
	for i, r := range Rules() {
		if r.ID == id {
			return i
		}
	}
	return 1 << 20
}

// SortRuleIDs sorts rule ids in registry order.
func SortRuleIDs(ids []string) {
	sort.SliceStable(ids, func(i, j int) bool { return ruleOrder(ids[i]) < ruleOrder(ids[j]) })
}

func strconvQuote(s string) string { return "\"" + s + "\"" }

// The fallback texts, byte-identical to OpenClaw's.
const (
	StreamErrorFallbackText    = "[assistant turn failed before producing content]"
	BlankUserFallbackText      = "(continue)"
	CorruptedImageFallbackText = "[image omitted: corrupted base64 payload]"
	SyntheticToolResultText    = "aborted"
)
