// Package context96 builds the model context OpenClaw 2026.9.6 builds for a
// session from its stored rows: buildSessionContext and
// iterateSessionContextMessages (packages/agent-core/src/harness/session/
// session.ts, dist/session-*.mjs) over the active branch nav96 computes.
// Each kept entry becomes the message 9.6 makes of it:
//
//   - message: its `message` as stored (an assistant message retained before
//     a boundary loses a compaction replay checkpoint,
//     stripCompactionReplayCheckpoint);
//   - compaction: createCompactionSummaryMessage's
//     {role:"compactionSummary", summary, tokensBefore, timestamp};
//   - custom_message: createCustomMessage's
//     {role:"custom", customType, content, display, details, timestamp};
//   - branch_summary: createBranchSummaryMessage's
//     {role:"branchSummary", summary, fromId, timestamp};
//
// with the timestamp in milliseconds (requireSessionTimestampMs: a string
// Date.parse reads, else an error, as 9.6 throws).
package context96

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/store/nav96"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Session is what replay needs of a stored session under 2026.9.6.
type Session struct {
	// Context holds the messages, thinking level and model
	// buildSessionContext returns.
	Context *transcript.Context
	// Branch are the rows of the session manager's branch, in order (what
	// sessionManager.getBranch() hands readModelSnapshotState).
	Branch [][]byte
	// Version is the session header's numeric version (0: none).
	Version int
}

// Build computes the context of a session's rows (seq order, header first).
func Build(rows [][]byte) (*Session, error) {
	res := nav96.Analyze(rows)
	out := &Session{Version: headerVersion(rows)}
	ctx := &transcript.Context{Messages: make([]json.RawMessage, 0, len(res.Context)), ThinkingLevel: json.RawMessage(`"off"`)}
	for _, i := range res.Branch {
		out.Branch = append(out.Branch, rows[i])
		settings(rows[i], ctx)
	}
	for _, item := range res.Context {
		msg, err := message(rows[item.Pos], item.Part)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", item.Pos+1, err)
		}
		ctx.Messages = append(ctx.Messages, msg)
	}
	out.Context = ctx
	return out, nil
}

// pick sets vals[i] to the raw value of row's top-level member keys[i]
// (nil: absent; the last one wins, as JSON.parse). Only the members asked
// for are kept: no map is built for each of a session's rows.
func pick(row []byte, keys []string, vals [][]byte) {
	jsonl.Members(bytes.TrimSpace(row), func(k, v []byte) bool {
		for i, name := range keys {
			if string(k) == name {
				vals[i] = v
				break
			}
		}
		return true
	})
}

func stringOf(v []byte) string {
	s, _ := jsonl.StringValue(v)
	return s
}

// settings is buildSessionContext's walk for the thinking level and model.
func settings(row []byte, ctx *transcript.Context) {
	var m [5][]byte
	pick(row, []string{"type", "thinkingLevel", "provider", "modelId", "message"}, m[:])
	switch stringOf(m[0]) {
	case "thinking_level_change":
		ctx.ThinkingLevel = clone(m[1])
	case "model_change":
		ctx.Model = &transcript.ModelRef{Provider: clone(m[2]), ModelID: clone(m[3])}
	case "message":
		var msg [3][]byte
		pick(m[4], []string{"role", "provider", "model"}, msg[:])
		if stringOf(msg[0]) == "assistant" {
			ctx.Model = &transcript.ModelRef{Provider: clone(msg[1]), ModelID: clone(msg[2])}
		}
	}
}

func clone(v []byte) json.RawMessage {
	if v == nil {
		return nil
	}
	return append(json.RawMessage(nil), v...)
}

func headerVersion(rows [][]byte) int {
	for _, r := range rows {
		var m [2][]byte
		pick(r, []string{"type", "version"}, m[:])
		if stringOf(m[0]) != "session" {
			continue
		}
		n, err := strconv.Atoi(string(m[1]))
		if err != nil {
			return 0
		}
		return n
	}
	return 0
}

