package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/openclawconfig"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/replayinput"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/context96"
)

type replayOptions struct {
	Provider     string
	API          string
	Model        string
	Stage        string
	Explain      bool
	Diff         bool
	System       string
	AllowedTools []string
	ImageMaxPx   int
	// OpenClaw is --openclaw: one release, or two to compare ("": the
	// install's era).
	OpenClaw  string
	TZ        string
	ModelJSON string
	// ContextTokens is --context-tokens: the token budget 2026.9.6's
	// embedded runner reads a session with (bytes = tokens*8).
	ContextTokens int

	// Parsed from the flags above by runReplay.
	releases       []policy.Release
	location       *time.Location
	modelOverrides []byte
	// now is Date.now() of this run, taken once: every release and provider
	// of a comparison stamps synthetic messages with the same time.
	now func() int64
}

const (
	stageContext   = "context"
	stageSanitized = "sanitized"
	stagePayload   = "payload"
)

func newReplayCmd(g *Globals) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay SESSION --provider P [--api A] [--model M] [--openclaw RELEASE]",
		Short: "Show exactly what OpenClaw sends a provider for a session, and why",
		Long: `Replay a session the way OpenClaw's embedded runner does before a model call
and show the result at one stage:

  context    the active branch as model messages
  sanitized  what the runner hands the model: transcript hygiene
             (sanitizeSessionHistory, validateReplayTurns, heartbeat filter,
             second tool-result pairing repair)
  payload    the provider's wire body (default): Anthropic Messages, OpenAI
             Chat Completions, OpenAI Responses (and Codex; 2026.9.6: ChatGPT
             Responses), Google Gemini, Bedrock Converse (2026.5.6), Mistral

SESSION is a transcript path ("-" for stdin), a session id (or a unique
prefix) or a session key, in a state dir of either era. Without --api/--model the transcript's own latest turn of the provider
names them, else the provider's default route (oc replay --provider all
lists them). --explain prints the provider's policy and every change a rule
made; --diff shows the stored messages beside the replayed ones; --provider
all compares every provider family in one table.

Releases. --openclaw 2026.5.6 or 2026.9.6 picks whose rules run. The default
is the install's era: a transcript path, stdin or a session of a JSONL state
dir follows 2026.5.6; a session read from a SQLite database, or resolved in
a state dir that has SQLite databases, follows 2026.9.6. Every output names
the release: the header of --explain, --diff and --provider all, an
"openclaw" member in their --json, and a note on stderr for the JSON of
--stage (whose stdout stays the exact wire body). Two releases,
--openclaw 2026.5.6,2026.9.6, compare them: with --provider P, side by side
(route, messages sent, changes by kind, rules that fired) and what changed
for this session; with --provider all, the table of each release and the
differences per provider. A comparison takes no --stage or --diff.

Providers a release no longer builds in are reported, not guessed: 2026.9.6
builds no Bedrock requests (Amazon Bedrock became a plugin, whose rules oc
cannot see). Replaying such a provider exits 3 ("could not complete") with
"not built into OpenClaw 2026.9.6 (a plugin)"; --stage context still works,
and in --provider all and comparisons its row says so (exit 0).

2026.9.6 stamps user turns with the time in the user's zone: --tz names it
(an IANA name, UTC or Local; default Local, this machine's zone; the oracle
runs with UTC). --model-json supplies the model record's fields as a JSON
object (or @FILE), as the oracle's ORACLE_MODEL_JSON: 2026.9.6 has no
built-in model catalogue and uses maxTokens 8192, contextWindow 200000.`,
		Example: `  oc replay 0197a3c2-…-9f1e --provider anthropic
  oc replay session.jsonl --provider mistral --stage sanitized --json | jq length
  oc replay session.jsonl --provider openai --explain
  oc replay session.jsonl --provider all
  oc replay agent:main:main --provider anthropic --openclaw 2026.5.6,2026.9.6
  oc replay session.jsonl --provider anthropic --openclaw 2026.9.6 --tz UTC --model-json '{"maxTokens":64000}'`,
		Args: replayArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd.Context(), g, opts, args[0], cmd.Flags().Changed("stage"))
		},
	}
	addReplayFlags(cmd, opts)
	registerReplayCompletions(cmd, g)
	return cmd
}

