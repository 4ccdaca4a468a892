package store

import "bytes"

// UndoImportRewrites applies to a source line the byte rewrites 2026.9.6's
// import makes when it stores a line (Codex route rename, inbound metadata
// markers), so that the result can be compared with the stored row.
func UndoImportRewrites(src []byte) []byte {
	return inboundMarkerRE().ReplaceAll(CodexRouteRename(src), []byte("${1}: ⟦openclaw:ctx⟧"))
}

// CodexRouteRename is the import's rename of the Codex route in a stored
// line: api openai-codex-responses becomes openai-chatgpt-responses and
// provider openai-codex becomes openai.
// The result is always a new slice (src may be reused by the caller).
func CodexRouteRename(src []byte) []byte {
	if !bytes.Contains(src, codexAPI) && !bytes.Contains(src, codexProvider) {
		// the usual line: one copy, not two passes of ReplaceAll copying it
		return append([]byte(nil), src...)
	}
	s := bytes.ReplaceAll(src, codexAPI, []byte(`"api":"openai-chatgpt-responses"`))
	return bytes.ReplaceAll(s, codexProvider, []byte(`"provider":"openai"`))
}
