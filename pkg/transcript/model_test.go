package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openclaw-tools/oc/internal/oracletest"
)

// Every line of every corpus transcript decodes; Raw keeps the exact bytes;
// the typed view agrees with a plain encoding/json reading of the same line.
func TestDecodeEntryOnCorpus(t *testing.T) {
	for _, f := range oracletest.Transcripts(t) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
		n := 0
		err = ReadEntries(bytes.NewReader(data), func(line int64, e *Entry) error {
			if e == nil {
				return nil
			}
			n++
			raw := bytes.TrimSuffix(lines[line-1], []byte("\r"))
			assert.Equal(t, string(raw), string(e.Raw), "%s:%d raw bytes", filepath.Base(f), line)
			var std struct {
				Type     string `json:"type"`
				ID       any    `json:"id"`
				ParentID any    `json:"parentId"`
				Message  *struct {
					Role       string          `json:"role"`
					ToolCallID string          `json:"toolCallId"`
					Content    json.RawMessage `json:"content"`
				} `json:"message"`
			}
			require.NoError(t, json.Unmarshal(raw, &std))
			assert.Equal(t, std.Type, e.Type)
			if s, ok := std.ID.(string); ok {
				assert.Equal(t, s, e.ID)
			}
			if std.Message != nil && e.Message != nil {
				assert.Equal(t, std.Message.Role, e.Message.Role)
				assert.Equal(t, std.Message.ToolCallID, e.Message.ToolCallID)
				var blocks []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				}
				if json.Unmarshal(std.Message.Content, &blocks) == nil {
					require.Len(t, e.Message.Content.Blocks, len(blocks))
					for i, b := range blocks {
						assert.Equal(t, b.Type, e.Message.Content.Blocks[i].Type)
						assert.Equal(t, b.Text, e.Message.Content.Blocks[i].Text)
					}
				}
			}
			return nil
		})
		require.NoError(t, err)
		assert.Positive(t, n, f)
	}
}

func TestDecodeEntryTypes(t *testing.T) {
	cases := map[string]func(*testing.T, *Entry){
		`{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w","parentSession":"/p.jsonl"}`: func(t *testing.T, e *Entry) {
			require.NotNil(t, e.Session)
			assert.Equal(t, json.Number("3"), e.Session.Version)
			assert.Equal(t, "/p.jsonl", e.Session.ParentSession)
		},
		`{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"toolUse","id":"t1","name":"exec","input":{"x":1}},{"type":"image","data":"QQ==","media_type":"image/png"}],"usage":{"input":5,"output":7},"stopReason":"toolUse"}}`: func(t *testing.T, e *Entry) {
			require.NotNil(t, e.Message)
			require.Len(t, e.Message.Content.Blocks, 2)
			assert.True(t, e.Message.Content.Blocks[0].IsToolCall())
			assert.JSONEq(t, `{"x":1}`, string(e.Message.Content.Blocks[0].Arguments), "input is read like arguments")
			assert.Equal(t, "image/png", e.Message.Content.Blocks[1].MimeType)
			assert.Equal(t, json.Number("7"), e.Message.Usage.Output)
		},
		`{"type":"message","id":"r","message":{"role":"toolResult","toolUseId":"t1","content":"done"}}`: func(t *testing.T, e *Entry) {
			assert.Equal(t, "t1", e.Message.ToolCallID, "toolUseId is the older name")
			require.NotNil(t, e.Message.Content.Text)
			assert.Equal(t, "done", *e.Message.Content.Text)
		},
		`{"type":"compaction","id":"k","summary":"s","firstKeptEntryId":"a","tokensBefore":10}`: func(t *testing.T, e *Entry) {
			assert.Equal(t, "a", e.Compaction.FirstKeptEntryID)
		},
		`{"type":"custom_message","customType":"openclaw.runtime-context","content":"ctx","display":false,"id":"c"}`: func(t *testing.T, e *Entry) {
			require.NotNil(t, e.Custom.Display)
			assert.False(t, *e.Custom.Display)
			assert.Equal(t, "ctx", *e.Custom.Content.Text)
		},
		`{"type":"label","id":"l","targetId":"a"}`: func(t *testing.T, e *Entry) {
			assert.Nil(t, e.Label.Label, "an absent label clears it")
		},
		`{"type":"brand-new-type","id":"x","whatever":{"deep":[1,2]}}`: func(t *testing.T, e *Entry) {
			assert.Equal(t, "brand-new-type", e.Type)
			assert.Contains(t, string(e.Raw), `"whatever":{"deep":[1,2]}`, "unknown types keep every byte")
		},
		`[1,2,3]`: func(t *testing.T, e *Entry) { assert.Empty(t, e.Type) },
	}
	for line, check := range cases {
		e, err := DecodeEntry([]byte(line))
		require.NoError(t, err, line)
		check(t, e)
	}
	_, err := DecodeEntry([]byte(`{"type":"message"`))
	assert.Error(t, err)
}
