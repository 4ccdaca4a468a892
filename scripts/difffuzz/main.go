// Command difffuzz is a differential fuzzer of `oc replay` against OpenClaw
// 2026.5.6 (and, with -openclaw 2026.9.6, against 2026.9.6 on the database
// its import writes: see openclaw96.go): it generates transcripts by recombining and mutating real
// entries of ../shared/corpus/real (read in place), replays each with oc's
// pipeline and with the oracle's `batch` mode, and reports how many
// sanitized (`limited`) lists and wire bodies are equal (as JSON.parse reads
// them; synthetic times and re-encoded images excepted). Transcripts on
// which they differ are kept, with the oracle's answers, for regression
// tests.
//
//	go run ./scripts/difffuzz -n 200 -routes anthropic/anthropic-messages/claude-sonnet-4-5
//	go run ./scripts/difffuzz -openclaw 2026.9.6 -n 30   # the 9 routes 9.6 builds
//
// The oracle is slow (about 2 s a job on an idle machine, much more on a
// busy one): size -n and -routes to the time there is.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"

	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/image/bmp"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/jsonl"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/repair"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/vocab"
)

func main() {
	n := flag.Int("n", 20, "transcripts to generate")
	seed := flag.Uint64("seed", 1, "random seed")
	shared := flag.String("shared", "../shared", "the shared folder (corpus and oracle)")
	routesFlag := flag.String("routes", "anthropic/anthropic-messages/claude-sonnet-4-5,openai/openai-completions/gpt-4o-mini", `provider/api/model routes, comma-separated, or "all" (one per provider family)`)
	out := flag.String("out", "", "folder for the generated transcripts (default: a temporary one)")
	keep := flag.String("keep", "", "folder to copy differing transcripts and the oracle's answers to")
	chunk := flag.Int("chunk", -1, "oracle jobs per batch process (default: 16 with the stock 2026.5.6 oracle, 5000 with -oracle56 fast, 4000 with 2026.9.6)")
	oracle56 := flag.String("oracle56", "stock", `the 2026.5.6 oracle: "stock" (../shared/oracle/oracle) or "fast" (scripts/difffuzz/oracle56/oracle: the stock harness with OpenClaw's no-config plugin cache and install-root file reads memoised; proven equal by TestFastOracleEqualsStock)`)
	timeout := flag.Duration("timeout", 20*time.Minute, "time limit of one batch process")
	withContext := flag.Bool("context", true, "also compare the context (the messages inspect counts)")
	withRepair := flag.Bool("repair", true, "also compare oc repair (rules openclaw-2026.5.6) with OpenClaw's repairSessionFileIfNeeded (-openclaw 2026.9.6: oc's import prediction with the import's sources)")
	minEqual := flag.Float64("min-equal", 0, "exit 1 when a mode's equal share (percent) is below this (CI: 100)")
	offline := flag.Bool("offline", false, "ask the oracle nothing: compare with the answers saved in -out by an earlier run")
	release := flag.String("openclaw", string(policy.Release56), "the OpenClaw release to compare with: 2026.5.6 (JSONL) or 2026.9.6 (one state dir imported by 9.6, then its database)")
	wide := flag.Bool("shapes96", false, "2026.5.6 too: make the shapes the 2026.9.6 campaigns make (BMPs, unpadded base64, images without data or mimeType, functionCall blocks); -openclaw 2026.9.6 always does")
	files := flag.String("files", "", "-openclaw 2026.9.6: compare the transcripts of this folder (*.jsonl, each the session agent:main:<file name>) instead of generated ones")
	flag.Parse()
	if *offline {
		*chunk = 0
	}
	shapes96 = *wide
	var err error
	switch policy.Release(*release) {
	case policy.Release56:
		var o oracle56Cmd
		if o, err = oracle56For(*oracle56, *shared); err != nil {
			fmt.Fprintln(os.Stderr, "difffuzz:", err)
			os.Exit(2)
		}
		if *chunk < 0 {
			*chunk = o.chunk
		}
		err = run(*n, *seed, *shared, o, *routesFlag, *out, *keep, *chunk, *timeout, *withContext, *withRepair, *minEqual)
	case policy.Release96:
		if *chunk < 0 {
			// The 9.6 harness loads OpenClaw once a batch (about 8 s) and
			// then answers a job in about 0.1 s; a sample of 320 jobs asked
			// again 16 a batch got the same answers but for Date.now()
			// stamps (docs/testing.md).
			*chunk = 4000
		}
		routes := *routesFlag
		if !flagSet("routes") {
			routes = "all"
		}
		err = run96(config96{n: *n, seed: *seed, shared: *shared, routes: routes, out: *out, keep: *keep, chunk: *chunk,
			timeout: *timeout, withContext: *withContext, withImport: *withRepair, minEqual: *minEqual, files: *files})
	default:
		fmt.Fprintf(os.Stderr, "difffuzz: -openclaw %q: want %s or %s\n", *release, policy.Release56, policy.Release96)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "difffuzz:", err)
		os.Exit(1)
	}
}

