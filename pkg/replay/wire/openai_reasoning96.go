package wire

import (
	"slices"
	"strings"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/lazyre"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/replay/models"
)

// The "reasoning off" request of 2026.9.6's Responses bodies:
// applyCommonResponsesParams (dist/openai-responses-shared-*.mjs) asks
// resolveOpenAIRequestReasoning (dist/openai-transport-params-*.mjs) for
// effort "off" on reasoning models, which depends on the efforts the model
// supports (resolveOpenAIModelReasoningEfforts,
// dist/openai-reasoning-effort-*.mjs): "none" where the model lists it or no
// list is known, nothing (no `reasoning` member) where the list lacks it.

var (
	gpt56RE      = lazyre.New(`^gpt-5\.6(?:-|$)`)
	gptCodexRE   = lazyre.New(`^gpt-5(?:\.\d+)?-codex(?:-|$)`)
	gptProRE     = lazyre.New(`^gpt-5\.[2-9](?:\.\d+)?-pro(?:-|$)`)
	gpt52RE      = lazyre.New(`^gpt-5\.[2-9](?:\.\d+)?(?:-|$)`)
	gpt51RE      = lazyre.New(`^gpt-5\.1(?:-|$)`)
	gpt5RE       = lazyre.New(`^gpt-5(?:-|$)`)
	datedModelRE = lazyre.New(`-\d{4}-\d{2}-\d{2}$`)
)

// openAIModelReasoningEfforts is resolveOpenAIModelReasoningEfforts (known
// false: no list, every effort passes).
func openAIModelReasoningEfforts(m *models.Model) ([]string, bool) {
	if v, ok := m.CompatBool("supportsReasoningEffort"); ok && !v {
		return []string{}, true
	}
	if raw, ok := m.Compat["supportedReasoningEfforts"].([]any); ok {
		var out []string
		for _, e := range raw {
			if s, ok := e.(string); ok && jsjson.Trim(s) != "" && !slices.Contains(out, jsjson.Trim(s)) {
				out = append(out, jsjson.Trim(s))
			}
		}
		return out, true
	}
	id := datedModelRE().ReplaceAllString(strings.ToLower(jsjson.Trim(m.ID)), "")
	supportsMax := m.API != "openai-completions"
	pick := func(withMax, without []string) ([]string, bool) {
		if supportsMax {
			return withMax, true
		}
		return without, true
	}
	gpt52 := []string{"none", "low", "medium", "high", "xhigh"}
	gpt56 := []string{"none", "low", "medium", "high", "xhigh", "max"}
	codex := []string{"low", "medium", "high", "xhigh"}
	switch {
	case (id == "gpt-6-astra" || id == "gpt-6-sol" || id == "gpt-6-luna") && m.API != "azure-openai-responses":
		if id == "gpt-6-astra" {
			return pick([]string{"low", "medium", "high", "xhigh", "max"}, codex)
		}
		return pick(gpt56, gpt52)
	case gpt56RE().MatchString(id):
		return pick(gpt56, gpt52)
	case id == "gpt-5.1-codex-mini":
		return []string{"medium"}, true
	case id == "gpt-5.1-codex-max":
		return []string{"none", "medium", "high", "xhigh"}, true
	case gptCodexRE().MatchString(id):
		return codex, true
	case id == "gpt-5-pro":
		return []string{"high"}, true
	case gptProRE().MatchString(id):
		return []string{"medium", "high", "xhigh"}, true
	case gpt52RE().MatchString(id):
		return gpt52, true
	case gpt51RE().MatchString(id):
		return []string{"none", "low", "medium", "high"}, true
	case gpt5RE().MatchString(id):
		return []string{"minimal", "low", "medium", "high"}, true
	}
	return nil, false
}

// responsesReasoningOff96 is the effort resolveOpenAIRequestReasoning(model,
// "off") gives ("" for none). A thinkingLevelMap "off" value is used as the
// intent; a null one disables the request.
func responsesReasoningOff96(m *models.Model) string {
	if !m.Reasoning {
		return ""
	}
	supported, known := openAIModelReasoningEfforts(m)
	intent := "none" // requested "off"
	switch m.ThinkingOff {
	case models.OffNull:
		return ""
	case models.OffValue:
		intent = jsjson.Trim(m.ThinkingOffValue)
	}
	switch {
	case !known:
		return intent
	case len(supported) == 0:
		return ""
	case slices.Contains(supported, intent):
		return intent
	case slices.Contains(supported, "none"):
		return "none"
	}
	return ""
}

// setResponsesReasoningOff96 sets body.reasoning for the default "off".
func setResponsesReasoningOff96(body *jsvalue.Object, m *models.Model) {
	body.Delete("reasoning")
	if effort := responsesReasoningOff96(m); effort != "" {
		body.Set("reasoning", jsvalue.NewObject("effort", effort))
	}
}
