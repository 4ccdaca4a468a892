package sanitize

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay/imageops"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
)

// R3: sanitizeSessionMessagesImages (src/agents/pi-embedded-helpers/images.ts):
// optional tool-call id sanitization, image limits, blank text removal,
// thought-signature stripping, and dropping assistant turns left empty.

// ImageLabel labels the placeholder texts of omitted images; the
// ImageOmitted texts replace an image block whose payload is empty or not
// base64.
const (
	ImageLabel               = "session:history"
	emptyContentPlaceholder  = "[empty content omitted]"
	ImageOmittedEmptyPayload = "[" + ImageLabel + "] omitted empty image payload"
	ImageOmittedInvalidB64   = "[" + ImageLabel + "] omitted image payload: invalid base64"
	imageOmittedPrefix       = "[" + ImageLabel + "] omitted image payload: Error: "
)

// ImageStepOptions is what the route's policy and the release say to
// Run.SanitizeImages.
type ImageStepOptions struct {
	// ToolIDs, when set, is the release's sanitizeToolCallIdsForCloudCodeAssist,
	// run first (mode IDMode, strict when empty).
	ToolIDs        *ToolIDRelease
	IDMode         string
	PreserveNative bool
	PreserveSigs   bool
	ThoughtSigs    *policy.ThoughtSignatures
	// Images is the release's sanitizeContentBlocksImages for one block.
	Images ImageRelease
}

// ImageRelease is what a release's sanitizeContentBlocksImages does its own
// way.
type ImageRelease struct {
	// Block checks one image block with string data and mimeType: the block
	// to keep (an image or a placeholder text) and what changed ("" when
	// nothing visible did).
	Block func(bm *jsvalue.Object, data, mime string, lim imageops.Limits) (*jsvalue.Object, string)
	// MissingData is the text that replaces an image block whose data or
	// mimeType is not a string ("": such a block is kept as it is).
	MissingData string
}

// dropEmptyTextBlocks removes text blocks whose text is blank.
func dropEmptyTextBlocks(content []any) ([]any, int) {
	var out []any
	dropped := 0
	for j, b := range content {
		if bm, ok := jsvalue.AsObject(b); ok && jsvalue.StringOrEmpty(bm, "type") == "text" {
			if t, ok := jsvalue.StringMember(bm, "text"); ok && jsjson.Blank(t) {
				if out == nil {
					out = append(make([]any, 0, len(content)), content[:j]...)
				}
				dropped++
				continue
			}
		}
		if out != nil {
			out = append(out, b)
		}
	}
	if out == nil {
		if content == nil {
			return []any{}, 0
		}
		return content, 0
	}
	return out, dropped
}

// withContent returns m with its content replaced by next, or m itself when
// next is the very array m already holds (JavaScript copies the message
// either way; the value is the same).
func withContent(m Message, old []any, wasArray bool, next []any) Message {
	if wasArray && sameSlice(old, next) {
		return m
	}
	return m.With("content", next)
}

func sameSlice(a, b []any) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func ensureNonEmptyContent(content []any) ([]any, bool) {
	if len(content) > 0 {
		return content, false
	}
	return []any{jsvalue.TextBlock(emptyContentPlaceholder)}, true
}

