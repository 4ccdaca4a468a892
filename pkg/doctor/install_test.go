package doctor

import (
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/cireport"
)

func TestSQLiteAdviceNeverOCRepair(t *testing.T) {
	for _, c := range []struct{ rule, msg string }{
		{"empty-assistant-error", "assistant turn failed with no content; Bedrock rejects the next request (oc repair fills in OpenClaw's placeholder text)"},
		{"blank-user", `user message with blank text; Bedrock rejects it (oc repair writes OpenClaw's "(continue)")`},
		{"malformed-line", "line is not valid JSON; OpenClaw skips it (oc repair salvages what it can and quarantines the rest)"},
		{"parent-cycle", "parentId links form a cycle; OpenClaw 2026.5.6 hangs when it walks this branch; `oc repair` cuts this link"},
	} {
		msg, fix := SQLiteAdvice(c.rule, c.msg)
		if strings.Contains(msg+fix, "oc repair") || strings.Contains(msg, "Bedrock") || fix == "" {
			t.Errorf("%s: %q / %q", c.rule, msg, fix)
		}
	}
}

func TestScopeAndAgents(t *testing.T) {
	if a := sessionAgent("agent:Ops:main"); a != "ops" {
		t.Errorf("sessionAgent %q", a)
	}
	if a := pathAgent("/s", "/s/agents/ops/agent/openclaw-agent.sqlite"); a != "ops" {
		t.Errorf("pathAgent %q", a)
	}
	if a := pathAgent("/s", "/s/state/openclaw.sqlite"); a != "" {
		t.Errorf("pathAgent of the state db %q", a)
	}
	r := &Report{StateDir: "/s", Findings: []Finding{
		{ID: "a", Severity: SevWarning, Session: "agent:main:x"},
		{ID: "b", Severity: SevWarning, Path: "/s/agents/main/sessions/sessions.json"},
		{ID: "c", Severity: SevInfo, Path: "/s/state/openclaw.sqlite"},
		{ID: "d", Severity: SevError, Path: "/s/agents/ops/agent/openclaw-agent.sqlite"},
	}}
	ScopeFindings(r, Scope{Agent: "ops"})
	Recount(r)
	if len(r.Findings) != 2 || r.Findings[0].ID != "c" || r.Findings[1].ID != "d" || r.Remaining != 1 {
		t.Errorf("%+v, remaining %d", r.Findings, r.Remaining)
	}
}

func TestReportFails(t *testing.T) {
	r := &Report{Findings: []Finding{{Severity: SevWarning}, {Severity: SevError, Fixed: true}, {Severity: SevInfo}}}
	for level, want := range map[cireport.Level]bool{"": true, cireport.LevelWarning: true, cireport.LevelError: false, cireport.LevelInfo: true, cireport.LevelNever: false} {
		if got := r.Fails(level); got != want {
			t.Errorf("--fail-on %q: %v, want %v", level, got, want)
		}
	}
}
