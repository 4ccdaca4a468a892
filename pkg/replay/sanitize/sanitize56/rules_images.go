package sanitize56

import (
	"github.com/openclaw-tools/oc/pkg/replay/sanitize"
)

// R3: sanitizeSessionMessagesImages as 2026.5.6 has it (the rule is
// sanitize.Run.SanitizeImages).

// imageRelease is 2026.5.6's sanitizeContentBlocksImages: an image block
// without string data and mimeType is kept as it is.
func imageRelease() sanitize.ImageRelease {
	return sanitize.ImageRelease{Block: sanitize.SanitizeImageBlock}
}
