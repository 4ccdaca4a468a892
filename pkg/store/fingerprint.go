package store

import "bytes"

// UndoImportRewrites applies to a source line the byte rewrites 2026.9.6's
// import makes when it stores a line (Codex route rename, inbound metadata
// markers), so that the result can be compared with the stored row.
func UndoImportRewrites(src []byte) []byte {
	s := bytes.ReplaceAll(src, codexAPI, []byte(`"api":"openai-chatgpt-responses"`))
	s = bytes.ReplaceAll(s, codexProvider, []byte(`"provider":"openai"`))
	return inboundMarkerRE.ReplaceAll(s, []byte("${1}: ⟦openclaw:ctx⟧"))
}
