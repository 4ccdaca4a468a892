package wire

import (
	"encoding/base64"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Amazon Bedrock Converse (`bedrock-converse-stream`): pi-ai
// providers/amazon-bedrock.js convertMessages and the ConverseStream command
// input (no tools, no options, default "short" cache retention).
//
// Body: {modelId, messages, system?, inferenceConfig: {}}. messages:
//   - user: {role:"user", content:[{text} | {image:{source:{bytes}, format}}]}
//     (an empty content list stays; the image bytes are a Uint8Array, which
//     JSON.stringify writes as {"0":b0,"1":b1,...}; image types other than
//     jpeg/jpg/png/gif/webp throw);
//   - assistant with no content skipped; blank text and blank thinking
//     skipped; toolCall -> {toolUse:{toolUseId, name, input}}; thinking ->
//     reasoningContent.reasoningText {text, signature} for Claude models
//     (unsigned -> plain text), {text} only for other models; other block
//     types throw; a turn left with no blocks skipped;
//   - consecutive tool results -> one user message of {toolResult:{toolUseId,
//     content:[{text}|{image}], status:"success"|"error"}};
//   - Claude 4.x / 3.7 Sonnet / 3.5 Haiku: the last message, when a user one,
//     gets a {cachePoint:{type:"default"}} block; so does the system prompt.
// Tool call ids of other models: [^a-zA-Z0-9_-] -> "_", 64 chars.

var bedrockSeparators = lazyre.New(`[\s_.:]+`)

func bedrockCandidates(m *models.Model) []string {
	values := []string{m.ID}
	if m.Name != "" {
		values = append(values, m.Name)
	}
	var out []string
	for _, v := range values {
		l := strings.ToLower(v)
		out = append(out, l, bedrockSeparators().ReplaceAllString(l, "-"))
	}
	return out
}

func bedrockIsClaude(m *models.Model) bool {
	id, name := strings.ToLower(m.ID), strings.ToLower(m.Name)
	return strings.Contains(id, "anthropic.claude") || strings.Contains(id, "anthropic/claude") ||
		strings.Contains(name, "anthropic.claude") || strings.Contains(name, "anthropic/claude") ||
		strings.Contains(name, "claude")
}

func bedrockPromptCaching(m *models.Model) bool {
	cands := bedrockCandidates(m)
	anyHas := func(sub string) bool {
		for _, s := range cands {
			if strings.Contains(s, sub) {
				return true
			}
		}
		return false
	}
	if !anyHas("claude") {
		return false // (AWS_BEDROCK_FORCE_CACHE=1 is not modelled)
	}
	return anyHas("-4-") || anyHas("claude-3-7-sonnet") || anyHas("claude-3-5-haiku")
}

func cachePoint() *jsvalue.Object {
	return jsvalue.NewObject("cachePoint", jsvalue.NewObject("type", "default"))
}

func renderBedrock(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := jsvalue.NewObject("modelId", c.model.ID, "messages", c.bedrockMessages(msgs))
	if system != "" {
		sys := []any{jsvalue.NewObject("text", sanitizeSurrogates(system))}
		if bedrockPromptCaching(c.model) {
			sys = append(sys, cachePoint())
		}
		body.Set("system", sys)
	}
	body.Set("inferenceConfig", jsvalue.NewObject())
	return body
}

// atob decodes base64 the way the browser/Node atob does (whitespace
// ignored, padding optional); ok is false where atob throws.
func atob(s string) ([]byte, bool) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\f', '\r':
			return -1
		}
		return r
	}, s)
	if len(s)%4 == 0 {
		s = strings.TrimSuffix(s, "=")
		s = strings.TrimSuffix(s, "=")
	}
	if len(s)%4 == 1 {
		return nil, false
	}
	b, err := base64.RawStdEncoding.DecodeString(s) // not Strict: trailing bits are ignored, as by atob
	if err != nil {
		return nil, false
	}
	return b, true
}

func (c *conv) bedrockImage(b *jsvalue.Object) *jsvalue.Object {
	var format string
	switch mt, _ := b.Get("mimeType").(string); mt {
	case "image/jpeg", "image/jpg":
		format = "jpeg"
	case "image/png":
		format = "png"
	case "image/gif":
		format = "gif"
	case "image/webp":
		format = "webp"
	default:
		c.fail("Unknown image type: %s", tmpl(b, "mimeType"))
		return jsvalue.NewObject()
	}
	bytes, ok := atob(tmpl(b, "data"))
	if !ok {
		c.fail("image data is not valid base64 (atob throws)")
		return jsvalue.NewObject()
	}
	return jsvalue.NewObject("source", jsvalue.NewObject("bytes", bytes), "format", format)
}

