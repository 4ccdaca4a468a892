package upgrade

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// ErrIDsRewritten is returned by ImportedRows for a format-v1 transcript
// (no header, or a header older than version 2): 9.6's import gives its
// entries new ids, which oc does not reproduce row by row.
var ErrIDsRewritten = errors.New("a format-v1 transcript: 2026.9.6's import gives its entries new ids")

// ImportedRows are the rows 2026.9.6's import would store for a transcript
// read as its own session: what the 9.6 oracle replays from a JSONL file,
// which it imports first (its `context` mode on FILE.jsonl). They are the
// lines the import reads (before res.StopLine), each a JSON object, with the
// import's Codex route rename (store.CodexRouteRename); an entry whose id
// repeats an earlier entry's is left out, as the store keeps the first.
// Not reproduced: doctor's rewrite of legacy inbound-context labels
// (noteSessionTranscriptLabelHealth), which the oracle applied to some
// corpus sessions and not to others.
func ImportedRows(path string) (rows [][]byte, res *FileResult, err error) {
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if res, err = PredictFile(path, id); err != nil {
		return nil, nil, err
	}
	if res.IDsRewritten > 0 || res.NoHeader || res.HeaderVersion < 2 {
		return nil, res, fmt.Errorf("%s: %w", path, ErrIDsRewritten)
	}
	f, _, err := durable.OpenRegular(path)
	if err != nil {
		return nil, res, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	seen := map[string]bool{}
	headerDone := false
	for line := int64(1); sc.Scan(); line++ {
		if res.StopLine > 0 && line >= res.StopLine {
			break
		}
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if jsonl.IsBlank(b) || !jsonl.Valid(b) || jsonl.ValueKind(bytes.TrimSpace(b)) != '{' {
			continue
		}
		var entryID string
		jsonl.Members(b, func(k, v []byte) bool {
			if string(k) == "id" { // the last one wins, as in JSON.parse
				entryID, _ = jsonl.StringValue(v)
			}
			return true
		})
		if entryID != "" {
			if seen[entryID] {
				continue
			}
			seen[entryID] = true
		}
		if n, changed := normalizeLoadedEntry(b, res.HeaderVersion); changed {
			b = n
		}
		if res.HeaderVersion == 2 && !headerDone {
			// The header of a version-2 file is stored as version 3
			// (migrateSessionFileEntryToCurrentVersion; the database's header
			// row says 3, and 9.6 builds requests from it, where version 2
			// has no prompt projection).
			if n, ok := headerAsVersion3(b); ok {
				b, headerDone = n, true
			}
		}
		rows = append(rows, store.CodexRouteRename(b)) // a copy: b is the scanner's buffer
	}
	if err := sc.Err(); err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	return rows, res, nil
}

// normalizeLoadedEntry is what 2026.9.6's import does to each event before
// storing it (doctor-session-sqlite-readers-*.mjs iterateTranscriptEvents:
// normalizeLoadedFileEntry, session-manager-codec-*.mjs): an assistant or
// toolResult message whose content is a string gets
// [{type: "text", text}] and loses a compaction replay checkpoint
// (providerReplay of type anthropic-compaction, openai-responses-compaction
// or openai-responses-retained-compaction); a toolResult whose content is
// an object gets [content]. A version-2 file's hookMessage becomes a custom
// message with customType "hook" when it has none (the v3 migration,
// migrateSessionFileEntryToCurrentVersion). The row is then written as
// JSON.stringify writes it; rows it does not touch keep their bytes.
func normalizeLoadedEntry(b []byte, version int) ([]byte, bool) {
	if !mayNormalize(b, version) {
		return b, false // the usual row: not parsed a second time
	}
	v, err := jsjson.Parse(b)
	if err != nil {
		return b, false
	}
	e, ok := v.(*jsjson.Object)
	if !ok {
		return b, false
	}
	if t, _ := e.Get("type"); t != "message" {
		return b, false
	}
	mv, _ := e.Get("message")
	m, ok := mv.(*jsjson.Object)
	if !ok {
		return b, false
	}
	role, _ := m.Get("role")
	content, hasContent := m.Get("content")
	changed := false
	switch c := content.(type) {
	case string:
		if hasContent && (role == "assistant" || role == vocab.RoleToolResult) {
			block := &jsjson.Object{}
			block.Set("type", "text")
			block.Set("text", c)
			m.Set("content", []any{block})
			if r, ok := m.Get("providerReplay"); ok {
				if ro, ok := r.(*jsjson.Object); ok {
					if t, _ := ro.Get("type"); t == "anthropic-compaction" || t == "openai-responses-compaction" || t == "openai-responses-retained-compaction" {
						m.Delete("providerReplay")
					}
				}
			}
			changed = true
		}
	case *jsjson.Object:
		if role == vocab.RoleToolResult {
			m.Set("content", []any{c})
			changed = true
		}
	}
	if version < 3 && role == "hookMessage" {
		m.Set("role", "custom")
		if ct, _ := m.Get("customType"); !jsTruthy(ct) {
			m.Set("customType", "hook")
		}
		changed = true
	}
	if !changed {
		return b, false
	}
	out, err := jsjson.Marshal(e)
	if err != nil {
		return b, false
	}
	return out, true
}

// jsTruthy is JavaScript's truthiness of a parsed JSON value.
func jsTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && x == x
	case string:
		return x != ""
	}
	return true
}

// mayNormalize is normalizeLoadedEntry's cheap test on the raw row: a
// message entry whose role and content kind it rewrites.
func mayNormalize(b []byte, version int) bool {
	var typ, msg []byte
	jsonl.Members(b, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = v
		case "message":
			msg = v
		}
		return true
	})
	if t, ok := jsonl.StringValue(typ); !ok || t != "message" || jsonl.ValueKind(msg) != '{' {
		return false
	}
	var role, content []byte
	jsonl.Members(msg, func(k, v []byte) bool {
		switch string(k) {
		case "role":
			role = v
		case "content":
			content = v
		}
		return true
	})
	r, _ := jsonl.StringValue(role)
	switch r {
	case "assistant":
		return jsonl.ValueKind(content) == '"'
	case vocab.RoleToolResult:
		k := jsonl.ValueKind(content)
		return k == '"' || k == '{'
	case "hookMessage":
		return version < 3
	}
	return false
}

// headerAsVersion3 rewrites a session header row whose version is 2 as
// version 3 (its members in place); ok is false for any other row.
func headerAsVersion3(b []byte) ([]byte, bool) {
	if !bytes.Contains(b, []byte(`"session"`)) {
		return nil, false
	}
	v, err := jsjson.Parse(b)
	if err != nil {
		return nil, false
	}
	e, ok := v.(*jsjson.Object)
	if !ok {
		return nil, false
	}
	if t, _ := e.Get("type"); t != "session" {
		return nil, false
	}
	if ver, _ := e.Get("version"); ver != float64(2) {
		return nil, false
	}
	e.Set("version", float64(3))
	out, err := jsjson.Append(nil, e)
	if err != nil {
		return nil, false
	}
	return out, true
}