// replayArgs accepts exactly one SESSION.
func replayArgs(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return cli.Usagef("replay needs one SESSION (a transcript path, a session id, or - for stdin); got %d", len(args))
	}
	return nil
}

// addReplayFlags registers replay's flags on cmd, bound to opts.
func addReplayFlags(cmd *cobra.Command, opts *replayOptions) {
	f := cmd.Flags()
	f.StringVar(&opts.Provider, "provider", "", `provider id (aliases allowed), or "all" for one row per provider family`)
	f.StringVar(&opts.API, "api", "", "model api, e.g. anthropic-messages, openai-responses (default: from the transcript or the provider)")
	f.StringVar(&opts.Model, "model", "", "model id (default: from the transcript or the provider)")
	f.StringVar(&opts.Stage, "stage", stagePayload, "what to show: context, sanitized or payload")
	f.BoolVar(&opts.Explain, "explain", false, "show the policy and what each rule changed")
	f.BoolVar(&opts.Diff, "diff", false, "show stored and replayed messages side by side")
	f.StringVar(&opts.System, "system", "", "system prompt to put in the payload (default: none, as the oracle)")
	f.StringSliceVar(&opts.AllowedTools, "allowed-tools", nil, "tool names the live registry has (default: no allow-list)")
	f.IntVar(&opts.ImageMaxPx, "image-max-px", 0, "largest image side (default: agents.defaults.imageMaxDimensionPx from the OpenClaw config, else 1200)")
	f.StringVar(&opts.OpenClaw, "openclaw", "", "OpenClaw release whose rules run: 2026.5.6 or 2026.9.6, or both comma-separated to compare (default: the install's era)")
	f.StringVar(&opts.TZ, "tz", "", "time zone 2026.9.6 stamps user turns in: an IANA name, UTC or Local (default: Local)")
	f.StringVar(&opts.ModelJSON, "model-json", "", "model record fields as a JSON object, or @FILE (as the oracle's ORACLE_MODEL_JSON)")
	f.IntVar(&opts.ContextTokens, "context-tokens", context96.DefaultContextTokens, "token budget 2026.9.6 reads the session with: the newest entries within tokens*8 bytes (as the oracle's ORACLE_CONTEXT_TOKENS; 2026.5.6 reads it all)")
}

// loadReplayInput resolves SESSION in the state dir and builds its
// context for releases (replayinput.Load): an ambiguous prefix is a usage
// error, anything else that stops it exit 3.
func loadReplayInput(ctx context.Context, g *Globals, session string, releases []policy.Release, limits context96.Limits, decode, keepText bool) (*replayinput.Input, error) {
	ses, err := replayinput.Resolve(ctx, g.ResolvedStateDir(), session, func(index string) { warnSkippedIndex(g, index) })
	if err != nil {
		var amb *store.AmbiguousError
		if errors.As(err, &amb) {
			return nil, cli.Exit(cli.ExitUsage, err)
		}
		return nil, cli.Incomplete(err)
	}
	in, err := replayinput.Load(ctx, ses, replayinput.LoadOptions{Releases: releases, Limits: limits, Decode: decode, KeepText: keepText, Stdin: g.IO.In})
	if err != nil {
		return nil, cli.Incomplete(err)
	}
	return in, nil
}

// parseReplayFlags checks the flags and fills in opts' parsed fields.
func parseReplayFlags(opts *replayOptions, stageSet bool) error {
	switch opts.Stage {
	case stageContext, stageSanitized, stagePayload:
	default:
		return cli.Usagef("--stage %q: want context, sanitized or payload", opts.Stage)
	}
	if opts.Provider == "" {
		return cli.Usagef("--provider is required (a provider id, or all)")
	}
	if opts.Provider == "all" && (opts.API != "" || opts.Model != "") {
		return cli.Usagef("--provider all takes no --api or --model")
	}
	if opts.ContextTokens < 1 {
		return cli.Usagef("--context-tokens %d: want a number of tokens, 1 or more", opts.ContextTokens)
	}
	if opts.ImageMaxPx < 0 {
		return cli.Usagef("--image-max-px %d: want a number of pixels, 1 or more (0: from the OpenClaw config, else 1200)", opts.ImageMaxPx)
	}
	if opts.API != "" && !containsString(knownAPIs(), opts.API) {
		return cli.Usagef("--api %q: not an api oc knows; known: %s", opts.API, strings.Join(knownAPIs(), ", "))
	}
	var err error
	if opts.releases, err = parseReleases(opts.OpenClaw); err != nil {
		return err
	}
	if len(opts.releases) == 2 && (stageSet || opts.Diff) {
		return cli.Usagef("--openclaw %s compares two releases; --stage and --diff show one release (name one)", opts.OpenClaw)
	}
	if opts.location, err = parseZone(opts.TZ); err != nil {
		return err
	}
	if opts.modelOverrides, err = parseModelJSON(opts.ModelJSON); err != nil {
		return err
	}
	start := time.Now().UnixMilli()
	opts.now = func() int64 { return start }
	return nil
}