func (c *conv) bedrockToolResultContent(msg Message) []any {
	blocks := c.contentBlocks(msg)
	out := make([]any, 0, len(blocks))
	for _, b := range blocks {
		if typeOf(b) == "image" {
			out = append(out, jsvalue.NewObject("image", c.bedrockImage(b)))
		} else {
			out = append(out, jsvalue.NewObject("text", sanitizeSurrogates(c.str(b, "text"))))
		}
	}
	return out
}

func (c *conv) bedrockMessages(msgs []Message) []any {
	m := c.model
	tm := c.transformMessages(msgs, anthropicToolCallID)
	claude := bedrockIsClaude(m)
	result := make([]any, 0, len(tm))
	for i := 0; i < len(tm) && c.err == nil; i++ {
		msg := tm[i]
		switch msg.Get("role") {
		case "user":
			var content []any
			if s, ok := msg.Get("content").(string); ok {
				content = []any{jsvalue.NewObject("text", sanitizeSurrogates(s))}
			} else {
				blocks := c.contentBlocks(msg)
				content = make([]any, 0, len(blocks))
				for _, b := range blocks {
					switch typeOf(b) {
					case "text":
						content = append(content, jsvalue.NewObject("text", sanitizeSurrogates(c.str(b, "text"))))
					case "image":
						content = append(content, jsvalue.NewObject("image", c.bedrockImage(b)))
					default:
						c.fail("Unknown user content type")
					}
				}
			}
			result = append(result, jsvalue.NewObject("role", "user", "content", content))
		case "assistant":
			blocks := c.contentBlocks(msg)
			if len(blocks) == 0 {
				continue
			}
			var content []any
			for _, b := range blocks {
				switch typeOf(b) {
				case "text":
					t := c.str(b, "text")
					if jsjson.Blank(t) {
						continue
					}
					content = append(content, jsvalue.NewObject("text", sanitizeSurrogates(t)))
				case vocab.BlockToolCall:
					tu := jsvalue.NewObject()
					tu.Copy("toolUseId", b, "id")
					tu.Copy("name", b, "name")
					tu.Copy("input", b, "arguments")
					content = append(content, jsvalue.NewObject("toolUse", tu))
				case "thinking":
					th := c.str(b, "thinking")
					if jsjson.Blank(th) {
						continue
					}
					if !claude {
						content = append(content, jsvalue.NewObject("reasoningContent", jsvalue.NewObject("reasoningText", jsvalue.NewObject("text", sanitizeSurrogates(th)))))
						continue
					}
					if !jsvalue.Truthy(b.Get("thinkingSignature")) || jsjson.Blank(c.str(b, "thinkingSignature")) {
						content = append(content, jsvalue.NewObject("text", sanitizeSurrogates(th)))
						continue
					}
					content = append(content, jsvalue.NewObject("reasoningContent", jsvalue.NewObject("reasoningText",
						jsvalue.NewObject("text", sanitizeSurrogates(th), "signature", b.Get("thinkingSignature")))))
				default:
					c.fail("Unknown assistant content type")
				}
			}
			if len(content) == 0 {
				continue
			}
			result = append(result, jsvalue.NewObject("role", "assistant", "content", content))
		case vocab.RoleToolResult:
			var results []any
			j := i
			for ; j < len(tm) && tm[j].Get("role") == vocab.RoleToolResult; j++ {
				tr := jsvalue.NewObject()
				tr.Copy("toolUseId", tm[j], "toolCallId")
				tr.Set("content", c.bedrockToolResultContent(tm[j]))
				status := "success"
				if jsvalue.Truthy(tm[j].Get("isError")) {
					status = "error"
				}
				tr.Set("status", status)
				results = append(results, jsvalue.NewObject("toolResult", tr))
			}
			i = j - 1
			result = append(result, jsvalue.NewObject("role", "user", "content", results))
		default:
			c.fail("Unknown message role")
		}
	}
	if n := len(result); n > 0 && bedrockPromptCaching(m) {
		last := result[n-1].(*jsvalue.Object)
		if r := last.Get("role"); r == "user" {
			content := last.Get("content")
			if l, ok := content.([]any); ok {
				last.Set("content", append(l, cachePoint()))
			}
		}
	}
	return result
}
