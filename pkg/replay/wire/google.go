package wire

import (
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

// Google Gemini (`google-generative-ai`): pi-ai providers/google-shared.js
// convertMessages and google.js buildParams (no tools, no options).
//
// Body: {model, contents, config: {systemInstruction?}}. contents:
//   - user: {role:"user", parts:[{text} | {inlineData:{mimeType, data}}]};
//   - assistant -> role "model": blank text and blank thinking skipped; text
//     keeps textSignature as thoughtSignature only for the same provider and
//     model and when it is valid base64; thinking of the same provider and
//     model -> {thought:true, text, thoughtSignature?}, otherwise plain text;
//     toolCall -> {functionCall:{name, args: arguments ?? {}, id (claude-* and
//     gpt-oss-* models only)}, thoughtSignature?}; a turn with no parts skipped;
//   - tool result -> {functionResponse:{name, response:{output|error: text or
//     "(see attached image)" or ""}, parts (images, Gemini 3+ and non-Gemini
//     ids), id?}}, merged into the previous user turn when that one holds
//     function responses; for Gemini < 3 the images follow as a user turn
//     [{text:"Tool result image:"}, ...inlineData].

var (
	geminiVersion   = lazyre.New(`^gemini(?:-live)?-(\d+)`)
	base64Signature = lazyre.New(`^[A-Za-z0-9+/]+={0,2}$`)
)

func googleRequiresToolCallID(id string) bool {
	return strings.HasPrefix(id, "claude-") || strings.HasPrefix(id, "gpt-oss-")
}

func googleMultimodalFunctionResponse(id string) bool {
	mm := geminiVersion().FindStringSubmatch(strings.ToLower(id))
	if mm == nil {
		return true
	}
	v, err := strconv.Atoi(mm[1])
	return err != nil || v >= 3
}

// googleThoughtSignature: the signature when same-model and valid base64.
func googleThoughtSignature(same bool, v any) (string, bool) {
	s, ok := v.(string)
	if !same || !ok || s == "" || jsjson.Len(s)%4 != 0 || !base64Signature().MatchString(s) {
		return "", false
	}
	return s, true
}

func renderGoogle(c *conv, msgs []Message, system string) *jsvalue.Object {
	config := jsvalue.NewObject()
	if system != "" {
		config.Set("systemInstruction", sanitizeSurrogates(system))
	}
	return jsvalue.NewObject("model", c.model.ID, "contents", c.googleContents(msgs), "config", config)
}

func inlineData(b *jsvalue.Object) *jsvalue.Object {
	d := jsvalue.NewObject()
	d.Copy("mimeType", b, "mimeType")
	d.Copy("data", b, "data")
	return jsvalue.NewObject("inlineData", d)
}

// geminiThoughtSignatureValidatorSkip is GEMINI_THOUGHT_SIGNATURE_VALIDATOR_SKIP.
const geminiThoughtSignatureValidatorSkip = "skip_thought_signature_validator"

// gemini3ProOrFlashRE is isGemini3ProModel || isGemini3FlashModel
// (google-shared-*.mjs) on the lower-cased model id.
var gemini3ProOrFlashRE = lazyre.New(`gemini-(?:3(?:\.\d+)?-pro|pro-latest)|gemini-(?:3(?:\.\d+)?-flash|flash(?:-lite)?-latest)`)

func (c *conv) googleContents(msgs []Message) []any {
	m := c.model
	requiresID := googleRequiresToolCallID(m.ID)
	norm := func(id string, _ Message) string {
		if !requiresID {
			return id
		}
		return jsjson.Slice(replaceIDChars(id, "_", true), 64)
	}
	tm := c.transformMessages(msgs, norm)
	contents := make([]any, 0, len(tm))
	sameRoute := map[string]bool{} // google96: sameRouteToolCallIds
	// google96: requiresToolCallSignature (google-shared-*.mjs convertMessages)
	requiresSig := c.google96 && m.Provider != "google-gemini-cli" && gemini3ProOrFlashRE().MatchString(strings.ToLower(m.ID))
	// google96: projectGoogleMessages sends an empty user text as " "
	// (`sanitizeText(text) || " "`, a user turn with no parts as [{text:" "}]).
	userText := func(s string) string {
		s = sanitizeSurrogates(s)
		if s == "" && c.google96 {
			return " "
		}
		return s
	}
	// google96: the tool-result image turns of a run of tool results wait
	// until the run ends (flushToolResultRun): all its functionResponses
	// stay in one content.
	var pendingImages []any
	runOpen := false // google96: activeToolResultParts is set
	for _, msg := range tm {
		if c.err != nil {
			break
		}
		if c.google96 && msg.Get("role") != vocab.RoleToolResult {
			contents = append(contents, pendingImages...)
			pendingImages, runOpen = nil, false
		}
		switch msg.Get("role") {
		case "user":
			if s, ok := msg.Get("content").(string); ok {
				contents = append(contents, jsvalue.NewObject("role", "user", "parts", []any{jsvalue.NewObject("text", userText(s))}))
				continue
			}
			blocks := c.contentBlocks(msg)
			if len(blocks) == 0 {
				if c.google96 {
					contents = append(contents, jsvalue.NewObject("role", "user", "parts", []any{jsvalue.NewObject("text", " ")}))
				}
				continue
			}
			parts := make([]any, 0, len(blocks))
			for _, b := range blocks {
				if typeOf(b) == "text" {
					parts = append(parts, jsvalue.NewObject("text", userText(c.str(b, "text"))))
				} else {
					parts = append(parts, inlineData(b))
				}
			}
			contents = append(contents, jsvalue.NewObject("role", "user", "parts", parts))
		case "assistant":
			same := msg.Get("provider") == m.Provider && msg.Get("model") == m.ID
			var parts []any
			sawFunctionCall := false
			for _, b := range c.contentBlocks(msg) {
				switch typeOf(b) {
				case "text":
					if !jsvalue.Truthy(b.Get("text")) || jsjson.Blank(c.str(b, "text")) {
						continue
					}
					p := jsvalue.NewObject("text", sanitizeSurrogates(b.Get("text").(string)))
					if sig, ok := googleThoughtSignature(same, b.Get("textSignature")); ok {
						p.Set("thoughtSignature", sig)
					}
					parts = append(parts, p)
				case "thinking":
					if !jsvalue.Truthy(b.Get("thinking")) || jsjson.Blank(c.str(b, "thinking")) {
						continue
					}
					text := sanitizeSurrogates(b.Get("thinking").(string))
					if same {
						p := jsvalue.NewObject("thought", true, "text", text)
						if sig, ok := googleThoughtSignature(same, b.Get("thinkingSignature")); ok {
							p.Set("thoughtSignature", sig)
						}
						parts = append(parts, p)
					} else {
						parts = append(parts, jsvalue.NewObject("text", text))
					}
				case vocab.BlockToolCall:
					fc := jsvalue.NewObject()
					fc.Copy("name", b, "name")
					if c.google96 {
						// coerceTransportToolCallArguments
						fc.Set("args", coerceToolCallArguments96(b.Get("arguments")))
					} else if args, ok := b.Lookup("arguments"); ok && args != nil {
						fc.Set("args", args)
					} else {
						fc.Set("args", jsvalue.NewObject())
					}
					id, _ := b.Get("id").(string)
					if c.google96 && same && msg.Get("api") == m.API && m.Provider != "google-gemini-cli" {
						sameRoute[id] = true
					}
					if requiresID || c.google96 && sameRoute[id] {
						fc.Copy("id", b, "id")
					}
					p := jsvalue.NewObject("functionCall", fc)
					if sig, ok := googleThoughtSignature(same, b.Get("thoughtSignature")); ok {
						p.Set("thoughtSignature", sig)
					} else if requiresSig && !sawFunctionCall {
						p.Set("thoughtSignature", geminiThoughtSignatureValidatorSkip)
					}
					sawFunctionCall = true
					parts = append(parts, p)
				}
			}
			if len(parts) == 0 {
				continue
			}
			contents = append(contents, jsvalue.NewObject("role", "model", "parts", parts))
		case vocab.RoleToolResult:
			content := c.contentBlocks(msg)
			var texts []*jsvalue.Object
			var images []any
			for _, b := range content {
				switch typeOf(b) {
				case "text":
					texts = append(texts, b)
				case "image":
					if m.Vision {
						images = append(images, inlineData(b))
					}
				}
			}
			text := joinTexts(texts, "\n")
			multimodal := googleMultimodalFunctionResponse(m.ID)
			var value string
			switch {
			case text != "":
				value = sanitizeSurrogates(text)
			case len(images) > 0:
				value = "(see attached image)"
			}
			resp := jsvalue.NewObject()
			if jsvalue.Truthy(msg.Get("isError")) {
				resp.Set("error", value)
			} else {
				resp.Set("output", value)
			}
			fr := jsvalue.NewObject()
			fr.Copy("name", msg, "toolName")
			fr.Set("response", resp)
			if len(images) > 0 && multimodal {
				fr.Set("parts", images)
			}
			if id, _ := msg.Get("toolCallId").(string); requiresID || c.google96 && sameRoute[id] {
				fr.Copy("id", msg, "toolCallId")
			}
			part := jsvalue.NewObject("functionResponse", fr)
			merged := false
			if n := len(contents); n > 0 && (runOpen || !c.google96) {
				last := contents[n-1].(*jsvalue.Object)
				if r := last.Get("role"); r == "user" {
					lp := last.Get("parts")
					if l, ok := lp.([]any); ok && hasFunctionResponse(l) {
						last.Set("parts", append(l, part))
						merged = true
					}
				}
			}
			if !merged {
				contents = append(contents, jsvalue.NewObject("role", "user", "parts", []any{part}))
			}
			runOpen = true
			if len(images) > 0 && !multimodal {
				turn := jsvalue.NewObject("role", "user", "parts", append([]any{jsvalue.NewObject("text", "Tool result image:")}, images...))
				if c.google96 {
					pendingImages = append(pendingImages, turn)
				} else {
					contents = append(contents, turn)
				}
			}
		}
	}
	return append(contents, pendingImages...)
}

// coerceToolCallArguments96 is @openclaw/ai 2026.9.6's
// coerceTransportToolCallArguments (transport-stream-shared-*.mjs): an
// object as it is, a string parsed as JSON when that gives an object, else
// {}.
func coerceToolCallArguments96(v any) any {
	switch x := v.(type) {
	case *jsvalue.Object:
		return x
	case string:
		if p, err := jsvalue.Parse(x); err == nil {
			if o, ok := p.(*jsvalue.Object); ok {
				return o
			}
		}
	}
	return jsvalue.NewObject()
}

func hasFunctionResponse(parts []any) bool {
	for _, p := range parts {
		if o, ok := p.(*jsvalue.Object); ok {
			if _, ok := o.Lookup("functionResponse"); ok {
				return true
			}
		}
	}
	return false
}

// renderGoogle96 is renderGoogle with 2026.9.6's ending of convertMessages
// (@openclaw/ai dist/google-messages-*.mjs, after flushToolResultRun()):
//
//	if (contents.length === 0) contents.push({ role: "user", parts: [{ text: " " }] });
//
// 2026.5.6 (pi-ai 0.73 google-shared) sent `contents: []` instead.
func renderGoogle96(c *conv, msgs []Message, system string) *jsvalue.Object {
	body := renderGoogle(c, msgs, system)
	if contents, ok := body.Lookup("contents"); ok {
		if list, ok := contents.([]any); ok && len(list) == 0 && c.err == nil {
			body.Set("contents", []any{jsvalue.NewObject("role", "user", "parts", []any{jsvalue.NewObject("text", " ")})})
		}
	}
	return body
}