func runReplay(ctx context.Context, g *Globals, opts *replayOptions, session string, stageSet bool) error {
	if err := parseReplayFlags(opts, stageSet); err != nil {
		return err
	}
	comparing := len(opts.releases) == 2
	contextOnly := !comparing && opts.Stage == stageContext && !opts.Explain && !opts.Diff && opts.Provider != "all" && opts.API != "" && opts.Model != ""
	in, err := loadReplayInputs(ctx, g, opts, session, comparing, contextOnly)
	if err != nil {
		return err
	}
	if contextOnly {
		return printValue(g, rawArray(in.Context.Messages))
	}
	imageMax := replayImageMax(g, opts)
	rel, label := in.Source.DefaultRelease(), ""
	if len(opts.releases) > 0 {
		rel = opts.releases[0]
	}
	label = releaseLabel(rel, len(opts.releases) > 0, in.Source)
	switch {
	case comparing && opts.Provider == "all":
		return replayAllReleases(g, opts, in, imageMax)
	case comparing:
		if _, err := resolveRoute(opts, in); err != nil {
			return err
		}
		return compareReleases(g, opts, in, imageMax)
	case opts.Provider == "all":
		return replayAll(g, opts, in, imageMax, rel, label)
	}
	route, err := resolveRoute(opts, in)
	if err != nil {
		return err
	}
	route = replay.RouteForRelease(rel, route)
	if opts.Stage == stageContext && !opts.Explain && !opts.Diff {
		return printValue(g, rawArray(in.Context.Messages))
	}
	return replayRoute(g, opts, in, route, imageMax, rel, label)
}

// loadReplayInputs loads the session's context, and when comparing the
// context OpenClaw 2026.9.6 builds from it too.
func loadReplayInputs(ctx context.Context, g *Globals, opts *replayOptions, session string, comparing, contextOnly bool) (*replayinput.Input, error) {
	in, err := loadReplayInput(ctx, g, session, opts.releases, context96.LimitsFor(opts.ContextTokens), !contextOnly, opts.Stage == stageContext)
	if err != nil {
		return nil, err
	}
	if err := replay.ContextError(in.Context); err != nil {
		return nil, cli.Incomplete(fmt.Errorf("%s: %w", in.Path, err))
	}
	if comparing {
		if in.Newer, err = loadReplayInput(ctx, g, session, []policy.Release{policy.Release96}, context96.LimitsFor(opts.ContextTokens), true, false); err != nil {
			return nil, err
		}
		if err := replay.ContextError(in.Newer.Context); err != nil {
			return nil, cli.Incomplete(fmt.Errorf("%s: OpenClaw %s: %w", in.Path, policy.Release96, err))
		}
	}
	return in, nil
}

// replayImageMax is the image size limit: --image-max-px, else OpenClaw's
// configured one, else the default (with a warning when the config cannot
// be read).
func replayImageMax(g *Globals, opts *replayOptions) int {
	imageMax := opts.ImageMaxPx
	if imageMax <= 0 {
		cfg, err := openclawconfig.Load(g.ResolvedStateDir(), g.env, nil)
		if err != nil {
			g.warn(fmt.Sprintf("%s; images are limited to the default %d px", cli.Safe(oneLine(err.Error())), replay.DefaultImageMaxDimensionPx))
		} else if px, ok := cfg.ImageMaxDimensionPx(); ok {
			imageMax = px
		}
	}
	return imageMax
}

