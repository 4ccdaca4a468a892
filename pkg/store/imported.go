package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/openclaw-tools/oc/internal/lazyre"
)

// The rewrites 2026.9.6's JSONL import applies to the lines it stores
// (measured on the corpus and the oracle's fixtures). Everything else is
// stored byte for byte.
const (
	RewriteNone           = "identical"
	RewriteCodexRoute     = "codex-route-rename"      // api openai-codex-responses -> openai-chatgpt-responses, provider openai-codex -> openai
	RewriteInboundMarker  = "inbound-metadata-marker" // "X (untrusted metadata):" -> "X: ⟦openclaw:ctx⟧"
	RewriteHeaderID       = "header-id-rewrite"       // header id set to the sessions.json sessionId
	RewriteV1IDs          = "v1-generated-ids"        // a v1 file's entries get generated ids and parents
	RewriteReserialized   = "re-serialized"           // same JSON value, other bytes (unknown entry types)
	RewriteHeaderAdded    = "header-added"            // doctor --fix prepends a v3 header to a header-less file
	RewriteHeaderUpgraded = "header-upgraded"         // a v1/v2 header migrated to v3 (version and id set)
)

// Why a source line has no stored row.
const (
	DropBlank          = "blank line"
	DropDuplicate      = "duplicate line (same id) deduplicated"
	DropAfterMalformed = "after the first malformed line: only the readable prefix is imported"
	DropNotObject      = "JSON null is skipped"
)

var (
	inboundMarkerRE = lazyre.New(`([A-Za-z][A-Za-z ]*) \(untrusted metadata\):`)
	generatedIDRE   = lazyre.New(`^[0-9a-f]{16}-[0-9a-z]+$`) // sha256(path\0sessionId)[:16]-<index base36>
	codexAPI        = []byte(`"api":"openai-codex-responses"`)
	codexProvider   = []byte(`"provider":"openai-codex"`)
)

// ExplainRewrite names the import rewrite that turns a source line into the
// stored row, or "" when none of the known rewrites explains the change.
func ExplainRewrite(src, stored []byte) string {
	if bytes.Equal(src, stored) {
		return RewriteNone
	}
	s := bytes.ReplaceAll(src, codexAPI, []byte(`"api":"openai-chatgpt-responses"`))
	s = bytes.ReplaceAll(s, codexProvider, []byte(`"provider":"openai"`))
	codex := !bytes.Equal(s, src)
	m := inboundMarkerRE().ReplaceAll(s, []byte("${1}: ⟦openclaw:ctx⟧"))
	marker := !bytes.Equal(m, s)
	if bytes.Equal(m, stored) {
		switch {
		case codex && marker:
			return RewriteCodexRoute + "+" + RewriteInboundMarker
		case codex:
			return RewriteCodexRoute
		default:
			return RewriteInboundMarker
		}
	}
	a, b := decode(m), decode(stored)
	if a == nil || b == nil {
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return RewriteReserialized
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return ""
	}
	if am["type"] == "session" && bm["type"] == "session" {
		delete(am, "id")
		delete(bm, "id")
		if reflect.DeepEqual(am, bm) {
			return RewriteHeaderID
		}
		delete(am, "version")
		delete(bm, "version")
		if reflect.DeepEqual(am, bm) {
			return RewriteHeaderUpgraded
		}
		return ""
	}
	_, hadID := am["id"]
	if id, _ := bm["id"].(string); !hadID || generatedIDRE().MatchString(id) {
		delete(am, "id")
		delete(bm, "id")
		delete(bm, "parentId")
		delete(am, "parentId")
		if reflect.DeepEqual(am, bm) {
			return RewriteV1IDs
		}
	}
	return ""
}

func decode(b []byte) any {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	return v
}

// LineVerdict is one source line compared with the stored rows.
type LineVerdict struct {
	Line    int    `json:"line"`
	Rewrite string `json:"rewrite,omitempty"` // how the stored row differs
	Dropped string `json:"dropped,omitempty"` // why no row holds it (a known import rule)
	Lost    bool   `json:"lost,omitempty"`    // differs, or missing, with no known reason
}

// CompareImported lines up a JSONL source file with the rows 9.6 stored for
// it (header first, as Export gives them) and explains every difference.
// The error lists the lines no known rewrite or drop explains.
func CompareImported(source []byte, stored [][]byte) ([]LineVerdict, error) {
	lines := bytes.Split(source, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	var out []LineVerdict
	var lost []int
	k := 0
	malformed := false
	seenIDs := map[string]bool{}
	// A header-less file gets a header prepended by doctor --fix.
	if len(stored) > 0 && len(lines) > 0 && isHeader(stored[0]) && !isHeader(bytes.TrimPrefix(bytes.TrimSpace(lines[0]), []byte("\ufeff"))) {
		if first := decode(bytes.TrimSpace(lines[0])); first != nil {
			out = append(out, LineVerdict{Line: 0, Rewrite: RewriteHeaderAdded})
			k = 1
		}
	}
	for i, raw := range lines {
		n := i + 1
		l := bytes.TrimSuffix(raw, []byte("\r"))
		if i == 0 {
			l = bytes.TrimPrefix(l, []byte("\ufeff"))
		}
		switch {
		case malformed:
			out = append(out, LineVerdict{Line: n, Dropped: DropAfterMalformed})
			continue
		case len(bytes.TrimSpace(l)) == 0:
			out = append(out, LineVerdict{Line: n, Dropped: DropBlank})
			continue
		}
		v := decode(l)
		if v == nil && string(bytes.TrimSpace(l)) != "null" {
			malformed = true
			out = append(out, LineVerdict{Line: n, Dropped: "malformed line ends the import"})
			continue
		}
		if v == nil {
			out = append(out, LineVerdict{Line: n, Dropped: DropNotObject})
			continue
		}
		if m, ok := v.(map[string]any); ok {
			if id, ok := m["id"].(string); ok && m["type"] != "session" {
				if seenIDs[id] && (k >= len(stored) || rowID(stored[k]) != id) {
					out = append(out, LineVerdict{Line: n, Dropped: DropDuplicate})
					continue
				}
				seenIDs[id] = true
			}
		}
		if k >= len(stored) {
			out = append(out, LineVerdict{Line: n, Lost: true})
			lost = append(lost, n)
			continue
		}
		rw := ExplainRewrite(l, stored[k])
		k++
		if rw == "" {
			out = append(out, LineVerdict{Line: n, Lost: true})
			lost = append(lost, n)
			continue
		}
		out = append(out, LineVerdict{Line: n, Rewrite: rw})
	}
	if k < len(stored) {
		return out, fmt.Errorf("%d stored rows have no source line (from row %d)", len(stored)-k, k+1)
	}
	if len(lost) > 0 {
		return out, fmt.Errorf("%d source lines differ from the stored rows with no known import rewrite: lines %v", len(lost), lost)
	}
	return out, nil
}

func rowID(row []byte) string {
	var r struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(row, &r) != nil {
		return ""
	}
	s, _ := r.ID.(string)
	return s
}