// flagSet reports whether the command line set the flag.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

type route struct{ provider, api, model string }

func parseRoutes(s string) ([]route, error) {
	var out []route
	if s == "all" {
		// Every route oc compares with the oracle: one per provider family.
		for _, d := range replay.RouteDefaults() {
			out = append(out, route{d.Provider, d.API, d.Model})
		}
		return out, nil
	}
	for _, r := range strings.Split(s, ",") {
		p := strings.SplitN(strings.TrimSpace(r), "/", 3)
		if len(p) != 3 {
			return nil, fmt.Errorf("route %q: want provider/api/model", r)
		}
		out = append(out, route{p[0], p[1], p[2]})
	}
	return out, nil
}

func run(n int, seed uint64, shared string, oracle oracle56Cmd, routesFlag, outDir, keepDir string, chunk int, timeout time.Duration, withContext, withRepair bool, minEqual float64) error {
	routes, err := parseRoutes(routesFlag)
	if err != nil {
		return err
	}
	entries, err := usableCorpus(shared)
	if err != nil {
		return err
	}
	if outDir, err = makeOutDir(outDir, "difffuzz-"); err != nil {
		return err
	}
	files, err := generateFiles(n, seed, entries, routes, outDir)
	if err != nil {
		return err
	}
	jobs, hangs := jobs56(files, routes, withContext, withRepair)
	fmt.Fprintf(os.Stderr, "difffuzz: %d transcripts in %s, %d oracle jobs (oracle %s)\n", len(files), outDir, len(jobs), oracle.script)
	answers, err := askOracle(oracle.script, oracle.env, timeout, chunk, jobs, filepath.Join(outDir, "oracle-answers.jsonl"))
	if err != nil {
		return err
	}
	cmp := &compare56{routes: routes, answers: answers, hangs: hangs, keepDir: keepDir, withContext: withContext, withRepair: withRepair,
		counts: map[string]*tally{"context": {}, "sanitize": {}, "payload": {}, "repair": {}}}
	for _, f := range files {
		if err := cmp.file(f); err != nil {
			return err
		}
	}
	return summarize(cmp.diffs, cmp.counts, []string{"context", "repair", "sanitize", "payload"}, minEqual)
}

// usableCorpus reads the entries of the real corpus, failing when it has
// too few to fuzz with.
func usableCorpus(shared string) ([]*jsjson.Object, error) {
	entries, err := corpusEntries(filepath.Join(shared, "corpus", "real"))
	if err != nil {
		return nil, err
	}
	if len(entries) < 10 {
		return nil, fmt.Errorf("only %d usable entries in the corpus", len(entries))
	}
	return entries, nil
}

// makeOutDir makes the output folder (a new temporary one named prefix…
// when outDir is "") and returns its name.
func makeOutDir(outDir, prefix string) (string, error) {
	if outDir == "" {
		return os.MkdirTemp("", prefix)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	return outDir, nil
}

// askOracle returns the oracle's answers to jobs. The answers are saved as
// they come (answersPath, chunk jobs a batch) and reused by a later run on
// the same folder: a long run can stop and go on. chunk 0 asks nothing.
func askOracle(script string, env []string, timeout time.Duration, chunk int, jobs []oracletest.Job, answersPath string) (map[string]oracletest.Result, error) {
	answers, err := loadAnswers(answersPath)
	if err != nil {
		return nil, err
	}
	var todo []oracletest.Job
	for _, j := range jobs {
		if _, ok := answers[j.ID]; !ok {
			todo = append(todo, j)
		}
	}
	for start := 0; chunk > 0 && start < len(todo); start += chunk {
		end := min(start+chunk, len(todo))
		res, err := batch(script, todo[start:end], env, timeout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "difffuzz: jobs %d-%d: %v (counted as not answered)\n", start, end, err)
		}
		if err := saveAnswers(answersPath, res); err != nil {
			return nil, err
		}
		for k, v := range res {
			answers[k] = v
		}
		fmt.Fprintf(os.Stderr, "difffuzz: %d/%d oracle answers\n", len(answers), len(jobs))
	}
	return answers, nil
}