// replayRoute sanitizes the context for one route and prints the stage
// asked for: the explanation, the diff, the sanitized messages or the wire
// body.
func replayRoute(g *Globals, opts *replayOptions, in *replayinput.Input, route replay.ResolvedRoute, imageMax int, rel policy.Release, label string) error {
	if err := replay.CheckBuiltIn(rel, route.API); err != nil {
		// Its rules are the plugin's: said, never guessed.
		return cli.Incomplete(fmt.Errorf("%s: --provider %s: %w", in.Path, route.Provider, err))
	}
	sopts := sanitizeOptions(route, opts, imageMax, in)
	sopts.Release = rel
	res, err := replay.Sanitize(in.Messages, sopts)
	if err != nil {
		return cli.Incomplete(fmt.Errorf("%s: %w", in.Path, err))
	}
	if !g.JSON && !opts.Explain && !opts.Diff {
		// The stages print the exact JSON the release hands on: the release
		// is named beside it.
		fmt.Fprintf(g.IO.ErrOut, "oc: following %s\n", label)
	}
	switch {
	case opts.Explain:
		_, perr := payloadOf(in, route, opts, res, rel)
		return printExplain(g, in, route, res, perr, rel, label)
	case opts.Diff:
		return printDiff(g, in.Messages, res.Limited, rel, label)
	case opts.Stage == stageSanitized:
		return printSanitizedStage(g, res)
	}
	p, err := payloadOf(in, route, opts, res, rel)
	if errors.Is(err, replay.ErrNoWireBody) {
		// Said plainly, then the last stage there is: what the model is handed.
		fmt.Fprintf(g.IO.ErrOut, "oc: %s: no wire body: %v\noc: showing the sanitized stage instead\n", in.Path, err)
		return printSanitizedStage(g, res)
	}
	if err != nil {
		return cli.Incomplete(fmt.Errorf("%s: %w", in.Path, err))
	}
	body, err := p.AppendJSON(nil)
	if err != nil {
		return cli.Incomplete(err)
	}
	return printJSONBytes(g, body)
}

// printSanitizedStage prints the sanitized messages.
func printSanitizedStage(g *Globals, res *replay.Result) error {
	doc, err := replay.AppendMessages(nil, res.Limited)
	if err != nil {
		return cli.Incomplete(err)
	}
	return printJSONBytes(g, doc)
}

// resolveRoute is --provider/--api/--model resolved against the transcript.
func resolveRoute(opts *replayOptions, in *replayinput.Input) (replay.ResolvedRoute, error) {
	route, err := replay.ResolveRoute(opts.Provider, opts.API, opts.Model, in.Messages)
	if err != nil {
		if !containsString(knownProviders(), policy.NormalizeProviderID(opts.Provider)) {
			return route, cli.Usagef("--provider %q: no turn of it in the transcript and not a provider oc knows; known: %s; aliases: %s (or give --api and --model)",
				opts.Provider, strings.Join(knownProviders(), ", "), aliasList())
		}
		return route, cli.Usagef("%v", err)
	}
	return route, nil
}

func sanitizeOptions(route replay.ResolvedRoute, opts *replayOptions, imageMax int, in *replayinput.Input) replay.Options {
	return replay.Options{Provider: route.Provider, API: route.API, Model: route.Model,
		AllowedToolNames: opts.AllowedTools, ImageMaxDimensionPx: imageMax, Now: opts.now,
		ModelSnapshots: in.ModelSnapshots}
}

func payloadOf(in *replayinput.Input, route replay.ResolvedRoute, opts *replayOptions, res *replay.Result, rel policy.Release) (*replay.Payload, error) {
	return replay.BuildPayload(replay.PayloadInput{Release: rel, Location: opts.location, Now: opts.now, ModelOverrides: opts.modelOverrides,
		Provider: route.Provider, API: route.API, Model: route.Model, SessionVersion: in.SessionVersion,
		Messages: res.Limited, SystemPrompt: opts.System})
}

func rawArray(raws []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// printValue prints v as JSON: compact-free indented JSON, coloured on a terminal.
func printValue(g *Globals, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return cli.Incomplete(err)
	}
	return printJSONBytes(g, b.Bytes())
}

