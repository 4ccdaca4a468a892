package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/replayinput"
)

// parseReleases reads --openclaw: one release, or two separated by a comma
// (compared). nil means the install's era decides.
func parseReleases(flag string) ([]policy.Release, error) {
	if strings.TrimSpace(flag) == "" {
		return nil, nil
	}
	var out []policy.Release
	for _, part := range strings.Split(flag, ",") {
		rel, err := policy.ParseRelease(strings.TrimSpace(part))
		if err != nil {
			return nil, cli.Usagef("--openclaw %q: %v", flag, err)
		}
		for _, have := range out {
			if have == rel {
				return nil, cli.Usagef("--openclaw %q: %s named twice", flag, rel)
			}
		}
		out = append(out, rel)
	}
	if len(out) > 2 {
		return nil, cli.Usagef("--openclaw %q: one release, or two to compare", flag)
	}
	// Compared oldest first, whatever order they were given in.
	if len(out) == 2 && releaseIndex(out[0]) > releaseIndex(out[1]) {
		out[0], out[1] = out[1], out[0]
	}
	return out, nil
}

func releaseIndex(rel policy.Release) int {
	for i, r := range policy.Releases() {
		if r == rel {
			return i
		}
	}
	return -1
}

// parseZone reads --tz: an IANA zone name, "UTC" or "Local" ("" is Local).
func parseZone(name string) (*time.Location, error) {
	switch name {
	case "", "Local", "local":
		return time.Local, nil
	case "UTC", "utc":
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, cli.Usagef("--tz %q: not a time zone (an IANA name such as Europe/Berlin, UTC or Local): %v", name, err)
	}
	return loc, nil
}

// parseModelJSON reads --model-json: a JSON object, given inline or as
// @FILE, whose members replace those of the model record.
func parseModelJSON(arg string) ([]byte, error) {
	if arg == "" {
		return nil, nil
	}
	doc := []byte(arg)
	what := "--model-json"
	if strings.HasPrefix(arg, "@") {
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, cli.Usagef("--model-json %s: %v", arg, err)
		}
		doc, what = b, "--model-json "+arg
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil || obj == nil {
		why := "not a JSON object"
		if err != nil {
			why += ": " + err.Error()
		}
		return nil, cli.Usagef("%s: %s (want e.g. {\"maxTokens\":64000,\"contextWindow\":200000})", what, why)
	}
	return []byte(strings.TrimSpace(string(doc))), nil
}

// releaseLabel names the release a replay follows and why.
func releaseLabel(rel policy.Release, fromFlag bool, src replayinput.Source) string {
	if fromFlag {
		return "OpenClaw " + rel.String() + " (--openclaw)"
	}
	return "OpenClaw " + rel.String() + " (" + src.Describe() + ")"
}

// releaseComparison is `oc replay --openclaw A,B --provider P --json`.
type releaseComparison struct {
	Session         string             `json:"session"`
	Provider        string             `json:"provider"`
	ContextMessages int                `json:"contextMessages"`
	Releases        []replay.ReplayRow `json:"releases"`
	// Differences says what changed for this session, oldest release first.
	Differences []string `json:"differences"`
	// SameWireBody: both releases build byte-identical wire bodies.
	SameWireBody bool `json:"sameWireBody"`
}

