package replay

import (
	"crypto/sha256"
	"errors"
	"time"

	"github.com/openclaw-tools/oc/internal/parallel"
	"github.com/openclaw-tools/oc/pkg/policy"
)

// CompareInput is the shared work of `oc replay --provider all` and of a
// comparison of releases: the context messages, decoded once, and what
// every provider's replay shares.
type CompareInput struct {
	Messages []Message
	// Options apply to every provider (Options.Release picks the release);
	// Provider, API and Model are set per row.
	Options      Options
	SystemPrompt string
	// Location, Now, ModelOverrides and SessionVersion are PayloadInput's.
	Location       *time.Location
	Now            func() int64
	ModelOverrides []byte
	SessionVersion int
	// Progress, when set, is called once per finished provider (concurrently).
	Progress func()
}

// ReplayRow is one provider replayed under one release: the counts of
// Summary, and what a comparison of releases needs besides.
type ReplayRow struct {
	// OpenClaw is the release whose rules ran.
	OpenClaw policy.Release `json:"openclaw"`
	Summary
	// Wire counts the wire body's conversation list (nil: no wire body).
	Wire *WireCount `json:"wire,omitempty"`
	// ByKind counts the pipeline's changes by Change.Kind.
	ByKind map[string]int `json:"byKind"`
	// Rules are the rules that changed something, in order.
	Rules []string `json:"rules"`
	// NotBuiltIn is set, and nothing else was run, when the release does not
	// build the route's api itself (NotBuiltInError).
	NotBuiltIn string `json:"notBuiltIn,omitempty"`
	// Fails is set, and nothing else, when OpenClaw's own pipeline throws
	// for the route (OpenClawFailure): it sends nothing.
	Fails string `json:"openclawFails,omitempty"`
	// bodyHash identifies the wire body (zero: none was built).
	bodyHash [sha256.Size]byte
}

// CompareProviders runs the pipeline and the renderer for every provider
// family of ComparedProviders, in parallel, and summarises each. The
// messages are shared read-only: every pipeline copies what it changes.
func CompareProviders(in CompareInput) ([]ReplayRow, error) {
	providers := ComparedProviders()
	rows := make([]ReplayRow, len(providers))
	errs := make([]error, len(providers))
	parallel.Each(len(providers), 0, func(i int) {
		d := providers[i]
		route, err := ResolveRoute(d.Provider, "", "", in.Messages)
		if err != nil {
			route = ResolvedRoute{Provider: d.Provider, API: d.API, Model: d.Model, Source: "default"}
		}
		rows[i], errs[i] = ReplayRoute(in, route)
		if in.Progress != nil {
			in.Progress()
		}
	})
	for i, err := range errs {
		if err != nil {
			return nil, &ProviderError{Provider: providers[i].Provider, Err: err}
		}
	}
	return rows, nil
}

// ProviderError is a pipeline failure for one provider of a comparison.
type ProviderError struct {
	Provider string
	Err      error
}

func (e *ProviderError) Error() string { return e.Provider + ": " + e.Err.Error() }
func (e *ProviderError) Unwrap() error { return e.Err }

// ReplayRoute replays the messages for one route under in.Options.Release
// (the route is first renamed as the release names it: RouteForRelease) and
// summarises the result. A route the release does not build in gives a row
// with NotBuiltIn set and nothing run.
func ReplayRoute(in CompareInput, route ResolvedRoute) (ReplayRow, error) {
	rel := in.Options.Release
	route = RouteForRelease(rel, route)
	row := ReplayRow{OpenClaw: policy.Release(rel.String()), ByKind: map[string]int{}, Rules: []string{}}
	if err := CheckBuiltIn(rel, route.API); err != nil {
		row.Summary = Summary{Route: route, Family: familyFor(rel, route), ContextMessages: len(in.Messages), Problems: []string{}}
		row.NotBuiltIn = err.Error()
		return row, nil
	}
	opts := in.Options
	opts.Provider, opts.API, opts.Model = route.Provider, route.API, route.Model
	res, err := Sanitize(in.Messages, opts)
	var fails *OpenClawFailure
	if errors.As(err, &fails) {
		// OpenClaw itself throws for this route (2026.9.6's Responses replay
		// guard): the row says so, the other providers still count.
		row.Summary = Summary{Route: route, Family: familyFor(rel, route), ContextMessages: len(in.Messages), Problems: []string{}}
		row.Fails = fails.What
		return row, nil
	}
	if err != nil {
		return row, err
	}
	row.Summary = SummarizeFor(rel, route, len(in.Messages), res)
	row.ByKind = ChangesByKind(res.Changes)
	row.Rules = RulesFired(res.Changes)
	p, err := BuildPayload(PayloadInput{Release: rel, Location: in.Location, Now: in.Now, ModelOverrides: in.ModelOverrides,
		Provider: route.Provider, API: route.API, Model: route.Model, SessionVersion: in.SessionVersion,
		Messages: res.Limited, SystemPrompt: in.SystemPrompt})
	switch {
	case errors.Is(err, ErrNoWireBody):
		row.NoWireBody = true
		row.PayloadError = err.Error()
	case err != nil:
		row.PayloadError = err.Error()
	default:
		row.Wire = CountWire(p)
		if body, err := p.AppendJSON(nil); err == nil {
			row.bodyHash = sha256.Sum256(body)
		}
	}
	return row, nil
}

// SummarizeFor is Summarize with the family of the release's policy table.
func SummarizeFor(rel policy.Release, route ResolvedRoute, contextLen int, res *Result) Summary {
	s := Summarize(route, contextLen, res)
	s.Family = familyFor(rel, route)
	if s.Problems == nil {
		s.Problems = []string{} // --json: always a list
	}
	return s
}

func familyFor(rel policy.Release, route ResolvedRoute) string {
	return policy.ResolveFor(rel, policy.Route{Provider: route.Provider, API: route.API, Model: route.Model}).Family
}

// SameWireBody reports whether two rows built byte-identical wire bodies.
func SameWireBody(a, b ReplayRow) bool {
	var zero [sha256.Size]byte
	return a.bodyHash != zero && a.bodyHash == b.bodyHash
}