// printJSONBytes indents a JSON document (keeping its member order) and
// colours it when stdout is a terminal.
func printJSONBytes(g *Globals, doc []byte) error {
	if g.IO.IsStdoutTTY() {
		// Text from the transcript must not act on the terminal.
		doc = cli.SafeJSON(doc)
	}
	if !g.IO.ColorEnabled() {
		// Written as it is indented: no second copy of a large body.
		w := bufio.NewWriterSize(g.IO.Out, 64<<10)
		if err := indentJSON(w, bytes.TrimSpace(doc)); err != nil {
			return cli.Incomplete(err)
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
		return w.Flush()
	}
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(doc), "", "  "); err != nil {
		return cli.Incomplete(err)
	}
	b.WriteByte('\n')
	return colorJSON(g.IO.Out, b.Bytes(), g.IO.Styles())
}

// indentJSON writes doc as json.Indent(dst, doc, "", "  ") does. doc must
// be one valid JSON value (it is checked first: an invalid document is an
// error and nothing is written).
func indentJSON(w *bufio.Writer, doc []byte) error {
	if !jsjson.Valid(doc) {
		var b bytes.Buffer
		if err := json.Indent(&b, doc, "", "  "); err != nil {
			return err
		}
		_, err := w.Write(b.Bytes())
		return err
	}
	depth := 0
	open := false // after { or [: the newline waits for the first member
	newline := func(d int) {
		w.WriteByte('\n')
		for i := 0; i < d; i++ {
			w.WriteString("  ")
		}
	}
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if open && c != '}' && c != ']' {
			newline(depth)
		}
		open = false
		switch c {
		case '"':
			j := i + 1
			for j < len(doc) && doc[j] != '"' {
				if doc[j] == '\\' {
					j++
				}
				j++
			}
			w.Write(doc[i : j+1])
			i = j
		case '{', '[':
			w.WriteByte(c)
			depth++
			open = true
		case '}', ']':
			depth--
			if !emptyBefore(doc, i) {
				newline(depth)
			}
			w.WriteByte(c)
		case ',':
			w.WriteByte(',')
			newline(depth)
		case ':':
			w.WriteString(": ")
		default:
			w.WriteByte(c)
		}
	}
	return nil
}

