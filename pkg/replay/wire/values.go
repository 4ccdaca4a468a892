package wire

import "github.com/openclaw-tools/oc/pkg/replay/jsvalue"

// Message is a message as the renderers read it (after the LLM boundary).
type Message = jsvalue.Message
