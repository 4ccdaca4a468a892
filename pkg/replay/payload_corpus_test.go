package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// limitedMessages decodes a stored sanitize answer's out.limited, with the key
// order of its objects.
func limitedMessages(t testing.TB, out json.RawMessage) ([]Message, *KeyOrder) {
	t.Helper()
	var s struct {
		Limited []json.RawMessage `json:"limited"`
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("sanitize answer: %v", err)
	}
	msgs, keys, err := DecodeMessagesKeyed(s.Limited, false)
	if err != nil {
		t.Fatal(err)
	}
	return msgs, keys
}

// TestPayloadMatchesStoredOracleAnswers is the main differential test: for
// every corpus transcript and triple, the oracle's sanitized `limited` list
// goes through BuildPayload and must give the oracle's `payload` body. It
// counts byte-identical bodies (same text as JSON.stringify) and requires
// every body to be equal as JSON after normalising only request options
// outside the conversation (max_tokens, stream, store) and cache markers.
func TestPayloadMatchesStoredOracleAnswers(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	type tally struct{ files, bytesEqual, jsonEqual, normEqual int }
	counts := map[[3]string]*tally{}
	for _, tr := range oracleTriples {
		counts[tr] = &tally{}
	}
	for _, file := range files {
		base := filepath.Base(file)
		for _, tr := range oracleTriples {
			key := strings.Join([]string{base, "sanitize", tr[0], tr[1], tr[2]}, "|")
			san, ok := answers[key]
			if !ok || !san.OK {
				continue
			}
			want, ok := answers[strings.Join([]string{base, "payload", tr[0], tr[1], tr[2]}, "|")]
			if !ok {
				t.Errorf("%s: no stored payload answer", key)
				continue
			}
			c := counts[tr]
			c.files++
			name := fmt.Sprintf("%s/%s", strings.Join(tr[:], "/"), base)
			msgs, keys := limitedMessages(t, san.Out)
			p, err := BuildPayload(PayloadInput{Provider: tr[0], API: tr[1], Model: tr[2], Messages: msgs, KeyOrder: keys})
			if !want.OK {
				if err == nil {
					t.Errorf("%s: oracle failed (%s) but BuildPayload succeeded", name, want.Error)
				} else {
					c.bytesEqual++
					c.jsonEqual++
					c.normEqual++
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			got, err := p.AppendJSON(nil)
			if err != nil {
				t.Errorf("%s: encode: %v", name, err)
				continue
			}
			if bytes.Equal(got, want.Out) {
				c.bytesEqual++
			}
			g, w := decodeJSON(t, got), decodeJSON(t, want.Out)
			if reflect.DeepEqual(g, w) {
				c.jsonEqual++
			}
			normalizePayload(g)
			normalizePayload(w)
			if reflect.DeepEqual(g, w) {
				c.normEqual++
			} else {
				t.Errorf("%s: payload differs from the oracle's\n%s", name, firstDifference(g, w, "$"))
			}
		}
	}
	for _, tr := range oracleTriples {
		c := counts[tr]
		t.Logf("%-70s files %2d  byte-identical %2d  JSON-equal %2d  normalised-equal %2d",
			strings.Join(tr[:], "/"), c.files, c.bytesEqual, c.jsonEqual, c.normEqual)
	}
}

func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

// normalizePayload removes what the acceptance criteria let a comparison
// ignore: request options outside the conversation (max_tokens, stream,
// store) and cache markers (cache_control members, Bedrock cachePoint blocks).
func normalizePayload(v any) {
	if m, ok := v.(map[string]any); ok {
		delete(m, "max_tokens")
		delete(m, "stream")
		delete(m, "store")
	}
	stripCacheMarkers(v)
}

func stripCacheMarkers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "cache_control")
		for k, e := range x {
			x[k] = stripCacheMarkers(e)
		}
	case []any:
		out := x[:0]
		for _, e := range x {
			if m, ok := e.(map[string]any); ok && len(m) == 1 && m["cachePoint"] != nil {
				continue
			}
			out = append(out, stripCacheMarkers(e))
		}
		return out
	}
	return v
}

// firstDifference describes where two decoded JSON values first differ.
func firstDifference(got, want any, path string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an object", path, short(got))
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, gok := g[k]
			wv, wok := w[k]
			switch {
			case !gok:
				return fmt.Sprintf("%s.%s: missing, want %s", path, k, short(wv))
			case !wok:
				return fmt.Sprintf("%s.%s: unexpected %s", path, k, short(gv))
			case !reflect.DeepEqual(gv, wv):
				return firstDifference(gv, wv, path+"."+k)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an array", path, short(got))
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if !reflect.DeepEqual(g[i], w[i]) {
				return firstDifference(g[i], w[i], fmt.Sprintf("%s[%d]", path, i))
			}
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: %d elements, want %d (next want %s)", path, len(g), len(w), short(w[min(len(g), len(w)-1)]))
		}
	}
	return fmt.Sprintf("%s: got %s, want %s", path, short(got), short(want))
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