// emptyBefore: only whitespace between the bracket at i and its opener.
func emptyBefore(doc []byte, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch doc[j] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// colorJSON writes indented JSON with keys, strings and numbers styled.
func colorJSON(w io.Writer, doc []byte, st *cli.Styles) error {
	var out strings.Builder
	for i := 0; i < len(doc); {
		c := doc[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(doc) && doc[j] != '"' {
				if doc[j] == '\\' {
					j++
				}
				j++
			}
			j++
			tok := string(doc[i:min(j, len(doc))])
			k := j
			for k < len(doc) && doc[k] == ' ' {
				k++
			}
			if k < len(doc) && doc[k] == ':' {
				out.WriteString(st.Key.Render(tok))
			} else {
				out.WriteString(st.String.Render(tok))
			}
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i
			for j < len(doc) && strings.IndexByte("-+.eE0123456789", doc[j]) >= 0 {
				j++
			}
			out.WriteString(st.Number.Render(string(doc[i:j])))
			i = j
		case bytes.HasPrefix(doc[i:], []byte("true")) || bytes.HasPrefix(doc[i:], []byte("false")) || bytes.HasPrefix(doc[i:], []byte("null")):
			n := 4
			if doc[i] == 'f' {
				n = 5
			}
			out.WriteString(st.Bold.Render(string(doc[i : i+n])))
			i += n
		default:
			out.WriteByte(c)
			i++
		}
	}
	_, err := io.WriteString(w, out.String())
	return err
}

// explainDoc is `oc replay --explain --json`.
type explainDoc struct {
	// OpenClaw is the release whose rules ran; OpenClawSource says why
	// ("--openclaw", or the install's era).
	OpenClaw       policy.Release `json:"openclaw"`
	OpenClawSource string         `json:"openclawSource"`
	// Source names the database a SQLite session was read from.
	Source  string          `json:"source,omitempty"`
	Policy  policy.Policy   `json:"policy"`
	Stages  explainStages   `json:"stages"`
	Changes []replay.Change `json:"changes"`
}

type explainStages struct {
	Route        replay.ResolvedRoute `json:"route"`
	Family       string               `json:"family"`
	Context      int                  `json:"context"`
	Sanitized    int                  `json:"sanitized"`
	Validated    int                  `json:"validated"`
	Limited      int                  `json:"limited"`
	Payload      string               `json:"payload"`
	Problems     []string             `json:"problems"`
	ImageMaxSide int                  `json:"imageMaxSide,omitempty"`
}

func printExplain(g *Globals, in *replayinput.Input, route replay.ResolvedRoute, res *replay.Result, perr error, rel policy.Release, label string) error {
	sum := replay.SummarizeFor(rel, route, len(in.Messages), res)
	payload := "ok"
	if perr != nil {
		payload = perr.Error()
	}
	source := in.Source.Describe()
	if strings.HasSuffix(label, "(--openclaw)") {
		source = "--openclaw"
	}
	doc := explainDoc{OpenClaw: policy.Release(rel.String()), OpenClawSource: source, Source: in.Source.From,
		Policy: res.Policy, Changes: res.Changes, Stages: explainStages{
			Route: route, Family: sum.Family, Context: len(in.Messages), Sanitized: len(res.Sanitized),
			Validated: len(res.Validated), Limited: len(res.Limited), Payload: payload, Problems: sum.Problems,
		}}
	if doc.Changes == nil {
		doc.Changes = []replay.Change{}
	}
	if g.JSON {
		return writeJSON(g.IO, doc)
	}
	st := g.IO.Styles()
	w := g.IO.Out
	fmt.Fprintf(w, "%s %s/%s/%s (%s, %s) following %s\n", st.Title.Render("Replay"), cli.Safe(route.Provider), cli.Safe(route.API), cli.Safe(route.Model), sum.Family, route.Source, label)
	fmt.Fprintf(w, "%s\n", st.Dim.Render(cli.Safe(in.Path)))
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Policy (resolveTranscriptPolicy of OpenClaw "+rel.String()+")"))
	pb, _ := json.Marshal(res.Policy)
	var flags map[string]any
	_ = json.Unmarshal(pb, &flags)
	for _, k := range policyKeys(pb) {
		fmt.Fprintf(w, "  %-34s %v\n", st.Key.Render(k), flags[k])
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Stages"))
	fmt.Fprintf(w, "  context %d → sanitized %d → validated %d → sent %d messages; payload: %s\n",
		len(in.Messages), len(res.Sanitized), len(res.Validated), len(res.Limited), cli.Safe(payload))
	fmt.Fprintf(w, "\n%s (%d)\n", st.Heading.Render("Changes"), len(res.Changes))
	if len(res.Changes) == 0 {
		fmt.Fprintf(w, "  %s\n", st.Dim.Render("none: the history is sent as stored"))
	}
	for _, c := range res.Changes {
		fmt.Fprintf(w, "  %-8s %s %s %s\n", c.Stage, st.Key.Render(c.Rule), st.Dim.Render(fmt.Sprintf("#%d", c.Index)), cli.Safe(c.What))
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Would the provider accept it?"))
	if len(sum.Problems) == 0 {
		fmt.Fprintf(w, "  %s no known cause of rejection found\n", st.OK.Render("yes:"))
	}
	for _, p := range sum.Problems {
		fmt.Fprintf(w, "  %s %s\n", st.Warn.Render("!"), cli.Safe(p))
	}
	return nil
}

// policyKeys lists the members of a JSON object in their order.
func policyKeys(obj []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	var keys []string
	depth := 0
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
				expectKey = t == '{' && depth == 1
				continue
			}
			depth--
			expectKey = depth == 1
			continue
		case string:
			if depth == 1 && expectKey {
				keys = append(keys, t)
				expectKey = false
				continue
			}
		}
		if depth == 1 {
			expectKey = true
		}
	}
}

func replayAll(g *Globals, opts *replayOptions, in *replayinput.Input, imageMax int, rel policy.Release, label string) error {
	rows, err := replayAllRows(g, opts, in, imageMax, rel)
	if err != nil {
		return err
	}
	if g.JSON {
		return writeJSON(g.IO, rows)
	}
	printAllTable(g, in, rows, label)
	fmt.Fprintf(g.IO.Out, "\n%s\n", g.IO.Styles().Dim.Render("SENT messages sent, IDS tool-call ids rewritten, DROP blocks dropped, MSGS- messages dropped, SYNTH synthetic tool results. Details: oc replay SESSION --provider P --explain"))
	return nil
}

