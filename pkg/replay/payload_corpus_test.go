package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/replay/internal/replaytest"
)

// limitedMessages decodes a stored sanitize answer's out.limited.
func limitedMessages(t testing.TB, out json.RawMessage) []Message {
	t.Helper()
	var s struct {
		Limited []json.RawMessage `json:"limited"`
	}
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("sanitize answer: %v", err)
	}
	msgs, err := DecodeMessages(s.Limited, false)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestPayloadMatchesStoredOracleAnswers is the main differential test: for
// every corpus transcript and triple, the oracle's sanitized `limited` list
// goes through BuildPayload and must give the oracle's `payload` body byte
// for byte (wireDifference). Every (transcript, triple) pair must have both
// stored answers and be compared: corpus transcripts x triples.
func TestPayloadMatchesStoredOracleAnswers(t *testing.T) {
	answers := oracletest.StoredAnswers(t)
	files := oracletest.Transcripts(t)
	compared := 0
	perTriple := map[[3]string]int{}
	for _, file := range files {
		base := filepath.Base(file)
		for _, tr := range replaytest.OracleTriples() {
			name := fmt.Sprintf("%s/%s", strings.Join(tr[:], "/"), base)
			san, ok := answers[strings.Join([]string{base, "sanitize", tr[0], tr[1], tr[2]}, "|")]
			if !ok || !san.OK {
				t.Errorf("%s: no stored sanitize answer (ok=%v %s): regenerate ../shared/corpus/oracle-answers.jsonl", name, san.OK, san.Error)
				continue
			}
			want, ok := answers[strings.Join([]string{base, "payload", tr[0], tr[1], tr[2]}, "|")]
			if !ok {
				t.Errorf("%s: no stored payload answer", name)
				continue
			}
			msgs := limitedMessages(t, san.Out)
			p, err := BuildPayload(PayloadInput{Provider: tr[0], API: tr[1], Model: tr[2], Messages: msgs})
			if !want.OK {
				if err == nil {
					t.Errorf("%s: oracle failed (%s) but BuildPayload succeeded", name, want.Error)
				} else {
					compared++
					perTriple[tr]++
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
			if d := wireDifference(t, got, want.Out); d != "" {
				t.Errorf("%s: payload differs from the oracle's\n%s", name, d)
				continue
			}
			compared++
			perTriple[tr]++
		}
	}
	for _, tr := range replaytest.OracleTriples() {
		t.Logf("%-70s equal %2d of %d", strings.Join(tr[:], "/"), perTriple[tr], len(files))
	}
	oracletest.Compared(t, "stored payload answers equal byte for byte (corpus transcripts x triples)", compared, len(files)*len(replaytest.OracleTriples()))
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