// compare56 compares oc with the 2026.5.6 oracle's answers, file by file,
// counting each mode and collecting the DIFF lines.
type compare56 struct {
	routes                  []route
	answers                 map[string]oracletest.Result
	hangs                   map[string]bool
	keepDir                 string
	withContext, withRepair bool
	counts                  map[string]*tally
	diffs                   []string
}

func (cmp *compare56) file(f string) error {
	if cmp.withContext && !cmp.hangs[f] {
		cmp.context(f)
	}
	if cmp.withRepair {
		if err := cmp.repair(f); err != nil {
			return err
		}
	}
	if cmp.hangs[f] {
		cmp.hang(f)
		return nil
	}
	for _, r := range cmp.routes {
		limited, payload, ocErr := ocReplay(f, r)
		keep := func(id string, a oracletest.Result) error {
			if cmp.keepDir == "" {
				return nil
			}
			return keepCase(cmp.keepDir, f, id, a)
		}
		d, err := compareStages(filepath.Base(f), r, limited, payload, ocErr, cmp.answers, cmp.counts, oracletest.Difference, keep)
		if err != nil {
			return err
		}
		cmp.diffs = append(cmp.diffs, d...)
	}
	return nil
}

func (cmp *compare56) context(f string) {
	id := filepath.Base(f) + "|context"
	c := cmp.counts["context"]
	a, ok := cmp.answers[id]
	if !ok {
		c.unanswered++
		return
	}
	c.compared++
	if d := contextDifference(f, a); d == "" {
		c.equal++
	} else {
		cmp.diffs = append(cmp.diffs, id+": "+d)
	}
}

func (cmp *compare56) repair(f string) error {
	id := filepath.Base(f) + "|repair"
	c := cmp.counts["repair"]
	a, ok := cmp.answers[id]
	if !ok {
		c.unanswered++
		return nil
	}
	c.compared++
	d := repairDifference(f, a)
	if d == "" {
		c.equal++
		return nil
	}
	cmp.diffs = append(cmp.diffs, id+": "+d)
	if cmp.keepDir != "" {
		return keepCase(cmp.keepDir, f, id, a)
	}
	return nil
}

// hang checks that oc refuses as OpenClaw fails on a transcript it hangs
// on: no context, no payload.
func (cmp *compare56) hang(f string) {
	_, _, ocErr := ocReplay(f, cmp.routes[0])
	var oe *replay.OpenClawFailure
	for _, mode := range []string{"context", "sanitize", "payload"} {
		c := cmp.counts[mode]
		c.hangs++
		if !errors.As(ocErr, &oe) {
			c.compared++
			cmp.diffs = append(cmp.diffs, filepath.Base(f)+"|"+mode+": OpenClaw hangs on a parentId cycle, oc answers")
		}
	}
}

// generateFiles writes n transcripts generated from seed into dir
// (fz-0000.jsonl, ...; a file that already holds the text is left alone)
// and returns their paths.
func generateFiles(n int, seed uint64, entries []*jsjson.Object, routes []route, dir string) ([]string, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var files []string
	for i := 0; i < n; i++ {
		text, err := generate(rng, entries, routes, fmt.Sprintf("fz-%04d", i))
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, fmt.Sprintf("fz-%04d.jsonl", i))
		if old, err := os.ReadFile(p); err != nil || !bytes.Equal(old, text) {
			if err := os.WriteFile(p, text, 0o644); err != nil {
				return nil, fmt.Errorf("writing %s: %w", p, err)
			}
		}
		files = append(files, p)
	}
	return files, nil
}