// message is the message one context item becomes.
func message(row []byte, part nav96.Part) (json.RawMessage, error) {
	// the members the context messages are made of
	const (
		kType = iota
		kMessage
		kTimestamp
		kSummary
		kTokensBefore
		kCustomType
		kContent
		kDisplay
		kDetails
		kFromID
		kCount
	)
	var v [kCount][]byte
	pick(row, []string{kType: "type", kMessage: "message", kTimestamp: "timestamp", kSummary: "summary", kTokensBefore: "tokensBefore",
		kCustomType: "customType", kContent: "content", kDisplay: "display", kDetails: "details", kFromID: "fromId"}, v[:])
	switch typ := stringOf(v[kType]); typ {
	case "message":
		msg := clone(bytes.TrimSpace(v[kMessage]))
		if part != nav96.Current {
			return stripReplayCheckpoint(msg)
		}
		return msg, nil
	case "compaction":
		ts, err := timestampMs(v[kTimestamp], "compaction summary timestamp")
		if err != nil {
			return nil, err
		}
		return object(
			field{"role", []byte(`"compactionSummary"`)},
			field{"summary", v[kSummary]},
			field{"tokensBefore", v[kTokensBefore]},
			field{"timestamp", ts},
		), nil
	case "custom_message":
		ts, err := timestampMs(v[kTimestamp], "custom message timestamp")
		if err != nil {
			return nil, err
		}
		return object(
			field{"role", []byte(`"custom"`)},
			field{"customType", v[kCustomType]},
			field{"content", v[kContent]},
			field{"display", v[kDisplay]},
			field{"details", v[kDetails]},
			field{"timestamp", ts},
		), nil
	case "branch_summary":
		ts, err := timestampMs(v[kTimestamp], "branch summary timestamp")
		if err != nil {
			return nil, err
		}
		return object(
			field{"role", []byte(`"branchSummary"`)},
			field{"summary", v[kSummary]},
			field{"fromId", v[kFromID]},
			field{"timestamp", ts},
		), nil
	default:
		return nil, fmt.Errorf("a %q entry makes no context message", typ)
	}
}

// stripReplayCheckpoint is stripCompactionReplayCheckpoint on an assistant
// message: a providerReplay of a compaction checkpoint type is dropped.
func stripReplayCheckpoint(msg json.RawMessage) (json.RawMessage, error) {
	var m [2][]byte
	pick(msg, []string{"role", "providerReplay"}, m[:])
	if stringOf(m[0]) != "assistant" {
		return msg, nil
	}
	var replayType [1][]byte
	pick(m[1], []string{"type"}, replayType[:])
	switch stringOf(replayType[0]) {
	case "anthropic-compaction", "openai-responses-compaction", "openai-responses-retained-compaction":
	default:
		return msg, nil
	}
	v, err := jsjson.Parse(msg)
	if err != nil {
		return nil, fmt.Errorf("message: %w", err)
	}
	obj, ok := v.(*jsjson.Object)
	if !ok {
		return msg, nil
	}
	obj.Delete("providerReplay")
	return jsjson.Marshal(obj)
}

// timestampMs is requireSessionTimestampMs as JSON.
func timestampMs(raw []byte, label string) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		if s, ok := jsonl.StringValue(raw); ok {
			if t, ok := transcript.ParseJSDate(s); ok {
				return strconv.AppendInt(nil, t.UnixMilli(), 10), nil
			}
		}
	}
	return nil, fmt.Errorf("%s must be a valid timestamp", label)
}

type field struct {
	key string
	val []byte
}

// object writes a JSON object in the given key order, leaving out absent
// members as JSON.stringify leaves out undefined.
func object(fields ...field) json.RawMessage {
	var b []byte
	b = append(b, '{')
	for _, f := range fields {
		v := bytes.TrimSpace(f.val)
		if len(v) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsjson.AppendString(b, f.key)
		b = append(b, ':')
		b = append(b, v...)
	}
	return append(b, '}')
}