func replayAllRows(g *Globals, opts *replayOptions, in *replayinput.Input, imageMax int, rel policy.Release) ([]replay.ReplayRow, error) {
	progress := cli.NewProgress(g.IO, "replaying", len(replay.ComparedProviders()))
	cin := compareInput(opts, in, imageMax, rel)
	cin.Progress = func() { progress.Add(1) }
	rows, err := replay.CompareProviders(cin)
	progress.Done()
	if err != nil {
		return nil, cli.Incomplete(fmt.Errorf("%s: OpenClaw %s: %w", in.Path, rel, err))
	}
	return rows, nil
}

// printAllTable is one release's table of --provider all.
func printAllTable(g *Globals, in *replayinput.Input, rows []replay.ReplayRow, label string) {
	st := g.IO.Styles()
	w := g.IO.Out
	fmt.Fprintf(w, "%s %s (%s) following %s\n\n", st.Title.Render("Replay"), cli.Safe(in.Path), plural(len(in.Messages), "context message"), label)
	fmt.Fprintf(w, "%-24s %-24s %-30s %5s %5s %5s %5s %5s  %s\n", "PROVIDER", "API", "MODEL", "SENT", "IDS", "DROP", "MSGS-", "SYNTH", "ACCEPT")
	for _, r := range rows {
		verdict := st.OK.Render("yes")
		switch v := verdictText(r); {
		case r.NotBuiltIn != "" || r.NoWireBody || r.PayloadError != "":
			verdict = st.Dim.Render(v)
		case r.Fails != "":
			verdict = st.Warn.Render(v)
		case len(r.Problems) > 0:
			verdict = st.Warn.Render(v)
		}
		if r.NotBuiltIn != "" || r.Fails != "" {
			fmt.Fprintf(w, "%-24s %-24s %-30s %5s %5s %5s %5s %5s  %s\n", cli.Safe(r.Route.Provider), cli.Safe(r.Route.API), trunc(cli.Safe(r.Route.Model), 30),
				"-", "-", "-", "-", "-", verdict)
			continue
		}
		fmt.Fprintf(w, "%-24s %-24s %-30s %5d %5d %5d %5d %5d  %s\n", cli.Safe(r.Route.Provider), cli.Safe(r.Route.API), trunc(cli.Safe(r.Route.Model), 30),
			r.MessagesSent, r.IDsRewritten, r.BlocksDropped, r.MessagesDropped, r.SyntheticResults, verdict)
	}
}

// allReleases is `oc replay --provider all --openclaw A,B --json`.
type allReleases struct {
	Session  string            `json:"session"`
	Releases []releaseTable    `json:"releases"`
	Changed  []providerChanges `json:"differences"`
	// SameWireBody lists the providers whose wire body both releases build
	// byte for byte the same.
	SameWireBody []string `json:"sameWireBody"`
}

type releaseTable struct {
	OpenClaw policy.Release     `json:"openclaw"`
	Rows     []replay.ReplayRow `json:"rows"`
}

type providerChanges struct {
	Provider    string   `json:"provider"`
	Differences []string `json:"differences"`
}