// jobs56 is the 2026.5.6 oracle jobs for the generated files on the
// routes, and the files whose parentId links make a cycle (no context,
// sanitize or payload jobs for them).
func jobs56(files []string, routes []route, withContext, withRepair bool) ([]oracletest.Job, map[string]bool) {
	var jobs []oracletest.Job
	// OpenClaw 2026.5.6's buildSessionContext never returns on a cycle of
	// parentId links (duplicate ids make them): such a file would hang its
	// whole batch. Its context, sanitize and payload jobs are not sent; oc
	// must say that OpenClaw fails there (counted as "oracle hangs").
	hangs := map[string]bool{}
	for _, f := range files {
		if ctx, err := transcript.LoadContext(f, nil); err == nil && ctx.CycleLine > 0 {
			hangs[f] = true
		}
	}
	for _, f := range files {
		if withRepair {
			jobs = append(jobs, oracletest.Job{ID: filepath.Base(f) + "|repair", Mode: "repair", Args: []string{f}})
		}
		if hangs[f] {
			continue
		}
		if withContext {
			jobs = append(jobs, oracletest.Job{ID: filepath.Base(f) + "|context", Mode: "context", Args: []string{f}})
		}
		for _, r := range routes {
			for _, mode := range []string{"sanitize", "payload"} {
				jobs = append(jobs, oracletest.Job{ID: strings.Join([]string{filepath.Base(f), mode, r.provider, r.api, r.model}, "|"),
					Mode: mode, Args: []string{f, r.provider, r.api, r.model}})
			}
		}
	}
	return jobs, hangs
}

// compareStages compares oc's sanitize and payload answers on one route
// (limited, payload; nil where oc fails with ocErr) with the oracle's
// answers for the transcript name, counts each into counts and returns a
// DIFF line for each that differs (keep saves such a case).
func compareStages(name string, r route, limited, payload []byte, ocErr error, answers map[string]oracletest.Result,
	counts map[string]*tally, diff func(got, want []byte) string, keep func(id string, a oracletest.Result) error) ([]string, error) {
	var diffs []string
	for _, mode := range []string{"sanitize", "payload"} {
		id := strings.Join([]string{name, mode, r.provider, r.api, r.model}, "|")
		c := counts[mode]
		a, ok := answers[id]
		if !ok {
			c.unanswered++
			continue
		}
		c.compared++
		d, bothFail := stageDifference(mode, limited, payload, ocErr, a, diff)
		if d == "" {
			c.equal++
			if bothFail {
				c.bothFail++
			}
			continue
		}
		diffs = append(diffs, id+": "+d)
		if err := keep(id, a); err != nil {
			return diffs, err
		}
	}
	return diffs, nil
}

// tally counts one mode's comparisons.
type tally struct{ compared, equal, bothFail, unanswered, hangs int }

// summarize prints the DIFF lines and the summary table (one row a mode, in
// order) and fails when a mode's equal share is below minEqual.
func summarize(diffs []string, counts map[string]*tally, order []string, minEqual float64) error {
	sort.Strings(diffs)
	for _, d := range diffs {
		fmt.Println("DIFF", d)
	}
	var short []string
	for _, mode := range order {
		c := counts[mode]
		if c.compared+c.unanswered+c.hangs == 0 {
			continue
		}
		pct := 0.0
		if c.compared > 0 {
			pct = 100 * float64(c.equal) / float64(c.compared)
		}
		fmt.Printf("%-9s %5d compared, %5d equal (%.1f%%; %d where both fail), %d where OpenClaw hangs and oc says so, %d not answered by the oracle\n",
			mode, c.compared, c.equal, pct, c.bothFail, c.hangs, c.unanswered)
		if minEqual > 0 && (c.compared == 0 || pct < minEqual) {
			short = append(short, fmt.Sprintf("%s %.1f%%", mode, pct))
		}
	}
	if len(short) > 0 {
		return fmt.Errorf("below -min-equal %.1f%%: %s", minEqual, strings.Join(short, ", "))
	}
	return nil
}

func loadAnswers(path string) (map[string]oracletest.Result, error) {
	out := map[string]oracletest.Result{}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		var r oracletest.Result
		if json.Unmarshal(l, &r) == nil && r.ID != "" {
			out[r.ID] = r
		}
	}
	return out, nil
}

