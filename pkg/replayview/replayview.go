// Package replayview puts a session's stored context beside what a provider
// is sent for it, for oc browse: the context OpenClaw builds (by the rules
// of the session's era), replayed through pkg/replay's pipeline for one
// provider, aligned message by message (replay.AlignMessages, as oc replay
// --diff does), each changed message with the rules that changed it named.
package replayview

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/store/context96"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// View is one provider's replay of a session's context.
type View struct {
	Release  policy.Release
	Route    replay.ResolvedRoute
	Rows     []Row
	Rules    []string // every rule that changed something, in order
	Messages int      // context messages
	Sent     int      // messages the model is handed
}

// Row is one stored message beside its sent form.
type Row struct {
	Op     string // replay.DiffSame, DiffChanged, DiffDropped, DiffInserted
	Stored string // replay.Brief of the stored message ("" when inserted)
	Sent   string // replay.Brief of the sent message ("" when dropped)
	// Rules are the rules whose changes name this stored message.
	Rules []string
}

// Providers lists the providers the view can replay for.
func Providers() []string {
	var out []string
	for _, d := range replay.ComparedProviders() {
		out = append(out, d.Provider)
	}
	return out
}

// Build replays the session in file (a JSONL transcript, or rows as JSONL
// lines) for provider ("" : the provider of the session's last assistant
// turn, else the first of Providers). rules96 picks 2026.9.6's context and
// pipeline (a SQLite session), else 2026.5.6's.
func Build(file string, rules96 bool, provider string) (*View, error) {
	v := &View{Release: policy.Release56}
	var ctx *transcript.Context
	var snapshots []replay.ModelSnapshot
	var err error
	if rules96 {
		v.Release = policy.Release96
		rows, err := readRows(file)
		if err != nil {
			return nil, err
		}
		s, err := context96.Build(rows)
		if err != nil {
			return nil, err
		}
		if snapshots, err = replay.ModelSnapshotsOnBranch(s.Branch); err != nil {
			return nil, err
		}
		ctx = s.Context
	} else if ctx, err = transcript.LoadContext(file, nil); err != nil {
		return nil, err
	}
	msgs, err := replay.DecodeMessages(ctx.Messages, false)
	if err != nil {
		return nil, err
	}
	v.Messages = len(msgs)
	if provider == "" {
		provider = lastProvider(ctx)
	}
	if provider == "" {
		provider = Providers()[0]
	}
	route, err := replay.ResolveRoute(provider, "", "", msgs)
	if err != nil {
		for _, d := range replay.ComparedProviders() {
			if d.Provider == provider {
				route = replay.ResolvedRoute{Provider: d.Provider, API: d.API, Model: d.Model, Source: "default"}
				err = nil
			}
		}
		if err != nil {
			return nil, err
		}
	}
	v.Route = replay.RouteForRelease(v.Release, route)
	if err := replay.CheckBuiltIn(v.Release, v.Route.API); err != nil {
		return nil, fmt.Errorf("provider %s: %w", provider, err)
	}
	res, err := replay.Sanitize(msgs, replay.Options{Provider: v.Route.Provider, API: v.Route.API, Model: v.Route.Model, Release: v.Release, ModelSnapshots: snapshots})
	if err != nil {
		return nil, err
	}
	v.Sent = len(res.Limited)
	v.Rules = replay.RulesFired(res.Changes)
	byIndex := map[int][]string{}
	for _, c := range res.Changes {
		if !contains(byIndex[c.Index], c.Rule) {
			byIndex[c.Index] = append(byIndex[c.Index], c.Rule)
		}
	}
	k := 0
	for _, r := range replay.AlignMessages(msgs, res.Limited) {
		row := Row{Op: r.Op}
		if r.Stored != nil {
			row.Stored = replay.Brief(r.Stored)
			if r.Op != replay.DiffSame {
				row.Rules = byIndex[k]
			}
			k++
		}
		if r.Replayed != nil {
			row.Sent = replay.Brief(r.Replayed)
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lastProvider is the provider of the context's model, else "".
func lastProvider(ctx *transcript.Context) string {
	if ctx.Model == nil {
		return ""
	}
	var p string
	if json.Unmarshal(ctx.Model.Provider, &p) != nil {
		return ""
	}
	return p
}

// readRows reads a file's lines (the rows of a spooled SQLite session).
func readRows(file string) ([][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows [][]byte
	rd := jsonl.NewReader(bufio.NewReader(f))
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		rows = append(rows, append([]byte(nil), l.Data...))
	}
}
