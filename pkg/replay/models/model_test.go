package models

import "testing"

func TestResolveUsesPiAITable(t *testing.T) {
	for i := 1; i < len(piModels); i++ {
		a, b := piModels[i-1], piModels[i]
		if a.provider > b.provider || a.provider == b.provider && a.id >= b.id {
			t.Fatalf("table not sorted at %d: %s/%s then %s/%s", i, a.provider, a.id, b.provider, b.id)
		}
	}
	m := Resolve("openai", "openai-completions", "gpt-5", false)
	if !m.Known || !m.Reasoning || m.MaxTokens != 128000 || m.ThinkingOff != OffNull || m.API != "openai-completions" {
		t.Errorf("gpt-5: %+v", m)
	}
	m = Resolve("ollama", "openai-completions", "gemma4:27b", true)
	if m.Known || !m.Reasoning || !m.Vision || m.MaxTokens != 8192 || m.Name != "gemma4:27b" {
		t.Errorf("unknown model: %+v", m)
	}
}
