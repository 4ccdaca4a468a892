package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/oracletest"
)

// independentCount counts a transcript the simplest way there is, without any
// of oc's code: split on "\n", drop a trailing "\r", skip blank lines, keep
// what encoding/json accepts, group by "type" and by "message.role".
func independentCount(t *testing.T, path string) (entries int, byType, byRole map[string]int) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	byType, byRole = map[string]int{}, map[string]int{}
	// OpenClaw reads the file as text and trims it, which drops a leading BOM.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || !json.Valid([]byte(line)) {
			continue
		}
		entries++
		var e struct {
			Type    any `json:"type"`
			Message *struct {
				Role any `json:"role"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &e) != nil {
			byType["(not an object)"]++
			continue
		}
		typ, ok := e.Type.(string)
		if !ok {
			typ = "(no type)"
		}
		byType[typ]++
		if typ == "message" {
			role, ok := "", false
			if e.Message != nil {
				role, ok = e.Message.Role.(string)
			}
			if !ok || strings.TrimSpace(role) == "" {
				role = "(none)"
			}
			byRole[role]++
		}
	}
	return entries, byType, byRole
}

type inspectDoc struct {
	Entries      int            `json:"entries"`
	ByType       map[string]int `json:"byType"`
	ByRole       map[string]int `json:"byRole"`
	ActiveBranch struct {
		Messages int `json:"messages"`
	} `json:"activeBranch"`
}

func inspectJSON(t *testing.T, path string) inspectDoc {
	code, out, errOut := runOC(t, false, nil, "inspect", path, "--json")
	require.Equal(t, cli.ExitOK, code, "%s: %s", path, errOut)
	var d inspectDoc
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	return d
}

// edgeTranscripts are small files that exercise every path of OpenClaw's
// context building: compaction with kept entries, branch summaries, custom
// messages, abandoned branches, a missing parent, duplicate ids, a version-1
// file that is migrated on open, a damaged header, a null last id.
func edgeTranscripts(t *testing.T, dir string) []string {
	h := func(extra string) string {
		return `{"type":"session"` + extra + `,"id":"edge","timestamp":"2026-05-01T00:00:00.000Z","cwd":"/"}`
	}
	m := func(id, parent, role, text string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return fmt.Sprintf(`{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-05-01T00:00:01.000Z","message":{"role":"%s","content":[{"type":"text","text":"%s"}],"timestamp":1777593601000}}`, id, p, role, text)
	}
	files := map[string][]string{
		"compaction.jsonl": {h(`,"version":3`), m("a", "", "user", "one"), m("b", "a", "assistant", "two"), m("c", "b", "user", "three"),
			`{"type":"compaction","id":"k","parentId":"c","timestamp":"2026-05-01T00:00:05.000Z","summary":"sum","firstKeptEntryId":"b","tokensBefore":100}`,
			m("d", "k", "assistant", "four")},
		"compaction-no-kept.jsonl": {h(`,"version":3`), m("a", "", "user", "one"),
			`{"type":"compaction","id":"k","parentId":"a","timestamp":"bad date","summary":"s","firstKeptEntryId":"zzz","tokensBefore":1}`, m("d", "k", "user", "x")},
		"branch-summary.jsonl": {h(`,"version":3`), m("a", "", "user", "one"), m("b", "a", "assistant", "abandoned"),
			`{"type":"branch_summary","id":"s","parentId":"a","timestamp":"2026-05-01T00:00:03.000Z","fromId":"b","summary":"tried something"}`,
			`{"type":"branch_summary","id":"s2","parentId":"s","timestamp":"2026-05-01T00:00:03.000Z","fromId":"b","summary":""}`,
			`{"type":"custom_message","customType":"openclaw.runtime-context","content":"ctx","display":false,"id":"cm","parentId":"s2","timestamp":"2026-05-01T00:00:04.000Z"}`,
			`{"type":"custom","customType":"model-snapshot","data":{},"id":"cu","parentId":"cm","timestamp":"2026-05-01T00:00:04.000Z"}`,
			`{"type":"thinking_level_change","id":"tl","parentId":"cu","timestamp":"2026-05-01T00:00:04.000Z","thinkingLevel":"high"}`,
			`{"type":"model_change","id":"mc","parentId":"tl","timestamp":"2026-05-01T00:00:04.000Z","provider":"openai","modelId":"gpt-5"}`,
			m("c", "mc", "user", "again")},
		"missing-parent.jsonl": {h(`,"version":3`), m("a", "", "user", "one"), m("b", "a", "assistant", "two"), m("d", "gone", "user", "after the gap")},
		"duplicate-ids.jsonl":  {h(`,"version":3`), m("a", "", "user", "one"), m("a", "", "user", "one again"), m("b", "a", "assistant", "two")},
		"version1.jsonl": {h(``), m("x", "", "user", "one"), m("y", "nowhere", "assistant", "two"),
			`{"type":"compaction","id":"k","parentId":"y","timestamp":"2026-05-01T00:00:05.000Z","summary":"sum","firstKeptEntryIndex":2,"tokensBefore":9}`,
			m("z", "q", "user", "three")},
		"version2-hook.jsonl":    {h(`,"version":2`), m("a", "", "user", "one"), `{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"x","content":"hook","display":true,"timestamp":1}}`},
		"damaged-header.jsonl":   {`{"type":"sess`, m("a", "", "user", "one"), m("b", "a", "assistant", "two")},
		"null-last-id.jsonl":     {h(`,"version":3`), m("a", "", "user", "one"), `{"type":"label","id":null,"parentId":"a","timestamp":"2026-05-01T00:00:02.000Z","targetId":"a","label":"x"}`},
		"garbage-lines.jsonl":    {"\x00\x00", h(`,"version":3`), "not json", m("a", "", "user", "one"), `{"type":"message"`, m("b", "a", "assistant", "two"), "   "},
		"crlf-bom.jsonl":         {"\ufeff" + h(`,"version":3`) + "\r", m("a", "", "user", "one") + "\r", m("b", "a", "assistant", "two") + "\r"},
		"no-message-field.jsonl": {h(`,"version":3`), m("a", "", "user", "one"), `{"type":"message","id":"b","parentId":"a","timestamp":"2026-05-01T00:00:02.000Z"}`, m("c", "b", "user", "three")},
	}
	var paths []string
	for name, lines := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		paths = append(paths, p)
	}
	return paths
}

