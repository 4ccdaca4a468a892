package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	gojson "github.com/goccy/go-json"
	"github.com/spf13/cobra"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/transcript"
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
}

const (
	stageContext   = "context"
	stageSanitized = "sanitized"
	stagePayload   = "payload"
)

func newReplayCmd(g *Globals) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay SESSION --provider P [--api A] [--model M]",
		Short: "Show exactly what OpenClaw 2026.5.6 sends a provider for a session, and why",
		Long: `Replay a session the way OpenClaw 2026.5.6's embedded runner does before a
model call and show the result at one stage:

  context    the active branch as model messages
  sanitized  what the runner hands the model: transcript hygiene
             (sanitizeSessionHistory, validateReplayTurns, heartbeat filter,
             second tool-result pairing repair)
  payload    the provider's wire body (default): Anthropic Messages, OpenAI
             Chat Completions, OpenAI Responses (and Codex), Google Gemini,
             Bedrock Converse, Mistral

SESSION is a transcript path ("-" for stdin) or a session id under the state
dir. Without --api/--model the transcript's own latest turn of the provider
names them, else the provider's default route (oc replay --provider all
lists them). --explain prints the provider's policy and every change a rule
made; --diff shows the stored messages beside the replayed ones; --provider
all compares every provider family in one table.`,
		Example: `  oc replay 0197a3c2-…-9f1e --provider anthropic
  oc replay session.jsonl --provider mistral --stage sanitized --json | jq length
  oc replay session.jsonl --provider openai --explain
  oc replay session.jsonl --provider all`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("replay needs one SESSION (a transcript path, a session id, or - for stdin); got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(g, opts, args[0])
		},
	}
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
	registerReplayCompletions(cmd, g)
	return cmd
}

// replayInput is the shared work of every provider: the context, decoded once.
type replayInput struct {
	path     string
	note     string // set for a SQLite session: whose rules replay follows
	ctx      *transcript.Context
	messages []replay.Message
	keys     *replay.KeyOrder
}

func loadReplayInput(g *Globals, session string, decode, keepText bool) (*replayInput, error) {
	path, cleanup, note, err := resolveReplaySession(g, session)
	if err != nil {
		if cli.CodeOf(err) == cli.ExitUsage {
			return nil, err
		}
		return nil, cli.Incomplete(err)
	}
	defer cleanup()
	if note != "" && !g.JSON {
		fmt.Fprintf(g.IO.ErrOut, "oc: note: %s\n", note)
	}
	ctx, err := transcript.LoadContext(path, g.IO.In)
	if err != nil {
		return nil, cli.Incomplete(err)
	}
	if !decode {
		return &replayInput{path: path, ctx: ctx, note: note}, nil
	}
	// Unless the text is printed later, the decoded messages are all that
	// is used from here on: the text goes as it is decoded (peak memory on
	// large transcripts).
	msgs, keys, err := replay.DecodeMessagesKeyed(ctx.Messages, !keepText)
	if err != nil {
		return nil, cli.Incomplete(fmt.Errorf("%s: %w", path, err))
	}
	if !keepText {
		ctx.Messages = nil
	}
	return &replayInput{path: path, ctx: ctx, messages: msgs, keys: keys, note: note}, nil
}