// replayAllReleases is --provider all for two releases: a table per
// release, then what changed per provider.
func replayAllReleases(g *Globals, opts *replayOptions, in *replayinput.Input, imageMax int) error {
	doc := allReleases{Session: in.Path, Changed: []providerChanges{}, SameWireBody: []string{}}
	for _, rel := range opts.releases {
		rows, err := replayAllRows(g, opts, in.ForRelease(rel), imageMax, rel)
		if err != nil {
			return err
		}
		doc.Releases = append(doc.Releases, releaseTable{OpenClaw: rel, Rows: rows})
	}
	older, newer := doc.Releases[0].Rows, doc.Releases[1].Rows
	for i := range older {
		provider := replay.ComparedProviders()[i].Provider
		if d := replay.ReleaseDifferences(older[i], newer[i]); len(d) > 0 {
			doc.Changed = append(doc.Changed, providerChanges{Provider: provider, Differences: d})
		}
		if replay.SameWireBody(older[i], newer[i]) {
			doc.SameWireBody = append(doc.SameWireBody, provider)
		}
	}
	if g.JSON {
		return writeJSON(g.IO, doc)
	}
	st := g.IO.Styles()
	w := g.IO.Out
	for i, t := range doc.Releases {
		if i > 0 {
			fmt.Fprintln(w)
		}
		printAllTable(g, in, t.Rows, "OpenClaw "+t.OpenClaw.String()+" (--openclaw)")
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render(fmt.Sprintf("What changed for this session, %s → %s", doc.Releases[0].OpenClaw, doc.Releases[1].OpenClaw)))
	if len(doc.Changed) == 0 {
		fmt.Fprintf(w, "  %s\n", st.Dim.Render("nothing oc counts, for any provider"))
	}
	for _, c := range doc.Changed {
		fmt.Fprintf(w, "  %s\n", st.Key.Render(cli.Safe(c.Provider)))
		for _, d := range c.Differences {
			fmt.Fprintf(w, "    - %s\n", cli.Safe(d))
		}
	}
	if len(doc.SameWireBody) > 0 {
		fmt.Fprintf(w, "  %s %s\n", st.Dim.Render("same wire body byte for byte:"), strings.Join(doc.SameWireBody, ", "))
	}
	fmt.Fprintf(w, "\n%s\n", st.Dim.Render("SENT messages sent, IDS tool-call ids rewritten, DROP blocks dropped, MSGS- messages dropped, SYNTH synthetic tool results. One provider side by side: oc replay SESSION --provider P --openclaw A,B"))
	return nil
}

func firstLine(s string, n int) string { return trunc(oneLine(s), n) }

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// diffRow is one row of `oc replay --diff --json`, naming its release.
type diffRow struct {
	OpenClaw policy.Release `json:"openclaw"`
	replay.DiffRow
}

// printDiff shows stored (context) and replayed (sent) messages side by side.
func printDiff(g *Globals, stored, replayed []replay.Message, rel policy.Release, label string) error {
	rows := replay.AlignMessages(stored, replayed)
	if g.JSON {
		out := make([]diffRow, len(rows))
		for i, r := range rows {
			out[i] = diffRow{OpenClaw: policy.Release(rel.String()), DiffRow: r}
		}
		return writeJSON(g.IO, out)
	}
	st := g.IO.Styles()
	w := g.IO.Out
	width := g.IO.Width()
	if width <= 0 {
		width = 120
	}
	col := max(30, (width-8)/2)
	fmt.Fprintf(w, "%s\n", st.Dim.Render("Replayed following "+label))
	fmt.Fprintf(w, "%s   %s\n", padRight(st.Heading.Render("STORED (context)"), col), st.Heading.Render("REPLAYED (sent)"))
	for _, r := range rows {
		left, right := "", ""
		if r.Stored != nil {
			left = cli.Safe(replay.Brief(r.Stored))
		}
		if r.Replayed != nil {
			right = cli.Safe(replay.Brief(r.Replayed))
		}
		mark := " "
		switch r.Op {
		case replay.DiffChanged:
			mark = st.Warn.Render("~")
		case replay.DiffDropped:
			mark = st.Error.Render("-")
		case replay.DiffInserted:
			mark = st.OK.Render("+")
		}
		fmt.Fprintf(w, "%s %s %s\n", padRight(trunc(left, col), col), mark, trunc(right, col))
	}
	return nil
}

// knownProviders are the provider ids of the policy table and of the
// default routes, sorted, without duplicates.
func knownProviders() []string {
	ids := policy.KnownProviders()
	for _, d := range replay.RouteDefaults() {
		ids = append(ids, d.Provider)
	}
	return sortedUnique(ids)
}

// knownAPIs are the apis oc renders or has a default route for.
func knownAPIs() []string {
	apis := replay.APIs()
	for _, d := range replay.RouteDefaults() {
		apis = append(apis, d.API)
	}
	for _, rel := range policy.Releases() {
		apis = append(apis, policy.WireAPIs(rel)...)
	}
	return sortedUnique(apis)
}

// aliasesOf lists the provider aliases (for completion).
func aliasesOf() []string {
	var out []string
	for _, a := range policy.ProviderAliases() {
		out = append(out, a[0]+"\t"+a[1])
	}
	return out
}

// aliasList is "bedrock → amazon-bedrock, ..." for messages.
func aliasList() string {
	var parts []string
	for _, a := range policy.ProviderAliases() {
		parts = append(parts, a[0]+" → "+a[1])
	}
	return strings.Join(parts, ", ")
}

func sortedUnique(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