func saveAnswers(path string, res map[string]oracletest.Result) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for _, r := range res {
		line, err := json.Marshal(r)
		if err != nil {
			f.Close()
			return err
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// contextDifference compares oc's context (the active branch's messages,
// which inspect counts) with the oracle's, or says who fails.
func contextDifference(path string, a oracletest.Result) string {
	ctx, err := transcript.LoadContext(path, nil)
	if err == nil {
		err = replay.ContextError(ctx)
	}
	switch {
	case !a.OK && err != nil:
		return ""
	case !a.OK:
		return "OpenClaw fails (" + firstLine(a.Error) + "), oc answers"
	case err != nil:
		return fmt.Sprintf("oc fails (%v), OpenClaw answers", err)
	}
	var want struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(a.Out, &want); err != nil {
		return "oracle answer: " + err.Error()
	}
	got := []byte{'['}
	for i, m := range ctx.Messages {
		if i > 0 {
			got = append(got, ',')
		}
		got = append(got, m...)
	}
	return oracletest.Difference(append(got, ']'), want.Messages)
}

// stageDifference compares oc's answer at one stage ("sanitize": the
// limited list, "payload": the wire body; nil where oc fails with ocErr)
// with the oracle's answer a, using diff for the JSON comparison. It is ""
// when they agree, bothFail set when both fail.
func stageDifference(mode string, limited, payload []byte, ocErr error, a oracletest.Result, diff func(got, want []byte) string) (d string, bothFail bool) {
	got, want := payload, a.Out
	if mode == "sanitize" {
		got = limited
		var s struct {
			Limited json.RawMessage `json:"limited"`
		}
		if a.OK {
			_ = json.Unmarshal(a.Out, &s)
		}
		want = s.Limited
	}
	switch {
	case !a.OK && (got == nil || ocErr != nil && mode == "payload"):
		return "", true
	case !a.OK:
		return "OpenClaw fails (" + firstLine(a.Error) + "), oc answers", false
	case got == nil:
		return fmt.Sprintf("oc fails (%v), OpenClaw answers", ocErr), false
	}
	return diff(got, want), false
}

// repairDifference compares oc's repair under the rules openclaw-2026.5.6
// with OpenClaw's repairSessionFileIfNeeded on the same file: the same
// decision, the same number of dropped lines, and the same entries as
// JSON.parse reads them.
func repairDifference(path string, a oracletest.Result) string {
	if !a.OK {
		return "OpenClaw's repair fails (" + firstLine(a.Error) + ")"
	}
	var want struct {
		Result struct {
			Repaired     bool   `json:"repaired"`
			DroppedLines int    `json:"droppedLines"`
			Reason       string `json:"reason"`
		} `json:"result"`
		Output string `json:"output"`
	}
	if err := json.Unmarshal(a.Out, &want); err != nil {
		return "oracle answer: " + err.Error()
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	p, err := repair.PlanReader(bytes.NewReader(data), filepath.Base(path), repair.Options{Rules: repair.RuleSetOpenClaw})
	if err != nil {
		return fmt.Sprintf("oc fails (%v), OpenClaw answers", err)
	}
	if p.Changed() != want.Result.Repaired {
		return fmt.Sprintf("oc changes the file: %v, OpenClaw repairs it: %v (its reason %q, oc skipped %q)", p.Changed(), want.Result.Repaired, want.Result.Reason, p.Skipped)
	}
	if got := p.Counts[repair.RuleMalformedLine]; got != want.Result.DroppedLines {
		return fmt.Sprintf("oc drops %d lines, OpenClaw %d", got, want.Result.DroppedLines)
	}
	out := data
	if p.Changed() {
		var buf, quarantine bytes.Buffer
		if err := p.Render(bytes.NewReader(data), &buf, &quarantine); err != nil {
			return fmt.Sprintf("oc fails to write (%v)", err)
		}
		out = buf.Bytes()
	}
	got, exp := jsEntries(out), jsEntries([]byte(want.Output))
	if len(got) != len(exp) {
		return fmt.Sprintf("oc keeps %d entries, OpenClaw %d", len(got), len(exp))
	}
	for i := range got {
		if got[i] != exp[i] {
			return fmt.Sprintf("entry %d differs:\n oc:     %.200s\n oracle: %.200s", i, got[i], exp[i])
		}
	}
	return ""
}

// jsEntries is each line of a JSONL text that JSON.parse reads, written
// back by JSON.stringify (blank and unparsable lines left out).
func jsEntries(b []byte) []string {
	var out []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if jsonl.IsBlank(l) {
			continue
		}
		v, err := jsjson.Parse(l)
		if err != nil {
			continue
		}
		text, err := jsjson.Marshal(v)
		if err != nil {
			continue
		}
		out = append(out, string(text))
	}
	return out
}

// ocReplay is oc's replay of one file: the limited list and the wire body
// as JSON text (nil where oc fails).
func ocReplay(path string, r route) (limited, payload []byte, err error) {
	ctx, err := transcript.LoadContext(path, nil)
	if err != nil {
		return nil, nil, err
	}
	if err := replay.ContextError(ctx); err != nil {
		return nil, nil, err
	}
	msgs, err := replay.DecodeMessages(ctx.Messages, false)
	if err != nil {
		return nil, nil, err
	}
	res, err := replay.Sanitize(msgs, replay.Options{Provider: r.provider, API: r.api, Model: r.model,
		Now: func() int64 { return oracletest.SyntheticTime }})
	if err != nil {
		return nil, nil, err
	}
	if limited, err = replay.AppendMessages(nil, res.Limited); err != nil {
		return nil, nil, err
	}
	p, err := replay.BuildPayload(replay.PayloadInput{Provider: r.provider, API: r.api, Model: r.model, Messages: res.Limited})
	if err != nil {
		return limited, nil, err
	}
	payload, err = p.AppendJSON(nil)
	return limited, payload, err
}

// batch runs one oracle batch process.
// env is added to the process's environment.
func batch(script string, jobs []oracletest.Job, env []string, timeout time.Duration) (map[string]oracletest.Result, error) {
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, j := range jobs {
		if err := enc.Encode(j); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := oracletest.Command(ctx, script, "batch")
	if env != nil {
		cmd.Env = append(cmd.Environ(), env...)
	}
	cmd.Stdin = &in
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	runErr := cmd.Run()
	out := map[string]oracletest.Result{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 512<<20)
	for sc.Scan() {
		var r oracletest.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err == nil {
			out[r.ID] = r
		}
	}
	return out, runErr
}

func keepCase(dir, file, id string, a oracletest.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(file)), b, 0o644); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "answers.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	line, _ := json.Marshal(struct {
		ID    []string        `json:"id"`
		OK    bool            `json:"ok"`
		Out   json.RawMessage `json:"out,omitempty"`
		Error string          `json:"error,omitempty"`
	}{strings.Split(id, "|"), a.OK, a.Out, a.Error})
	_, err = f.Write(append(line, '\n'))
	return err
}