func runReplay(g *Globals, opts *replayOptions, session string) error {
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
	if opts.ImageMaxPx < 0 {
		return cli.Usagef("--image-max-px %d: want a number of pixels, 1 or more (0: from the OpenClaw config, else 1200)", opts.ImageMaxPx)
	}
	if opts.API != "" && !containsString(knownAPIs(), opts.API) {
		return cli.Usagef("--api %q: not an api oc knows; known: %s", opts.API, strings.Join(knownAPIs(), ", "))
	}
	contextOnly := opts.Stage == stageContext && !opts.Explain && !opts.Diff && opts.Provider != "all" && opts.API != "" && opts.Model != ""
	in, err := loadReplayInput(g, session, !contextOnly, opts.Stage == stageContext)
	if err != nil {
		return err
	}
	if err := replay.ContextError(in.ctx); err != nil {
		return cli.Incomplete(fmt.Errorf("%s: %w", in.path, err))
	}
	if contextOnly {
		return printValue(g, rawArray(in.ctx.Messages))
	}
	imageMax := opts.ImageMaxPx
	if imageMax <= 0 {
		if px, _, ok := replay.ImageMaxDimensionFromConfig(g.ResolvedStateDir()); ok {
			imageMax = px
		}
	}
	if opts.Provider == "all" {
		return replayAll(g, opts, in, imageMax)
	}
	route, err := replay.ResolveRoute(opts.Provider, opts.API, opts.Model, in.messages)
	if err != nil {
		if !containsString(knownProviders(), policy.NormalizeProviderID(opts.Provider)) {
			return cli.Usagef("--provider %q: no turn of it in the transcript and not a provider oc knows; known: %s; aliases: %s (or give --api and --model)",
				opts.Provider, strings.Join(knownProviders(), ", "), aliasList())
		}
		return cli.Usagef("%v", err)
	}
	if opts.Stage == stageContext && !opts.Explain && !opts.Diff {
		return printValue(g, rawArray(in.ctx.Messages))
	}
	res, err := replay.Sanitize(in.messages, sanitizeOptions(route, opts, imageMax, in.keys))
	if err != nil {
		return cli.Incomplete(fmt.Errorf("%s: %w", in.path, err))
	}
	switch {
	case opts.Explain:
		_, perr := payloadOf(in, route, opts, res)
		return printExplain(g, in, route, res, perr)
	case opts.Diff:
		return printDiff(g, in.messages, res.Limited)
	case opts.Stage == stageSanitized:
		doc, err := replay.AppendMessages(nil, res.Limited, res.KeyOrder)
		if err != nil {
			return cli.Incomplete(err)
		}
		return printJSONBytes(g, doc)
	}
	p, err := payloadOf(in, route, opts, res)
	if errors.Is(err, replay.ErrNoWireBody) {
		// Said plainly, then the last stage there is: what the model is handed.
		fmt.Fprintf(g.IO.ErrOut, "oc: %s: no wire body: %v\noc: showing the sanitized stage instead\n", in.path, err)
		doc, err := replay.AppendMessages(nil, res.Limited, res.KeyOrder)
		if err != nil {
			return cli.Incomplete(err)
		}
		return printJSONBytes(g, doc)
	}
	if err != nil {
		return cli.Incomplete(fmt.Errorf("%s: %w", in.path, err))
	}
	body, err := p.AppendJSON(nil)
	if err != nil {
		return cli.Incomplete(err)
	}
	return printJSONBytes(g, body)
}

func sanitizeOptions(route replay.ResolvedRoute, opts *replayOptions, imageMax int, keys *replay.KeyOrder) replay.Options {
	return replay.Options{Provider: route.Provider, API: route.API, Model: route.Model,
		AllowedToolNames: opts.AllowedTools, ImageMaxDimensionPx: imageMax, KeyOrder: keys}
}

