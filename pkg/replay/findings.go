package replay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Finding rules of ProviderFindings.
const (
	FindingReplayFixes   = "replay-fixes"   // providers whose replay rewrites the history
	FindingReplayRejects = "replay-rejects" // providers that would likely reject it
	FindingReplaySkipped = "replay-skipped" // the context is too large to replay unasked
)

// FindingsContextLimit is the largest context (ActiveBranch.ContextBytes)
// that `oc inspect` replays for every provider family without being asked
// (--replay): the replay holds the context in memory once per family at a
// time, about 0.07 s and 12 MiB for each MiB of it, while the rest of
// inspect streams. No provider takes a request that large without images.
const FindingsContextLimit = 32 << 20

// SkippedFinding is the finding that says why inspect left the replay
// findings out of a transcript whose context is that many bytes, and how to
// get them (replayArg names the session to `oc replay`, as in
// ProviderFindings); false when the context is small enough to replay.
func SkippedFinding(contextBytes int64, replayArg string) (transcript.Finding, bool) {
	if contextBytes <= FindingsContextLimit {
		return transcript.Finding{}, false
	}
	return transcript.Finding{Rule: FindingReplaySkipped, Severity: transcript.SevInfo,
		Message: fmt.Sprintf("the active branch's context is %d MiB, over the %d MiB inspect replays unasked: no replay findings (`oc inspect --replay` or `oc replay %s --provider all` computes them)",
			contextBytes>>20, FindingsContextLimit>>20, replayArg)}, true
}

// ProviderFindings says, as `oc inspect` findings, which provider families
// OpenClaw release rel would have to fix this transcript for at replay (ids
// rewritten, blocks or messages dropped, synthetic tool results) and which
// would most likely reject the request anyway. Providers the release does
// not build in (a plugin) are left out. replayArg is what to pass to
// `oc replay` for this session in the advice (the transcript's path, a
// SQLite session's key), quoted for a shell; "" says SESSION.
func ProviderFindings(path string, rel policy.Release, replayArg string) ([]transcript.Finding, error) {
	ctx, err := transcript.LoadContext(path, nil)
	if err != nil {
		return nil, err
	}
	return ContextFindings(ctx, rel, replayArg)
}

// ContextFindings is ProviderFindings of a context already built (for
// inspect, from the summary of the read that analysed the file:
// transcript.Summary.Context).
func ContextFindings(ctx *transcript.Context, rel policy.Release, replayArg string) ([]transcript.Finding, error) {
	if replayArg == "" {
		replayArg = "SESSION"
	}
	if len(ctx.Messages) == 0 || ContextError(ctx) != nil {
		return nil, nil // a parentId cycle is analyze's finding (parent-cycle)
	}
	msgs, err := DecodeMessages(ctx.Messages, true)
	if err != nil {
		return nil, err
	}
	rows, err := CompareProviders(CompareInput{Messages: msgs, Options: Options{Release: rel}})
	var fails *OpenClawFailure
	if errors.As(err, &fails) {
		return []transcript.Finding{{Rule: FindingReplayRejects, Severity: transcript.SevWarning,
			Message: "OpenClaw " + rel.String() + " cannot replay this session for any provider: " + fails.What}}, nil
	}
	if err != nil {
		return nil, err
	}
	failed, counted := 0, 0
	for _, r := range rows {
		if r.NotBuiltIn == "" {
			counted++
			if r.Fails != "" {
				failed++
				fails = &OpenClawFailure{What: r.Fails}
			}
		}
	}
	if counted > 0 && failed == counted {
		return []transcript.Finding{{Rule: FindingReplayRejects, Severity: transcript.SevWarning,
			Message: "OpenClaw " + rel.String() + " cannot replay this session for any provider: " + fails.What}}, nil
	}
	// Providers with the same changes are named together.
	var order []string
	byWhat := map[string][]string{}
	var rejects []string
	compared := ComparedProviders()
	for i, r := range rows {
		if r.NotBuiltIn != "" {
			continue
		}
		name := r.Route.Provider
		if name != compared[i].Provider {
			// Renamed by the release (openai-codex is openai's
			// openai-chatgpt-responses in 2026.9.6): the api tells them apart.
			name += " (" + r.Route.API + ")"
		}
		var what []string
		for _, c := range []struct {
			n            int
			one, several string
		}{{r.IDsRewritten, "id rewritten", "ids rewritten"}, {r.BlocksDropped, "block dropped", "blocks dropped"},
			{r.MessagesDropped, "message dropped", "messages dropped"}, {r.SyntheticResults, "synthetic result", "synthetic results"}} {
			switch {
			case c.n == 1:
				what = append(what, "1 "+c.one)
			case c.n > 1:
				what = append(what, fmt.Sprintf("%d %s", c.n, c.several))
			}
		}
		if len(what) > 0 {
			key := strings.Join(what, ", ")
			if _, seen := byWhat[key]; !seen {
				order = append(order, key)
			}
			byWhat[key] = append(byWhat[key], name)
		}
		switch {
		case r.Fails != "":
			rejects = append(rejects, name+" (OpenClaw fails: "+r.Fails+")")
		case r.NoWireBody:
		case r.PayloadError != "":
			rejects = append(rejects, name+" (no request can be built)")
		case len(r.Problems) > 0:
			rejects = append(rejects, name+" ("+r.Problems[0]+")")
		}
	}
	var fixes []string
	for _, what := range order {
		fixes = append(fixes, what+": "+strings.Join(byWhat[what], ", "))
	}
	var out []transcript.Finding
	if len(fixes) > 0 {
		out = append(out, transcript.Finding{Rule: FindingReplayFixes, Severity: transcript.SevInfo,
			Message: "at replay OpenClaw " + rel.String() + " rewrites this history: " + strings.Join(fixes, "; ") + " (details: oc replay " + replayArg + " --provider P --explain)"})
	}
	if len(rejects) > 0 {
		out = append(out, transcript.Finding{Rule: FindingReplayRejects, Severity: transcript.SevWarning,
			Message: "under OpenClaw " + rel.String() + "'s rules, would likely be rejected by: " + strings.Join(rejects, "; ")})
	}
	return out, nil
}