// corpusEntries reads the entries of the real transcripts other than the
// header (lines under 64 KiB, to keep the oracle quick): messages, custom
// messages, compactions, model and thinking-level changes, custom entries.
func corpusEntries(dir string) ([]*jsjson.Object, error) {
	names, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*jsjson.Object
	for _, e := range names {
		n := e.Name()
		if !strings.Contains(n, "__sessions__") || !strings.Contains(n, ".jsonl") || strings.HasSuffix(n, ".lock") || strings.Contains(n, ".trajectory") {
			continue
		}
		f, err := os.Open(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if len(sc.Bytes()) > 64<<10 {
				continue
			}
			v, err := jsjson.Parse(sc.Bytes())
			if err != nil {
				continue
			}
			o, ok := v.(*jsjson.Object)
			if !ok {
				continue
			}
			t, _ := o.Get("type")
			if t == "session" || t == nil {
				continue
			}
			if m, _ := o.Get("message"); t == "message" && m == nil {
				continue
			}
			out = append(out, o)
		}
		f.Close()
	}
	return out, nil
}

// generate builds one transcript: a header and 2-12 real entries chained
// by parentId (sometimes branching back to an earlier entry), each mutated
// with some probability, and now and then a damaged line (cut, glued onto
// the next, garbage bytes, NULs, CRLF, blank).
func generate(rng *rand.Rand, entries []*jsjson.Object, routes []route, sessionID string) ([]byte, error) {
	var b []byte
	if rng.IntN(20) == 0 {
		b = append(b, []string{"\u00a0", "\ufeff\ufeff", "\v", "\u2028", "\u3000"}[rng.IntN(5)]...)
	}
	header := &jsjson.Object{}
	header.Set("type", "session")
	header.Set("version", float64(3))
	header.Set("id", sessionID)
	header.Set("timestamp", "2026-05-12T06:10:20.699Z")
	header.Set("cwd", "/w")
	b, _ = jsjson.Append(b, header)
	b = append(b, '\n')
	k := 2 + rng.IntN(11)
	parent := any(nil)
	var ids []string
	for j := 0; j < k; j++ {
		src := entries[rng.IntN(len(entries))]
		text, _ := jsjson.Marshal(src)
		v, _ := jsjson.Parse(text) // a deep copy
		e := v.(*jsjson.Object)
		id := fmt.Sprintf("e%d", j)
		if len(ids) > 0 && rng.IntN(40) == 0 {
			id = ids[rng.IntN(len(ids))] // a duplicate id
		}
		e.Set("id", id)
		if len(ids) > 1 && rng.IntN(10) == 0 {
			parent = ids[rng.IntN(len(ids)-1)] // a branch from an earlier entry
		}
		e.Set("parentId", parent)
		if t, _ := e.Get("type"); t == "compaction" && len(ids) > 0 {
			// A compaction that keeps from anywhere, or from an id that is not there.
			if rng.IntN(4) == 0 {
				e.Set("firstKeptEntryId", "gone")
			} else {
				e.Set("firstKeptEntryId", ids[rng.IntN(len(ids))])
			}
		}
		parent = id
		ids = append(ids, id)
		if m, ok := e.Get("message"); ok {
			if mo, ok := m.(*jsjson.Object); ok {
				if role, _ := mo.Get("role"); role == vocab.RoleToolResult && rng.IntN(10) == 0 {
					continue // an orphaned call
				}
				mutate(rng, mo, routes)
			} else if rng.IntN(2) == 0 {
				e.Set("message", "not an object")
			}
		}
		line, err := jsjson.Append(nil, e)
		if err != nil {
			return nil, err
		}
		b = append(b, damage(rng, line)...)
	}
	return b, nil
}

