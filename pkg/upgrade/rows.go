package upgrade

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/openclaw-tools/oc/internal/durable"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store"
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
		rows = append(rows, store.CodexRouteRename(b)) // a copy: b is the scanner's buffer
	}
	if err := sc.Err(); err != nil {
		return nil, res, fmt.Errorf("%s: %w", path, err)
	}
	return rows, res, nil
}
