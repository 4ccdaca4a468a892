package sanitize

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R11: tool-call id sanitization (src/agents/tool-call-id.ts,
// sanitizeToolCallIdsForCloudCodeAssist): strict ids are [A-Za-z0-9] (at most
// 40), strict9 ids exactly 9 of them (Mistral). Collisions are resolved with
// hashes; tool results follow their call's new id. What each release does
// its own way is a ToolIDRelease.

const (
	strict9Len     = 9
	strictMaxLen   = 40
	strictFallback = "sanitizedtoolid"
)

var (
	nativeAnthropicToolUseID = lazyre.New(`^toolu_[A-Za-z0-9_]+$`)
	nativeKimiToolCallID     = lazyre.New(`^functions\.[A-Za-z0-9_-]+:\d+$`)
	openAIToolCallIDRE       = lazyre.New(`^call_[A-Za-z0-9_-]+$`)
)

func sha256Hex(text string, n int) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])[:n]
}

func alphanumericOnly(id string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, id)
}

// sanitizeToolCallID is sanitizeToolCallId.
func sanitizeToolCallID(id, mode string) string {
	if id == "" {
		if mode == policy.IDStrict9 {
			return "defaultid"
		}
		return "defaulttoolid"
	}
	if mode == policy.IDStrict9 {
		alnum := alphanumericOnly(id)
		if len(alnum) >= strict9Len {
			return alnum[:strict9Len]
		}
		if alnum != "" {
			return sha256Hex(alnum, strict9Len)
		}
		return sha256Hex("sanitized", strict9Len)
	}
	if nativeKimiToolCallID().MatchString(id) {
		return id
	}
	if alnum := alphanumericOnly(id); alnum != "" {
		return alnum
	}
	return strictFallback
}

// makeUniqueToolID is makeUniqueToolId.
func makeUniqueToolID(id, mode string, used map[string]bool) string {
	if mode == policy.IDStrict9 {
		base := sanitizeToolCallID(id, mode)
		if len(base) >= strict9Len && !used[base[:strict9Len]] {
			return base[:strict9Len]
		}
		for i := 0; i < 1000; i++ {
			if h := sha256Hex(fmt.Sprintf("%s:%d", id, i), strict9Len); !used[h] {
				return h
			}
		}
		return sha256Hex(fmt.Sprintf("%s:%d", id, time.Now().UnixMilli()), strict9Len)
	}
	base := clipUTF16(sanitizeToolCallID(id, mode), strictMaxLen)
	if !used[base] {
		return base
	}
	hash := sha256Hex(id, 8)
	sep := ""
	if mode != policy.IDStrict {
		sep = "_"
	}
	maxBase := strictMaxLen - len(sep) - len(hash)
	candidate := clipUTF16(base, maxBase) + sep + hash
	if !used[candidate] {
		return candidate
	}
	for i := 2; i < 1000; i++ {
		suffix := fmt.Sprintf("_%d", i)
		if mode == policy.IDStrict {
			suffix = fmt.Sprintf("x%d", i)
		}
		next := clipUTF16(candidate, strictMaxLen-len(suffix)) + suffix
		if !used[next] {
			return next
		}
	}
	ts := fmt.Sprintf("_%d", time.Now().UnixMilli())
	if mode == policy.IDStrict {
		ts = fmt.Sprintf("t%d", time.Now().UnixMilli())
	}
	return clipUTF16(candidate, strictMaxLen-len(ts)) + ts
}