// The acceptance test of `oc inspect`, part one: on the edge-case files
// (always) and on every corpus transcript (live and archived names, when
// ../shared is there) the counts equal an independent count. It needs no
// oracle, so it never skips together with the oracle comparison below.
func TestInspectMatchesIndependentCount(t *testing.T) {
	check := func(t *testing.T, files []string) int {
		n := 0
		for _, f := range files {
			name := filepath.Base(f)
			d := inspectJSON(t, f)
			entries, byType, byRole := independentCount(t, f)
			ok := assert.Equal(t, entries, d.Entries, "%s: entries", name)
			ok = assert.Equal(t, byType, d.ByType, "%s: byType", name) && ok
			ok = assert.Equal(t, byRole, nonEmpty(d.ByRole), "%s: byRole", name) && ok
			if ok {
				n++
			}
		}
		return n
	}
	t.Run("edge", func(t *testing.T) {
		files := edgeTranscripts(t, t.TempDir())
		require.Equal(t, 12, len(files), "edge-case files")
		assert.Equal(t, len(files), check(t, files), "edge-case files counted equal")
	})
	t.Run("corpus", func(t *testing.T) {
		files := oracletest.Transcripts(t)
		require.NotEmpty(t, files)
		assert.Equal(t, len(files), check(t, files), "corpus transcripts counted equal")
	})
}

// Part two: activeBranch.messages equals the length of the context OpenClaw
// 2026.5.6 itself builds (the oracle, one batch process for all files), on
// every corpus transcript and edge-case file.
func TestInspectActiveBranchMatchesOracleContext(t *testing.T) {
	files := append(oracletest.Transcripts(t), edgeTranscripts(t, t.TempDir())...)
	var jobs []oracletest.Job
	for i, f := range files {
		jobs = append(jobs, oracletest.Job{ID: fmt.Sprint(i), Mode: "context", Args: []string{f}})
	}
	results := oracletest.Batch(t, jobs, 5*time.Minute)
	compared := 0
	for i, f := range files {
		name := filepath.Base(f)
		d := inspectJSON(t, f)
		r, ok := results[fmt.Sprint(i)]
		require.True(t, ok, "%s: no oracle answer", name)
		if name == "no-message-field.jsonl" {
			// OpenClaw itself throws on a message entry without a message
			// ("Cannot read properties of undefined"); oc reads it.
			if assert.False(t, r.OK, "%s: the oracle was expected to fail", name) {
				compared++
			}
			continue
		}
		require.True(t, r.OK, "%s: oracle failed: %s", name, r.Error)
		var ctx struct {
			Messages []json.RawMessage `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(r.Out, &ctx))
		if assert.Equal(t, len(ctx.Messages), d.ActiveBranch.Messages, "%s: activeBranch.messages vs OpenClaw's context", name) {
			compared++
		}
	}
	oracletest.Compared(t, "oc inspect activeBranch.messages vs the oracle's context (corpus transcripts + edge files)", compared, len(files))
}

func nonEmpty(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}