// damage returns the line with its newline, damaged one time in 25 the ways
// crashes and concurrent writers damage transcripts.
func damage(rng *rand.Rand, line []byte) []byte {
	out := append([]byte(nil), line...)
	if rng.IntN(25) != 0 {
		return append(out, '\n')
	}
	switch rng.IntN(6) {
	case 0: // cut mid-line (a torn write), the next entry on its own line
		return append(out[:rng.IntN(len(out))], '\n')
	case 1: // glued onto the next entry (a lost newline)
		return out
	case 2: // garbage bytes before the entry
		return append(append([]byte("\x00\xff\xfe garbage"), out...), '\n')
	case 3: // a line of NULs (a preallocated, never written block)
		return append(append(out, '\n'), append(make([]byte, 1+rng.IntN(64)), '\n')...)
	case 4:
		return append(out, '\r', '\n')
	default:
		return append(out, '\n', ' ', '\n')
	}
}

// mutate changes a message the ways generated transcripts found
// differences: model switches, odd tool-call ids, lone surrogates and line
// separators in text, numbers JavaScript spells otherwise, error turns.
func mutate(rng *rand.Rand, m *jsjson.Object, routes []route) {
	role, _ := m.Get("role")
	if role == "assistant" && rng.IntN(5) == 0 {
		r := routes[rng.IntN(len(routes))]
		m.Set("provider", r.provider)
		m.Set("api", r.api)
		m.Set("model", r.model)
	}
	if role == "assistant" && rng.IntN(20) == 0 {
		m.Set("stopReason", []string{"error", "aborted"}[rng.IntN(2)])
	}
	content, _ := m.Get("content")
	blocks, _ := content.([]any)
	switch {
	case role == "assistant" && blocks != nil && rng.IntN(8) == 0:
		th := &jsjson.Object{}
		th.Set("type", "thinking")
		th.Set("thinking", "let me think")
		if rng.IntN(2) == 0 {
			th.Set("thinkingSignature", []string{"sig-abc", "", "{\"id\":\"rs_1\",\"type\":\"reasoning\"}"}[rng.IntN(3)])
		}
		blocks = append([]any{th}, blocks...)
		m.Set("content", blocks)
	case (role == "user" || role == vocab.RoleToolResult) && blocks != nil && rng.IntN(10) == 0:
		img := &jsjson.Object{}
		img.Set("type", "image")
		data, mime := fuzzImage(rng)
		img.Set("data", data)
		img.Set("mimeType", mime)
		switch widen96(rng, 12) {
		case 0: // 2026.9.6: "omitted image payload: missing data or mimeType"
			img.Delete("mimeType")
		case 1:
			img.Delete("data")
		case 2: // 9.6's Anthropic transport sends the type it sniffs
			img.Set("mimeType", strings.ToUpper(mime))
		}
		blocks = append(blocks, img)
		m.Set("content", blocks)
	}
	for _, bl := range blocks {
		bo, ok := bl.(*jsjson.Object)
		if !ok {
			continue
		}
		switch t, _ := bo.Get("type"); t {
		case "text":
			if s, ok := bo.Get("text"); ok && rng.IntN(8) == 0 {
				str, _ := s.(string)
				extra := []string{string(jsjson.AppendUnit(nil, 0xD83D)), string(jsjson.AppendUnit(nil, 0xDFFF)), "\u2028", "\u00a0"}[rng.IntN(4)]
				bo.Set("text", str+extra)
			}
		case vocab.BlockToolCall:
			if widen96(rng, 30) == 0 {
				// 9.6's transformAssistant takes any block that is not
				// text or thinking for a tool call (its id normalised)
				bo.Set("type", "functionCall")
			}
			if rng.IntN(8) == 0 {
				bo.Set("id", []string{"|fc_only", "  padded  ", "call_1|fc_2", "functions.read:0", "fc_1", "call_dup", "call_dup"}[rng.IntN(7)])
			}
			if args, ok := bo.Get("arguments"); ok && rng.IntN(6) == 0 {
				if ao, ok := args.(*jsjson.Object); ok {
					ao.Set("n", json.RawMessage([]string{"100.0", "-0.0", "1e-07", "12345678901234567890", "2.50"}[rng.IntN(5)]))
				}
			}
		}
	}
}

