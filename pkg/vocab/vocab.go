// Package vocab names the words of OpenClaw's transcript format that oc's
// packages test for: entry types, message roles and content block types,
// as OpenClaw writes them (JSONL lines and SQLite rows alike). It holds
// constants only and imports nothing, so that every layer can use it.
package vocab

// Entry types (an entry's "type").
const (
	TypeSession             = "session"
	TypeMessage             = "message"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeModelChange         = "model_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// Message roles (a message's "role").
const (
	RoleUser              = "user"
	RoleAssistant         = "assistant"
	RoleToolResult        = "toolResult"
	RoleCustom            = "custom"
	RoleBashExecution     = "bashExecution"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
)

// Content block types (a block's "type").
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	BlockImage    = "image"
	// BlockToolCall is the tool call block OpenClaw writes; BlockToolUse
	// and BlockFunctionCall are the other spellings its readers take for
	// one (IsToolCallBlock).
	BlockToolCall     = "toolCall"
	BlockToolUse      = "toolUse"
	BlockFunctionCall = "functionCall"
)

// IsToolCallBlock reports whether a content block of type t is a tool call
// to OpenClaw's transcript readers: "toolCall", "toolUse" or
// "functionCall".
func IsToolCallBlock(t string) bool {
	return t == BlockToolCall || t == BlockToolUse || t == BlockFunctionCall
}
