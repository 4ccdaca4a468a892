package wire

import (
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// responsesInput96 is 2026.9.6's convertResponsesMessages in the "provider"
// style (dist/openai-responses-shared-*.mjs convertResponsesMessagesWithStyle)
// as openai-responses, azure-openai-responses and openai-chatgpt-responses
// call it: replayResponsesItemIds false for OpenAI and ChatGPT (no item ids
// on assistant messages, function calls or reasoning items), true (the
// default) for Azure (resolveReplayableResponsesMessageId: "msg_<index>"
// fallbacks, signature ids after a reasoning item; function-call item ids
// unless a different model's "fc_" one; trailing id'd reasoning items
// without encrypted content dropped), role messages built by
// buildResponsesInputMessage ({type: "message", role, content}), reasoning
// signatures that do not parse or are not reasoning items skipped instead of
// throwing, reasoning items normalised (summary: [] when absent, the
// __openclaw_replay member dropped), tool results via extractToolResultText
// with "(no output)" for an empty one; runtime-context carriers anchored
// after the latest user turn (anchorRuntimeContextCarriers). Not reproduced: the compaction replay
// plan and the async tool-result reordering (they need runtime state the
// stored transcript does not carry).
func (c *conv) responsesInput96(msgs []Message, system string, includeSystem, replayIDs bool, allowed func(provider string) bool) []any {
	m := c.model
	tm := c.transformMessages(msgs, c.responsesToolCallID(allowed))
	items := make([]any, 0, len(tm)+1)
	inputMessage := func(role string, content []any) *jsvalue.Object {
		return jsvalue.NewObject("type", "message", "role", role, "content", content)
	}
	if includeSystem && system != "" {
		role := "system"
		if dev, ok := m.CompatBool("supportsDeveloperRole"); m.Reasoning && (!ok || dev) {
			role = "developer"
		}
		items = append(items, inputMessage(role, []any{jsvalue.NewObject("type", "input_text", "text", sanitizeSurrogates(system))}))
	}
	msgIndex := 0
	for _, msg := range anchorRuntimeContextCarriers(tm) {
		if c.err != nil {
			break
		}
		switch msg.Get("role") {
		case "user":
			if s, ok := msg.Get("content").(string); ok {
				items = append(items, inputMessage("user", []any{jsvalue.NewObject("type", "input_text", "text", sanitizeSurrogates(s))}))
				break
			}
			blocks := c.contentBlocks(msg)
			if len(blocks) == 0 {
				continue
			}
			content := make([]any, 0, len(blocks))
			for _, b := range blocks {
				if typeOf(b) == "text" {
					s, _ := b.Get("text").(string)
					content = append(content, jsvalue.NewObject("type", "input_text", "text", sanitizeSurrogates(s)))
				} else {
					content = append(content, inputImage(b))
				}
			}
			items = append(items, inputMessage("user", content))
		case "assistant":
			var output []any
			fallbackOrdinal := 0
			afterReasoning := false
			differentModel := msg.Get("model") != m.ID && msg.Get("provider") == m.Provider && msg.Get("api") == m.API
			for _, b := range c.contentBlocks(msg) {
				switch typeOf(b) {
				case "thinking":
					sig, ok := b.Get("thinkingSignature").(string)
					if !ok || sig == "" {
						continue
					}
					item, err := c.parseJSON(sig)
					if err != nil {
						continue
					}
					rec, ok := item.(*jsvalue.Object)
					if !ok || rec.Get("type") != "reasoning" {
						continue
					}
					output = append(output, c.reasoningReplayItem96(rec, replayIDs))
					afterReasoning = true
				case "text":
					ts := c.parseTextSignature96(b)
					s, _ := b.Get("text").(string)
					item := jsvalue.NewObject("type", "message", "role", "assistant",
						"content", []any{jsvalue.NewObject("type", "output_text", "text", sanitizeSurrogates(s), "annotations", []any{})},
						"status", "completed")
					if replayIDs {
						id := ""
						switch {
						case ts.id == "" && fallbackOrdinal == 0:
							id = "msg_" + strconv.Itoa(msgIndex)
						case ts.id == "":
							id = "msg_" + strconv.Itoa(msgIndex) + "_" + strconv.Itoa(fallbackOrdinal)
						case afterReasoning:
							id = ts.id
						}
						if jsjson.Len(id) > 64 {
							id = "msg_" + ShortHash(id)
						}
						if id != "" {
							item.Set("id", id)
						}
					}
					if ts.id == "" {
						fallbackOrdinal++
					}
					afterReasoning = false
					if ts.phase != "" {
						item.Set("phase", ts.phase)
					}
					output = append(output, item)
				case vocab.BlockToolCall:
					callID, itemID, hasItem := jsSplitTwo(c.str(b, "id"), "|")
					fc := jsvalue.NewObject("type", "function_call")
					if replayIDs && hasItem && itemID != "" && !(differentModel && strings.HasPrefix(itemID, "fc_")) {
						fc.Set("id", itemID)
					}
					fc.Set("call_id", callID)
					afterReasoning = false
					fc.Copy("name", b, "name")
					if jsvalue.Truthy(b.Get("async")) {
						fc.Set("async", true)
					}
					if args, ok := c.stringify(b, "arguments"); ok {
						fc.Set("arguments", args)
					}
					output = append(output, fc)
				}
			}
			for len(output) > 0 {
				last, ok := output[len(output)-1].(*jsvalue.Object)
				if !ok {
					break
				}
				t := last.Get("type")
				id := last.Get("id")
				ids, _ := id.(string)
				enc := last.Get("encrypted_content")
				encs, _ := enc.(string)
				if t != "reasoning" || !strings.HasPrefix(ids, "rs_") || encs != "" {
					break
				}
				output = output[:len(output)-1]
			}
			if len(output) == 0 {
				continue
			}
			items = append(items, output...)
		case vocab.RoleToolResult:
			content := c.contentBlocks(msg)
			text := toolResultText96(content)
			hasImages := false
			for _, b := range content {
				if typeOf(b) == "image" && (jsvalue.Truthy(b.Get("data")) || jsvalue.Truthy(b.Get("url"))) {
					hasImages = true
				}
			}
			placeholder := ""
			if hasImages {
				placeholder = "(see attached image)"
			}
			callID := jsSplitFirst(c.str(msg, "toolCallId"), "|")
			var output any
			if hasImages && m.Vision {
				parts := make([]any, 0, len(content)+1)
				if !jsjson.Blank(text) {
					parts = append(parts, jsvalue.NewObject("type", "input_text", "text", text))
				}
				for _, b := range content {
					if typeOf(b) == "image" && (jsvalue.Truthy(b.Get("data")) || jsvalue.Truthy(b.Get("url"))) {
						parts = append(parts, inputImage(b))
					}
				}
				output = parts
			} else if !jsjson.Blank(text) {
				output = text
			} else if placeholder != "" {
				output = placeholder
			} else {
				output = "(no output)"
			}
			items = append(items, jsvalue.NewObject("type", "function_call_output", "call_id", callID, "output", output))
		}
		msgIndex++
	}
	return items
}

// reasoningReplayItem96 is prepareOpenAIResponsesReasoningItemForReplay in
// the provider style: the __openclaw_replay member is dropped (and the id,
// when item ids are not replayed), and `summary: []` is added when the item
// has no summary array (normalizeOpenAIResponsesReasoningReplayItem).
func (c *conv) reasoningReplayItem96(rec *jsvalue.Object, keepID bool) any {
	out := &jsvalue.Object{Members: make([]jsvalue.Member, 0, rec.Len()+1)}
	for _, mb := range rec.Members {
		if mb.Key == "__openclaw_replay" || (mb.Key == "id" && !keepID) {
			continue
		}
		out.Members = append(out.Members, mb)
	}
	if _, ok := rec.Get("summary").([]any); !ok {
		out.Set("summary", []any{})
	}
	return out
}

// toolResultText96 is extractToolResultText for text blocks (host-*.mjs):
// the non-empty texts joined by "\n".
func toolResultText96(content []*jsvalue.Object) string {
	var texts []string
	for _, b := range content {
		if typeOf(b) != "text" {
			continue
		}
		if s, ok := b.Get("text").(string); ok && s != "" {
			texts = append(texts, sanitizeSurrogates(s))
		}
	}
	return strings.Join(texts, "\n")
}

// parseTextSignature96 is 2026.9.6's parseOpenAIResponsesTextSignature: a
// JSON signature {v: 1, ...} gives its string id and its phase
// ("commentary" or "final_answer") either of which may be absent (5.6
// needed the id); {v: 1} with neither gives nothing; a JSON object with
// another v falls through to the whole text as the id.
func (c *conv) parseTextSignature96(b *jsvalue.Object) textSignature {
	sig, ok := b.Get("textSignature").(string)
	if !ok || sig == "" {
		return textSignature{}
	}
	if strings.HasPrefix(sig, "{") {
		if parsed, err := c.parseJSON(sig); err == nil {
			if p, ok := jsvalue.AsObject(parsed); ok && isJSOne(p.Get("v")) {
				ts := textSignature{ok: true}
				ts.id, _ = p.Get("id").(string)
				if ph, _ := p.Get("phase").(string); ph == "commentary" || ph == "final_answer" {
					ts.phase = ph
				}
				if _, hasID := p.Get("id").(string); !hasID && ts.phase == "" {
					return textSignature{}
				}
				return ts
			}
		}
	}
	return textSignature{id: sig, ok: true}
}

// anchorRuntimeContextCarriers is the carrier anchoring of
// convertResponsesMessagesWithStyle (no compacted window): a user message
// marked runtimeContextCarrier that follows a user turn moves to right after
// that turn (after carriers already anchored there); carriers before any
// user turn stay where they are.
func anchorRuntimeContextCarriers(msgs []Message) []Message {
	isCarrier := func(m Message) bool { return m.Get("role") == "user" && m.Get("runtimeContextCarrier") == true }
	found := false
	for _, m := range msgs {
		if isCarrier(m) {
			found = true
			break
		}
	}
	if !found {
		return msgs
	}
	anchored := make([]Message, 0, len(msgs))
	insertion := -1
	for _, m := range msgs {
		if isCarrier(m) && insertion >= 0 {
			anchored = append(anchored, nil)
			copy(anchored[insertion+1:], anchored[insertion:])
			anchored[insertion] = m
			insertion++
			continue
		}
		anchored = append(anchored, m)
		if !isCarrier(m) && m.Get("role") == "user" {
			insertion = len(anchored)
		}
	}
	return anchored
}