// shapes96 makes the generator add the shapes 2026.9.6 handles otherwise
// (set by -openclaw 2026.9.6): BMPs under another type, unpadded base64,
// image blocks without data or mimeType or with an upper-case type, tool
// calls of another block type. 2026.5.6's campaigns keep their transcripts
// (the same seed makes the same files).
var shapes96 bool

// widen96 is rng.IntN(n) with shapes96, else -1 (no draw).
func widen96(rng *rand.Rand, n int) int {
	if !shapes96 {
		return -1
	}
	return rng.IntN(n)
}

// fuzzImage is a base64 image and its declared type: small and valid,
// wider than the default 1200 px limit, declared as another type, or not
// base64 at all.
func fuzzImage(rng *rand.Rand) (data, mime string) {
	enc := func(w, h int) string {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = byte(i * 7)
		}
		var b bytes.Buffer
		_ = png.Encode(&b, img)
		return base64.StdEncoding.EncodeToString(b.Bytes())
	}
	n := 4 // 2026.5.6's campaigns: the shapes they were run with
	if shapes96 {
		n = 6
	}
	switch k := rng.IntN(n); {
	case k == 3 && n == 4:
		return "not base64 !", "image/png"
	case k == 0:
		return enc(2, 2), "image/png"
	case k == 1:
		return enc(1300, 3), "image/png"
	case k == 2:
		return enc(3, 2), "image/jpeg"
	case k == 3:
		// A small BMP labelled as another type: 2026.9.6's image library
		// reads its header (kept as it is), its Anthropic transport sniffs
		// the bytes and sends a PNG. (A BMP over the limits is not made:
		// 9.6 then resizes it through the machine's ImageMagick.)
		img := image.NewRGBA(image.Rect(0, 0, 3, 2))
		for i := range img.Pix {
			img.Pix[i] = byte(i * 7)
		}
		var b bytes.Buffer
		_ = bmp.Encode(&b, img)
		return base64.StdEncoding.EncodeToString(b.Bytes()), []string{"image/png", "image/jpeg"}[rng.IntN(2)]
	case k == 4:
		// unpadded base64: 9.6 pads it (then its image library finds no
		// dimensions), 2026.5.6 refuses it
		return "iVBORw0KGgo", "image/png"
	default:
		return "not base64 !", "image/png"
	}
}
