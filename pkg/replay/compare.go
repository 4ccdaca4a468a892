package replay

import (
	"errors"

	"github.com/openclaw-tools/oc/internal/parallel"
)

// CompareInput is the shared work of `oc replay --provider all`: the
// context messages, decoded once, and their key order.
type CompareInput struct {
	Messages []Message
	Keys     *KeyOrder
	// Options apply to every provider; Provider, API and Model are set per row.
	Options      Options
	SystemPrompt string
	// Progress, when set, is called once per finished provider (concurrently).
	Progress func()
}

// CompareProviders runs the pipeline and the renderer for every provider
// family of ComparedProviders, in parallel, and summarises each. The
// messages are shared read-only: every pipeline copies what it changes.
func CompareProviders(in CompareInput) ([]Summary, error) {
	providers := ComparedProviders()
	rows := make([]Summary, len(providers))
	errs := make([]error, len(providers))
	parallel.Each(len(providers), 0, func(i int) {
		rows[i], errs[i] = compareOne(in, providers[i])
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

func compareOne(in CompareInput, d RouteDefault) (Summary, error) {
	route, err := ResolveRoute(d.Provider, "", "", in.Messages)
	if err != nil {
		route = ResolvedRoute{Provider: d.Provider, API: d.API, Model: d.Model, Source: "default"}
	}
	opts := in.Options
	opts.Provider, opts.API, opts.Model = route.Provider, route.API, route.Model
	if opts.KeyOrder == nil {
		opts.KeyOrder = in.Keys
	}
	res, err := Sanitize(in.Messages, opts)
	if err != nil {
		return Summary{}, err
	}
	sum := Summarize(route, len(in.Messages), res)
	_, err = BuildPayload(PayloadInput{Provider: route.Provider, API: route.API, Model: route.Model,
		Messages: res.Limited, SystemPrompt: in.SystemPrompt, KeyOrder: res.KeyOrder})
	switch {
	case errors.Is(err, ErrNoWireBody):
		sum.NoWireBody = true
		sum.PayloadError = err.Error()
	case err != nil:
		sum.PayloadError = err.Error()
	}
	return sum, nil
}