// compareReleases replays one provider under each release and shows them
// side by side.
func compareReleases(g *Globals, opts *replayOptions, in *replayinput.Input, imageMax int) error {
	doc := releaseComparison{Session: in.Path, Provider: opts.Provider, ContextMessages: len(in.Messages)}
	for _, rel := range opts.releases {
		route, err := resolveRoute(opts, in.ForRelease(rel))
		if err != nil {
			return err
		}
		row, err := replay.ReplayRoute(compareInput(opts, in.ForRelease(rel), imageMax, rel), route)
		if err != nil {
			return cli.Incomplete(fmt.Errorf("%s: OpenClaw %s: %w", in.Path, rel, err))
		}
		doc.Releases = append(doc.Releases, row)
	}
	doc.Differences = replay.ReleaseDifferences(doc.Releases[0], doc.Releases[1])
	doc.SameWireBody = replay.SameWireBody(doc.Releases[0], doc.Releases[1])
	if doc.Differences == nil {
		doc.Differences = []string{}
	}
	if g.JSON {
		return writeJSON(g.IO, doc)
	}
	st := g.IO.Styles()
	w := g.IO.Out
	a, b := doc.Releases[0], doc.Releases[1]
	fmt.Fprintf(w, "%s %s: OpenClaw %s and %s side by side\n", st.Title.Render("Replay"), cli.Safe(opts.Provider), a.OpenClaw, b.OpenClaw)
	fmt.Fprintf(w, "%s\n\n", st.Dim.Render(fmt.Sprintf("%s (%s)", cli.Safe(in.Path), plural(len(in.Messages), "context message"))))
	const col = 44
	row := func(label string, left, right []string) {
		n := max(len(left), len(right), 1)
		for i := 0; i < n; i++ {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			head := ""
			if i == 0 {
				head = label
			}
			fmt.Fprintf(w, "%s\n", strings.TrimRight(fmt.Sprintf("%-16s %s %s", head, padRight(trunc(l, col), col), trunc(r, col)), " "))
		}
	}
	fmt.Fprintf(w, "%-16s %s %s\n", "", padRight(st.Heading.Render(string(a.OpenClaw)), col), st.Heading.Render(string(b.OpenClaw)))
	each := func(label string, f func(r replay.ReplayRow) []string) { row(label, f(a), f(b)) }
	each("route", func(r replay.ReplayRow) []string {
		return []string{cli.Safe(r.Route.Provider + "/" + r.Route.API), cli.Safe(r.Route.Model) + " (" + r.Route.Source + ")"}
	})
	each("policy family", func(r replay.ReplayRow) []string { return []string{cli.Safe(r.Family)} })
	each("sent", func(r replay.ReplayRow) []string {
		if r.NotBuiltIn != "" {
			return []string{"not built in (a plugin)"}
		}
		if r.Fails != "" {
			return []string{"nothing: OpenClaw fails"}
		}
		s := plural(r.MessagesSent, "message")
		if r.Wire != nil {
			s += fmt.Sprintf("; wire %s: %d", r.Wire.Field, r.Wire.Count)
		}
		return []string{s}
	})
	each("changes", func(r replay.ReplayRow) []string {
		var out []string
		for _, k := range sortedKinds(r.ByKind) {
			out = append(out, fmt.Sprintf("%-18s %d", k, r.ByKind[k]))
		}
		if len(out) == 0 {
			out = append(out, "none")
		}
		return out
	})
	each("rules fired", func(r replay.ReplayRow) []string {
		if len(r.Rules) == 0 {
			return []string{"none"}
		}
		return r.Rules
	})
	each("accepted?", func(r replay.ReplayRow) []string { return []string{verdictText(r)} })
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("What changed for this session"))
	switch {
	case len(doc.Differences) == 0 && doc.SameWireBody:
		fmt.Fprintf(w, "  %s\n", st.OK.Render("nothing: the wire body is byte for byte the same"))
	case len(doc.Differences) == 0:
		fmt.Fprintf(w, "  %s\n", st.Dim.Render("nothing oc counts"))
	}
	for _, d := range doc.Differences {
		fmt.Fprintf(w, "  - %s\n", cli.Safe(d))
	}
	if len(doc.Differences) > 0 && doc.SameWireBody {
		fmt.Fprintf(w, "  - %s\n", "yet the wire body is byte for byte the same")
	}
	fmt.Fprintf(w, "\n%s\n", st.Dim.Render(fmt.Sprintf("Each release in full: oc replay SESSION --provider %s --openclaw RELEASE --explain", cli.Safe(opts.Provider))))
	return nil
}

// verdictText is a row's answer to "would the provider accept it?", plain.
func verdictText(r replay.ReplayRow) string {
	switch {
	case r.NotBuiltIn != "":
		return fmt.Sprintf("not built into OpenClaw %s (a plugin)", r.OpenClaw)
	case r.Fails != "":
		return "OpenClaw fails: " + cli.Safe(firstLine(r.Fails, 60))
	case r.NoWireBody:
		return "no wire body (OpenClaw runs a CLI for this api)"
	case r.PayloadError != "":
		return "no payload: " + cli.Safe(firstLine(r.PayloadError, 60))
	case len(r.Problems) > 0:
		return "likely not: " + cli.Safe(firstLine(r.Problems[0], 60))
	}
	return "yes"
}

func sortedKinds(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return sortedUnique(out)
}

// compareInput is what every row of a comparison shares, for one release.
func compareInput(opts *replayOptions, in *replayinput.Input, imageMax int, rel policy.Release) replay.CompareInput {
	o := sanitizeOptions(replay.ResolvedRoute{}, opts, imageMax, in)
	o.Release = rel
	return replay.CompareInput{Messages: in.Messages, SystemPrompt: opts.System, Options: o,
		Location: opts.location, Now: opts.now, ModelOverrides: opts.modelOverrides, SessionVersion: in.SessionVersion}
}
