package sanitize96

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/replay/imageops"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R3: sanitizeSessionMessagesImages as 2026.9.6 has it (the rule is
// sanitize.Run.SanitizeImages): its own image-block rule and placeholder
// texts (tool-images-*.mjs). 9.6 leaves tool-call ids to their own step.

const (
	// imageOmittedMissing is 2026.9.6's text for an image block whose
	// data or mimeType is not a string (tool-images-*.mjs isImageTypeBlock).
	imageOmittedMissing = "[" + sanitize.ImageLabel + "] omitted image payload: missing data or mimeType"
	// imageOmittedRastermill starts 2026.9.6's text for an image its
	// library refuses (`String(err)` of a RastermillError).
	imageOmittedRastermill = "[" + sanitize.ImageLabel + "] omitted image payload: RastermillError: "
)

// imageRelease is 2026.9.6's sanitizeContentBlocksImages
// (tool-images-*.mjs isImageTypeBlock): an image block without string data
// and mimeType becomes a placeholder text.
func imageRelease() sanitize.ImageRelease {
	return sanitize.ImageRelease{Block: sanitizeImageBlock, MissingData: imageOmittedMissing}
}

// sanitizeImageBlock is 2026.9.6's sanitizeContentBlocksImages for one
// image block with string data and mimeType (tool-images-*.mjs): its
// canonicalizeBase64 pads unpadded base64 (CanonicalBase64For96), and its
// image library (Rastermill) refuses some images sharp takes and names its
// errors otherwise (imageops.RastermillRefusal), and reads BMP headers: a
// BMP within the limits is
// kept as it is, under the declared type (its bytes are converted to PNG only
// by the Anthropic transport, wire.anthropicImage96). Everything else
// follows the shared rule.
func sanitizeImageBlock(bm *jsvalue.Object, data, mime string, lim imageops.Limits) (*jsvalue.Object, string) {
	trimmed := jsjson.Trim(data)
	if trimmed == "" {
		return jsvalue.TextBlock(sanitize.ImageOmittedEmptyPayload), "empty image payload omitted"
	}
	canonical, ok := imageops.CanonicalBase64For96(trimmed)
	if !ok {
		return jsvalue.TextBlock(sanitize.ImageOmittedInvalidB64), "invalid base64 image omitted"
	}
	if sniffed := imageops.MimeFromBase64(canonical); sniffed != "" {
		mime = sniffed
	}
	if why := imageops.RastermillRefusal(canonical, lim); why != "" {
		return jsvalue.TextBlock(imageOmittedRastermill + why), "image omitted: " + why
	}
	if imageops.BMPWithinLimits(canonical, lim) {
		next := bm.Clone()
		next.Set("data", canonical)
		next.Set("mimeType", mime)
		return next, ""
	}
	return sanitize.SanitizeImageBlock(bm, canonical, mime, lim)
}