// SanitizeImages is sanitizeSessionMessagesImages with label "session:history".
func (r *Run) SanitizeImages(in []Message, o ImageStepOptions) ([]Message, error) {
	msgs := in
	if o.ToolIDs != nil {
		mode := o.IDMode
		if mode == "" {
			mode = policy.IDStrict
		}
		msgs = SanitizeToolCallIDs(msgs, mode, ToolIDOptions{PreserveNative: o.PreserveNative}, *o.ToolIDs, r.Log(RuleImages+"/toolCallIds"))
	}
	log := r.Log(RuleImages)
	lim := imageops.Limits{MaxSide: r.Opts.ImageMaxDimensionPx, MaxBytes: r.Opts.ImageMaxBytes}
	if lim.MaxSide <= 0 {
		lim.MaxSide = DefaultImageMaxDimensionPx
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultImageMaxBytes
	}
	out := make([]Message, 0, len(msgs))
	for i, m := range msgs {
		if m == nil {
			out = append(out, m)
			continue
		}
		switch jsvalue.Role(m) {
		case "toolResult":
			content, isArray := jsvalue.ArrayMember(m, "content")
			next := sanitizeContentImages(content, lim, i, log, o.Images)
			next, dropped := dropEmptyTextBlocks(next)
			if dropped > 0 {
				log.Add(i, KindBlockDropped, "%s removed from tool result", CountNoun(dropped, "blank text block", "blank text blocks"))
			}
			next, placeholder := ensureNonEmptyContent(next)
			if placeholder {
				log.Add(i, KindContentChanged, "empty tool result given %q", emptyContentPlaceholder)
			}
			out = append(out, withContent(m, content, isArray, next))
			continue
		case "user":
			if content, ok := jsvalue.ArrayMember(m, "content"); ok {
				next := sanitizeContentImages(content, lim, i, log, o.Images)
				next, dropped := dropEmptyTextBlocks(next)
				if dropped > 0 {
					log.Add(i, KindBlockDropped, "%s removed from user turn", CountNoun(dropped, "blank text block", "blank text blocks"))
				}
				next, placeholder := ensureNonEmptyContent(next)
				if placeholder {
					log.Add(i, KindContentChanged, "empty user turn given %q", emptyContentPlaceholder)
				}
				out = append(out, withContent(m, content, true, next))
				continue
			}
		case "assistant":
			content, isArray := jsvalue.ArrayMember(m, "content")
			if jsvalue.StringOrEmpty(m, "stopReason") == "error" {
				if !isArray {
					out = append(out, m)
					continue
				}
				next, dropped := dropEmptyTextBlocks(sanitizeContentImages(content, lim, i, log, o.Images))
				if len(next) == 0 {
					log.Add(i, KindMessageDropped, "failed assistant turn with no content dropped")
					continue
				}
				if dropped > 0 {
					log.Add(i, KindBlockDropped, "%s removed from failed assistant turn", CountNoun(dropped, "blank text block", "blank text blocks"))
				}
				out = append(out, withContent(m, content, true, next))
				continue
			}
			if isArray {
				stripped := content
				if !o.PreserveSigs {
					stripped = stripThoughtSignatures(content, o.ThoughtSigs, i, log)
				}
				next, dropped := dropEmptyTextBlocks(stripped)
				next = sanitizeContentImages(next, lim, i, log, o.Images)
				if len(next) == 0 {
					log.Add(i, KindMessageDropped, "assistant turn left empty after blank text removal dropped")
					continue
				}
				if dropped > 0 {
					log.Add(i, KindBlockDropped, "%s removed from assistant turn", CountNoun(dropped, "blank text block", "blank text blocks"))
				}
				out = append(out, withContent(m, content, true, next))
				continue
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// sanitizeContentImages is sanitizeContentBlocksImages: every image block is
// checked against the limits; oversized ones are re-encoded as JPEG, broken
// ones become a text placeholder.
func sanitizeContentImages(content []any, lim imageops.Limits, index int, log *ChangeLog, rel ImageRelease) []any {
	var out []any
	for j, b := range content {
		bm, ok := jsvalue.AsObject(b)
		if !ok || jsvalue.StringOrEmpty(bm, "type") != "image" {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		data, ok1 := jsvalue.StringMember(bm, "data")
		mime, ok2 := jsvalue.StringMember(bm, "mimeType")
		if (!ok1 || !ok2) && rel.MissingData == "" {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		if out == nil {
			out = make([]any, 0, len(content))
			out = append(out, content[:j]...)
		}
		var next *jsvalue.Object
		var what string
		switch {
		case !ok1 || !ok2:
			next, what = jsvalue.TextBlock(rel.MissingData), "image without data or mimeType omitted"
		default:
			next, what = rel.Block(bm, data, mime, lim)
		}
		if what != "" {
			log.Add(index, KindContentChanged, "image block %d: %s", j, what)
		}
		out = append(out, next)
	}
	if out == nil {
		return content
	}
	return out
}

// SanitizeImageBlock returns the block to keep (an image or a placeholder
// text) and what changed ("" when nothing visible did).
func SanitizeImageBlock(bm *jsvalue.Object, data, mime string, lim imageops.Limits) (*jsvalue.Object, string) {
	trimmed := jsjson.Trim(data)
	if trimmed == "" {
		return jsvalue.TextBlock(ImageOmittedEmptyPayload), "empty image payload omitted"
	}
	canonical, ok := imageops.CanonicalBase64(trimmed)
	if !ok {
		return jsvalue.TextBlock(ImageOmittedInvalidB64), "invalid base64 image omitted"
	}
	if sniffed := imageops.MimeFromBase64(canonical); sniffed != "" {
		mime = sniffed
	}
	res, err := imageops.ResizeIfNeeded(canonical, mime, lim)
	if err != nil {
		return jsvalue.TextBlock(imageOmittedPrefix + err.Error()), "image omitted: " + err.Error()
	}
	next := bm.Clone()
	next.Set("data", res.Base64)
	next.Set("mimeType", res.MimeType)
	what := ""
	switch {
	case res.Reencoded:
		what = res.Note
	case res.MimeType != jsvalue.StringOrEmpty(bm, "mimeType"):
		what = "mime type corrected to " + res.MimeType
	}
	return next, what
}

// stripThoughtSignatures removes Claude-style thought signatures that other
// providers reject: by default a thought_signature starting "msg_"; with
// allowBase64Only any thought_signature (and, with includeCamelCase,
// thoughtSignature) that is not valid base64.
func stripThoughtSignatures(content []any, opts *policy.ThoughtSignatures, index int, log *ChangeLog) []any {
	base64Only := opts != nil && opts.AllowBase64Only
	camel := opts != nil && opts.IncludeCamelCase
	shouldStrip := func(v any, present bool) bool {
		s, isStr := v.(string)
		if !base64Only {
			return isStr && len(s) >= 4 && s[:4] == "msg_"
		}
		return !isStr || !imageops.IsBase64Signature(s)
	}
	var out []any
	for j, b := range content {
		bm, ok := jsvalue.AsObject(b)
		if !ok {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		snakeV, snakeHas := bm.Lookup("thought_signature")
		camelV, camelHas := bm.Lookup("thoughtSignature")
		// Deleting an absent key changes nothing.
		stripSnake := shouldStrip(snakeV, snakeHas) && snakeHas
		stripCamel := camel && shouldStrip(camelV, camelHas) && camelHas
		if !stripSnake && !stripCamel {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		if out == nil {
			out = append(make([]any, 0, len(content)), content[:j]...)
		}
		next := bm.Clone()
		if stripSnake {
			next.Delete("thought_signature")
		}
		if stripCamel {
			next.Delete("thoughtSignature")
		}
		log.Add(index, KindMetadataChanged, "thought signature removed from block %d", j)
		out = append(out, next)
	}
	if out == nil {
		return content
	}
	return out
}
