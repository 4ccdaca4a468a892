package vocab

import "testing"

func TestIsToolCallBlock(t *testing.T) {
	for typ, want := range map[string]bool{
		"toolCall": true, "toolUse": true, "functionCall": true,
		"tool_use": false, "function_call": false, "toolcall": false, "text": false, "": false,
	} {
		if got := IsToolCallBlock(typ); got != want {
			t.Errorf("IsToolCallBlock(%q) = %v, want %v", typ, got, want)
		}
	}
}