func payloadOf(in *replayInput, route replay.ResolvedRoute, opts *replayOptions, res *replay.Result) (*replay.Payload, error) {
	return replay.BuildPayload(replay.PayloadInput{Provider: route.Provider, API: route.API, Model: route.Model,
		Messages: res.Limited, SystemPrompt: opts.System, KeyOrder: res.KeyOrder})
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
	if !gojson.Valid(doc) {
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
	Note    string          `json:"note,omitempty"`
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

func printExplain(g *Globals, in *replayInput, route replay.ResolvedRoute, res *replay.Result, perr error) error {
	sum := replay.Summarize(route, len(in.messages), res)
	payload := "ok"
	if perr != nil {
		payload = perr.Error()
	}
	doc := explainDoc{Note: in.note, Policy: res.Policy, Changes: res.Changes, Stages: explainStages{
		Route: route, Family: sum.Family, Context: len(in.messages), Sanitized: len(res.Sanitized),
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
	fmt.Fprintf(w, "%s %s/%s/%s (%s, %s)\n", st.Title.Render("Replay"), cli.Safe(route.Provider), cli.Safe(route.API), cli.Safe(route.Model), sum.Family, route.Source)
	fmt.Fprintf(w, "%s\n", st.Dim.Render(cli.Safe(in.path)))
	if in.note != "" {
		fmt.Fprintf(w, "%s\n", st.Warn.Render("Note: "+cli.Safe(in.note)))
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Policy"))
	pb, _ := json.Marshal(res.Policy)
	var flags map[string]any
	_ = json.Unmarshal(pb, &flags)
	for _, k := range policyKeys(pb) {
		fmt.Fprintf(w, "  %-34s %v\n", st.Key.Render(k), flags[k])
	}
	fmt.Fprintf(w, "\n%s\n", st.Heading.Render("Stages"))
	fmt.Fprintf(w, "  context %d → sanitized %d → validated %d → sent %d messages; payload: %s\n",
		len(in.messages), len(res.Sanitized), len(res.Validated), len(res.Limited), cli.Safe(payload))
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

func replayAll(g *Globals, opts *replayOptions, in *replayInput, imageMax int) error {
	progress := cli.NewProgress(g.IO, "replaying", len(replay.ComparedProviders()))
	rows, err := replay.CompareProviders(replay.CompareInput{
		Messages: in.messages, Keys: in.keys, SystemPrompt: opts.System,
		Options:  sanitizeOptions(replay.ResolvedRoute{}, opts, imageMax, in.keys),
		Progress: func() { progress.Add(1) },
	})
	progress.Done()
	if err != nil {
		return cli.Incomplete(fmt.Errorf("%s: %w", in.path, err))
	}
	if g.JSON {
		return writeJSON(g.IO, rows)
	}
	st := g.IO.Styles()
	w := g.IO.Out
	fmt.Fprintf(w, "%s %s (%s)\n\n", st.Title.Render("Replay"), cli.Safe(in.path), plural(len(in.messages), "context message"))
	fmt.Fprintf(w, "%-24s %-24s %-30s %5s %5s %5s %5s %5s  %s\n", "PROVIDER", "API", "MODEL", "SENT", "IDS", "DROP", "MSGS-", "SYNTH", "ACCEPT")
	for _, r := range rows {
		verdict := st.OK.Render("yes")
		switch {
		case r.NoWireBody:
			verdict = st.Dim.Render("no wire body (OpenClaw runs a CLI for this api)")
		case r.PayloadError != "":
			verdict = st.Dim.Render("no payload: " + cli.Safe(firstLine(r.PayloadError, 60)))
		case len(r.Problems) > 0:
			verdict = st.Warn.Render(fmt.Sprintf("likely not: %s", cli.Safe(firstLine(r.Problems[0], 60))))
		}
		fmt.Fprintf(w, "%-24s %-24s %-30s %5d %5d %5d %5d %5d  %s\n", cli.Safe(r.Route.Provider), cli.Safe(r.Route.API), trunc(cli.Safe(r.Route.Model), 30),
			r.MessagesSent, r.IDsRewritten, r.BlocksDropped, r.MessagesDropped, r.SyntheticResults, verdict)
	}
	fmt.Fprintf(w, "\n%s\n", st.Dim.Render("SENT messages sent, IDS tool-call ids rewritten, DROP blocks dropped, MSGS- messages dropped, SYNTH synthetic tool results. Details: oc replay SESSION --provider P --explain"))
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

// printDiff shows stored (context) and replayed (sent) messages side by side.
func printDiff(g *Globals, stored, replayed []replay.Message) error {
	rows := replay.AlignMessages(stored, replayed)
	if g.JSON {
		return writeJSON(g.IO, rows)
	}
	st := g.IO.Styles()
	w := g.IO.Out
	width := g.IO.Width()
	if width <= 0 {
		width = 120
	}
	col := max(30, (width-8)/2)
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
	apis := append([]string(nil), replay.APIs...)
	for _, d := range replay.RouteDefaults() {
		apis = append(apis, d.API)
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