// clipUTF16 is s.slice(0, n) for the ASCII ids produced here.
func clipUTF16(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// IDResolver is createOccurrenceAwareResolver: each raw id gets a new id per
// occurrence; tool results take the oldest pending id of their raw id.
type IDResolver struct {
	mode           string
	used           map[string]bool
	assistantSeen  map[string]int
	orphanSeen     map[string]int
	pending        map[string][]string
	preserveNative bool
}

func newIDResolver(mode string, reserved map[string]bool, preserveNative bool) *IDResolver {
	used := map[string]bool{}
	for k := range reserved {
		used[k] = true
	}
	return &IDResolver{mode: mode, used: used, assistantSeen: map[string]int{}, orphanSeen: map[string]int{}, pending: map[string][]string{}, preserveNative: preserveNative}
}

func (r *IDResolver) allocate(seed string) string {
	next := makeUniqueToolID(seed, r.mode, r.used)
	r.used[next] = true
	return next
}

// assistantID is createOccurrenceAwareResolver's resolveAssistantId. style
// is 2026.9.6's duplicateToolCallIdStyle: "openai" keeps a first call_* id
// and gives repeats call_<hash>; "" (the only style before 9.6) does neither.
func (r *IDResolver) assistantID(id, style string) string {
	occ := r.assistantSeen[id] + 1
	r.assistantSeen[id] = occ
	var next string
	switch {
	case style == "openai" && occ > 1:
		for attempt := 0; ; attempt++ {
			c := "call_" + sha256Hex(fmt.Sprintf("%s:%d:%d", id, occ, attempt), 24)
			if !r.used[c] {
				next = c
				break
			}
		}
		r.used[next] = true
	case style == "openai" && occ == 1 && openAIToolCallIDRE().MatchString(id) && !r.used[id],
		r.preserveNative && nativeAnthropicToolUseID().MatchString(id) && occ == 1 && !r.used[id]:
		r.used[id] = true
		next = id
	case occ == 1:
		next = r.allocate(id)
	default:
		next = r.allocate(fmt.Sprintf("%s:%d", id, occ))
	}
	r.pending[id] = append(r.pending[id], next)
	return next
}

// ResultID is the new id of a tool result for call id: the oldest pending
// new id of that call, else a new id for an orphan result.
func (r *IDResolver) ResultID(id string) string {
	if p := r.pending[id]; len(p) > 0 {
		next := p[0]
		if len(p) == 1 {
			delete(r.pending, id)
		} else {
			r.pending[id] = p[1:]
		}
		return next
	}
	occ := r.orphanSeen[id] + 1
	r.orphanSeen[id] = occ
	if r.preserveNative && nativeAnthropicToolUseID().MatchString(id) && occ == 1 && !r.used[id] {
		r.used[id] = true
		return id
	}
	return r.allocate(fmt.Sprintf("%s:tool_result:%d", id, occ))
}

func (r *IDResolver) preserve(id string) {
	r.used[id] = true
	r.pending[id] = append(r.pending[id], id)
}

// ToolIDOptions is what the route's policy says to SanitizeToolCallIDs.
type ToolIDOptions struct {
	PreserveNative       bool
	PreserveSafeThinking bool
	Allowed              AllowedNames
	// DuplicateStyle is 2026.9.6's duplicateToolCallIdStyle (see
	// IDResolver.assistantID); "" before 9.6.
	DuplicateStyle string
}

// ToolIDRelease is what a release's sanitizeToolCallIdsForCloudCodeAssist
// does its own way.
type ToolIDRelease struct {
	// ObjectsOnly: messages that are not JavaScript objects are passed over
	// (2026.9.6 checks; 2026.5.6 reads their role, which is never a match).
	ObjectsOnly bool
	// SafeThinking is the check for a signed-thinking turn whose ids stay.
	SafeThinking func(m Message, allowed AllowedNames) bool
	// RewriteResult gives tool result i its resolved ids, logging what it
	// changed; changed false leaves the message as it is.
	RewriteResult func(i int, m Message, res *IDResolver, log *ChangeLog) (next Message, changed bool)
}

// IsReplaySafeThinking is that check with the release's test for a tool
// call that replay would change (needsMutation): a turn with thinking whose
// tool calls are replay-safe.
func IsReplaySafeThinking(m Message, allowed AllowedNames, needsMutation func(*jsvalue.Object) bool) bool {
	content, ok := jsvalue.ArrayMember(m, "content")
	if !ok {
		return false
	}
	sawThinking := false
	for _, b := range content {
		sawThinking = sawThinking || IsThinkingBlock(b)
	}
	return sawThinking && ReplaySafeToolCalls(content, allowed, IsRawToolCallBlock, needsMutation)
}

// SanitizeToolCallIDs is sanitizeToolCallIdsForCloudCodeAssist as release
// rel has it.
func SanitizeToolCallIDs(in []Message, mode string, o ToolIDOptions, rel ToolIDRelease, log *ChangeLog) []Message {
	var reserved map[string]bool
	preserved := map[int]bool{}
	if o.PreserveSafeThinking {
		reserved = map[string]bool{}
		for i, m := range in {
			if rel.ObjectsOnly && !IsJSObjectMessage(m) || jsvalue.Role(m) != "assistant" || !rel.SafeThinking(m, o.Allowed) {
				continue
			}
			calls := ToolCallsOf(m)
			clash := false
			for _, c := range calls {
				clash = clash || reserved[c.ID]
			}
			if clash {
				continue
			}
			preserved[i] = true
			for _, c := range calls {
				reserved[c.ID] = true
			}
		}
	}
	res := newIDResolver(mode, reserved, o.PreserveNative)
	var out []Message
	set := func(i int, m Message) {
		if out == nil {
			out = append([]Message(nil), in...)
		}
		out[i] = m
	}
	for i, m := range in {
		if rel.ObjectsOnly && !IsJSObjectMessage(m) {
			continue
		}
		switch jsvalue.Role(m) {
		case "assistant":
			if preserved[i] {
				for _, c := range ToolCallsOf(m) {
					res.preserve(c.ID)
				}
				continue
			}
			content, ok := jsvalue.ArrayMember(m, "content")
			if !ok {
				continue
			}
			var next []any
			for j, b := range content {
				bm, ok := jsvalue.AsObject(b)
				if !ok || !IsOpenAIToolCallType(jsvalue.StringOrEmpty(bm, "type")) {
					continue
				}
				id, _ := jsvalue.StringMember(bm, "id")
				if id == "" {
					continue
				}
				nid := res.assistantID(id, o.DuplicateStyle)
				if nid == id {
					continue
				}
				if next == nil {
					next = append([]any(nil), content...)
				}
				next[j] = bm.With("id", nid)
				log.Add(i, KindIDRewritten, "tool call id %s -> %s", id, nid)
			}
			if next != nil {
				set(i, m.With("content", next))
			}
		case "toolResult":
			if next, changed := rel.RewriteResult(i, m, res, log); changed {
				set(i, next)
			}
		}
	}
	if out == nil {
		return in
	}
	return out
}
