package main

// The 2026.9.6 half of the fuzzer (-openclaw 2026.9.6). 9.6 has no JSONL
// reader: the generated transcripts go into ONE legacy JSONL state dir, the
// oracle's `import` (9.6's own upgrade, doctor --fix) runs once on it, and
// both sides then read the database it wrote: the oracle with `batch` jobs
// (context, sanitize, payload: DB SESSIONKEY PROVIDER API MODEL), oc with its
// store layer and the 9.6 pipeline. oc's prediction of the import
// (pkg/upgrade, what doctor says per file) is compared with the import's
// own `sources`.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/internal/oracletest"
	"github.com/openclaw-tools/oc/pkg/policy"
	"github.com/openclaw-tools/oc/pkg/replay"
	"github.com/openclaw-tools/oc/pkg/replay/jsvalue"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/context96"
	"github.com/openclaw-tools/oc/pkg/transcript"
	"github.com/openclaw-tools/oc/pkg/upgrade"
)

type config96 struct {
	n                       int
	seed                    uint64
	shared, routes          string
	out, keep               string
	chunk                   int
	timeout                 time.Duration
	withContext, withImport bool
	minEqual                float64
	files                   string // -files: compare these transcripts (a folder of *.jsonl) instead of generated ones
}

// agent96 is the agent every generated session belongs to.
const agent96 = "main"

// session96 is one generated transcript of the state dir.
type session96 struct {
	Name string // fz-NNNN
	Key  string // agent:main:fz-NNNN
	ID   string // the session id (a generated-looking UUID, the file's stem)
	File string // agents/main/sessions/<id>.jsonl, relative to the state dir
}

func sessionOf96(i int) session96 {
	id := fmt.Sprintf("f0000000-0000-4000-8000-%012d", i)
	return session96{Name: fmt.Sprintf("fz-%04d", i), Key: fmt.Sprintf("agent:%s:fz-%04d", agent96, i), ID: id,
		File: filepath.ToSlash(filepath.Join("agents", agent96, "sessions", id+".jsonl"))}
}

// sessionIndexEntry is one sessions.json value, as 2026.5.6 wrote them (the
// 9.6 oracle's fixtures/damaged has the same shape).
type sessionIndexEntry struct {
	SessionID   string `json:"sessionId"`
	UpdatedAt   int64  `json:"updatedAt"`
	SessionFile string `json:"sessionFile"`
}

// writeStateDir96 writes a legacy JSONL state dir: each transcript at
// agents/main/sessions/<id>.jsonl and a sessions.json naming it by its key.
// A file whose bytes are already there is not rewritten.
func writeStateDir96(dir string, sessions []session96, texts [][]byte) error {
	if len(sessions) != len(texts) {
		return fmt.Errorf("%d sessions, %d transcripts", len(sessions), len(texts))
	}
	index := map[string]sessionIndexEntry{}
	for i, s := range sessions {
		p := filepath.Join(dir, filepath.FromSlash(s.File))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if old, err := os.ReadFile(p); err != nil || !bytes.Equal(old, texts[i]) {
			if err := os.WriteFile(p, texts[i], 0o644); err != nil {
				return err
			}
		}
		index[s.Key] = sessionIndexEntry{SessionID: s.ID, UpdatedAt: 1770000000000 + int64(i), SessionFile: filepath.Base(p)}
	}
	b, err := json.MarshalIndent(index, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "agents", agent96, "sessions", "sessions.json"), append(b, '\n'), 0o644)
}

// routes96 reads the provider triples 9.6 builds (providers.txt of the
// corpus answers) for -routes all.
func routes96(shared, flag string) ([]route, error) {
	if flag != "all" {
		return parseRoutes(flag)
	}
	path := filepath.Join(shared, "corpus", "oracle-2026.9.6", "providers.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []route
	for i, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want PROVIDER API MODEL", path, i+1)
		}
		out = append(out, route{f[0], f[1], f[2]})
	}
	return out, nil
}

// importSource is the part of one `sources` entry of the oracle's import
// report that is compared.
type importSource struct {
	File           string `json:"file"`
	Status         string `json:"status"`
	ImportedEvents int    `json:"importedEvents"`
	LeftInPlace    bool   `json:"leftInPlace"`
	NotImported    []struct {
		Line int64 `json:"line"`
	} `json:"validLinesNotImported"`
	ImportedAs *struct {
		SessionID   string   `json:"sessionId"`
		SessionKeys []string `json:"sessionKeys"`
	} `json:"importedAs"`
}

func (s importSource) notImported() []int64 {
	out := make([]int64, 0, len(s.NotImported))
	for _, l := range s.NotImported {
		out = append(out, l.Line)
	}
	return out
}

func run96(cfg config96) error {
	routes, err := routes96(cfg.shared, cfg.routes)
	if err != nil {
		return err
	}
	entries, err := usableCorpus(cfg.shared)
	if err != nil {
		return err
	}
	outDir, err := makeOutDir(cfg.out, "difffuzz96-")
	if err != nil {
		return err
	}
	if outDir, err = filepath.Abs(outDir); err != nil {
		return err
	}
	var sessions []session96
	var texts [][]byte
	if cfg.files != "" {
		sessions, texts, err = readFiles96(cfg.files)
	} else {
		sessions, texts, err = generate96(cfg, entries, routes)
	}
	if err != nil {
		return err
	}
	f := &fuzz96{cfg: cfg, routes: routes, outDir: outDir,
		stateDir: filepath.Join(outDir, "state"), importDir: filepath.Join(outDir, "imported"),
		script: filepath.Join(cfg.shared, "oracle-2026.9.6", "oracle"), env: []string{"TZ=UTC", "ORACLE_TZ=UTC"},
		counts: map[string]*tally{"import": {}, "context": {}, "sanitize": {}, "payload": {}, "payload-o": {}}}
	importJSON, refused, err := f.importState(sessions, texts)
	if err != nil {
		return err
	}
	if sessions, err = f.takeOutRefused(sessions, refused); err != nil {
		return err
	}
	sources, rawSources, err := parseImport(importJSON, filepath.Join(outDir, "import.json"))
	if err != nil {
		return err
	}
	db := filepath.Join(f.importDir, "agents", agent96, "agent", store.AgentDBName)
	jobs := jobs96(sessions, routes, db, cfg.withContext)
	fmt.Fprintf(os.Stderr, "difffuzz: %d transcripts in %s, %d oracle jobs on %s\n", len(sessions), f.stateDir, len(jobs), db)
	if f.answers, err = askOracle(f.script, f.env, cfg.timeout, cfg.chunk, jobs, filepath.Join(outDir, "oracle-answers.jsonl")); err != nil {
		return err
	}
	if cfg.withImport {
		if err := f.compareImport(sessions, sources, rawSources); err != nil {
			return err
		}
	}
	st, err := store.Open(f.importDir, store.Options{})
	if err != nil {
		return err
	}
	exportDir := filepath.Join(outDir, "oc-export")
	if err := os.MkdirAll(exportDir, 0o755); err != nil {
		return err
	}
	for _, s := range sessions {
		if err := f.compareSession(st, s, exportDir); err != nil {
			return err
		}
	}
	return summarize(f.diffs, f.counts, []string{"import", "context", "sanitize", "payload", "payload-o"}, cfg.minEqual)
}

// generate96 generates the run's sessions and their transcripts.
func generate96(cfg config96, entries []*jsjson.Object, routes []route) ([]session96, [][]byte, error) {
	shapes96 = true
	rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))
	sessions := make([]session96, cfg.n)
	texts := make([][]byte, cfg.n)
	for i := range sessions {
		sessions[i] = sessionOf96(i)
		var err error
		if texts[i], err = generate(rng, entries, routes, sessions[i].ID); err != nil {
			return nil, nil, err
		}
	}
	return sessions, texts, nil
}

// readFiles96 reads the transcripts of -files: every *.jsonl of dir, in
// name order, each the session agent:main:<file name without .jsonl> (as the reproducers of
// ../shared/corpus/fuzz-repro-2026.9.6 were checked).
func readFiles96(dir string) ([]session96, [][]byte, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	var sessions []session96
	var texts [][]byte
	for i, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, nil, err
		}
		s := sessionOf96(i)
		s.Name = filepath.Base(n)
		// not "….jsonl": a session argument ending so is read as a file
		s.Key = "agent:" + agent96 + ":" + strings.TrimSuffix(s.Name, ".jsonl")
		sessions, texts = append(sessions, s), append(texts, b)
	}
	if len(sessions) == 0 {
		return nil, nil, fmt.Errorf("-files %s: no *.jsonl", dir)
	}
	return sessions, texts, nil
}

// fuzz96 is one run against the 2026.9.6 oracle: where it works, the
// oracle's answers, and the counts and DIFF lines so far.
type fuzz96 struct {
	cfg                         config96
	routes                      []route
	outDir, stateDir, importDir string
	script                      string
	env                         []string
	answers                     map[string]oracletest.Result
	counts                      map[string]*tally
	diffs                       []string
}

// importState writes the state dir and imports it once, keeping the
// import with its answers: a later run on the same -out (same -n and
// -seed) reuses it. It returns the import's JSON and the transcripts over
// which OpenClaw refused the migration.
func (f *fuzz96) importState(sessions []session96, texts [][]byte) ([]byte, []refusal, error) {
	importPath := filepath.Join(f.outDir, "import.json")
	refusedPath := filepath.Join(f.outDir, "refused.json")
	importJSON, err := os.ReadFile(importPath)
	var refused []refusal
	if b, rerr := os.ReadFile(refusedPath); rerr == nil {
		if err := json.Unmarshal(b, &refused); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", refusedPath, err)
		}
	}
	// The state dir holds what was imported: without the transcripts an
	// earlier run took out.
	var write []session96
	var writeTexts [][]byte
	for i, s := range sessions {
		if findRefusal(refused, s.Name) == nil {
			write, writeTexts = append(write, s), append(writeTexts, texts[i])
		}
	}
	if err := writeStateDir96(f.stateDir, write, writeTexts); err != nil {
		return nil, nil, err
	}
	if err != nil && f.cfg.chunk > 0 {
		if importJSON, refused, err = importOnce(f.script, f.stateDir, f.importDir, sessions, texts, f.env, f.cfg.timeout); err != nil {
			return nil, nil, err
		}
		b, _ := json.Marshal(refused)
		if err := os.WriteFile(refusedPath, b, 0o644); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(importPath, importJSON, 0o644); err != nil {
			return nil, nil, err
		}
	} else if err != nil {
		return nil, nil, fmt.Errorf("-offline: %w", err)
	}
	return importJSON, refused, nil
}

// takeOutRefused returns the sessions the import took in. Transcripts over
// which OpenClaw's doctor --fix refused the whole migration were taken out
// of the state dir (see importOnce): equal when oc predicts the refusal too.
func (f *fuzz96) takeOutRefused(sessions []session96, refused []refusal) ([]session96, error) {
	out := sessions[:0:0]
	for _, s := range sessions {
		r := findRefusal(refused, s.Name)
		if r == nil {
			out = append(out, s)
			continue
		}
		f.counts["import"].compared++
		// oc predicts the refusal when it finds an entry id repeated with
		// other content (upgrade.FileResult.Conflict: doctor's upgrade-refused).
		if res, err := upgrade.PredictFile(filepath.Join(f.outDir, "refused", filepath.Base(s.File)), s.ID); err == nil && res.Conflict != nil {
			f.counts["import"].equal++
			continue
		}
		f.diffs = append(f.diffs, fmt.Sprintf("%s|import: OpenClaw's doctor --fix refuses the whole migration over this transcript (%s); oc predicts %s",
			s.Name, r.Issue, r.Predicted))
		if f.cfg.keep != "" {
			if err := keepCase(f.cfg.keep, filepath.Join(f.outDir, "refused", filepath.Base(s.File)), filepath.Base(s.File)+"|import",
				oracletest.Result{ID: s.Name + "|import", Error: r.Issue}); err != nil {
				return nil, err
			}
		}
	}
	if len(refused) > 0 {
		fmt.Fprintf(os.Stderr, "difffuzz: %d transcripts taken out: OpenClaw 2026.9.6 refuses the migration over them (DIFF |import lines where oc does not predict it)\n", len(refused))
	}
	return out, nil
}

// parseImport reads the import's sources, each also as its raw JSON by file.
func parseImport(importJSON []byte, importPath string) ([]importSource, map[string]json.RawMessage, error) {
	var imp struct {
		Sources []importSource `json:"sources"`
	}
	if err := json.Unmarshal(importJSON, &imp); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", importPath, err)
	}
	var raw struct {
		Sources []json.RawMessage `json:"sources"`
	}
	_ = json.Unmarshal(importJSON, &raw)
	rawSources := map[string]json.RawMessage{}
	for i, src := range imp.Sources {
		if i < len(raw.Sources) {
			rawSources[src.File] = raw.Sources[i]
		}
	}
	return imp.Sources, rawSources, nil
}

// jobs96 are the oracle jobs on the imported database db.
func jobs96(sessions []session96, routes []route, db string, withContext bool) []oracletest.Job {
	var jobs []oracletest.Job
	for _, s := range sessions {
		if withContext {
			jobs = append(jobs, oracletest.Job{ID: s.Name + "|context", Mode: "context", Args: []string{db, s.Key}})
		}
		for _, r := range routes {
			for _, mode := range []string{"sanitize", "payload"} {
				jobs = append(jobs, oracletest.Job{ID: strings.Join([]string{s.Name, mode, r.provider, r.api, r.model}, "|"),
					Mode: mode, Args: []string{db, s.Key, r.provider, r.api, r.model}})
			}
		}
	}
	return jobs
}

// keep saves a differing case of session s under -keep.
func (f *fuzz96) keep(s session96, id string, a oracletest.Result) error {
	if f.cfg.keep == "" {
		return nil
	}
	// Named as difffuzz names kept 5.6 cases: the file's name first.
	return keepCase(f.cfg.keep, filepath.Join(f.stateDir, filepath.FromSlash(s.File)), filepath.Base(s.File)+strings.TrimPrefix(id, s.Name), a)
}

// compareImport compares oc's prediction of the import with its sources.
func (f *fuzz96) compareImport(sessions []session96, sources []importSource, rawSources map[string]json.RawMessage) error {
	ds, err := importDifferences(f.stateDir, sessions, sources, f.counts["import"])
	if err != nil {
		return err
	}
	for name, d := range ds {
		f.diffs = append(f.diffs, name+"|import: "+d)
		for _, s := range sessions {
			if s.Name == name {
				// The oracle's answer kept is the file's entry of `sources`.
				if err := f.keep(s, name+"|import", oracletest.Result{ID: name + "|import", OK: true, Out: rawSources[s.File]}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// compareSession compares oc's context and each route's stages for one
// imported session with the oracle's answers.
func (f *fuzz96) compareSession(st *store.State, s session96, exportDir string) error {
	sess, loadErr := loadImported96(st, s, exportDir)
	if f.cfg.withContext {
		if err := f.compareContext(s, sess, loadErr); err != nil {
			return err
		}
	}
	for _, r := range f.routes {
		limited, payload, ocErr := ocReplay96(sess, loadErr, r)
		f.comparePayloadAlone(s, sess, r)
		d, err := compareStages(s.Name, r, limited, payload, ocErr, f.answers, f.counts, oracletest.Difference96,
			func(id string, a oracletest.Result) error { return f.keep(s, id, a) })
		if err != nil {
			return err
		}
		f.diffs = append(f.diffs, d...)
	}
	return nil
}

func (f *fuzz96) compareContext(s session96, sess *imported96, loadErr error) error {
	id := s.Name + "|context"
	c := f.counts["context"]
	a, ok := f.answers[id]
	if !ok {
		c.unanswered++
		return nil
	}
	c.compared++
	d := context96Difference(sess, loadErr, a)
	if d == "" {
		c.equal++
		return nil
	}
	f.diffs = append(f.diffs, id+": "+d)
	return f.keep(s, id, a)
}

// comparePayloadAlone compares payload-o: the payload stage alone, built
// from the oracle's own limited list (as pkg/replay's payload96 tests do),
// so a payload difference can be told from one the sanitize stage passes
// on.
func (f *fuzz96) comparePayloadAlone(s session96, sess *imported96, r route) {
	sa, sok := f.answers[strings.Join([]string{s.Name, "sanitize", r.provider, r.api, r.model}, "|")]
	pa, pok := f.answers[strings.Join([]string{s.Name, "payload", r.provider, r.api, r.model}, "|")]
	c := f.counts["payload-o"]
	if !sok || !pok || !sa.OK {
		c.unanswered++
		return
	}
	c.compared++
	got, err := payloadFromLimited96(sess, sa.Out, r)
	var d string
	switch {
	case !pa.OK && err != nil:
		c.bothFail++
	case !pa.OK:
		d = "OpenClaw fails (" + firstLine(pa.Error) + "), oc answers"
	case err != nil:
		d = fmt.Sprintf("oc fails (%v), OpenClaw answers", err)
	default:
		d = oracletest.Difference96(got, pa.Out)
	}
	if d == "" {
		c.equal++
	} else {
		f.diffs = append(f.diffs, strings.Join([]string{s.Name, "payload-o", r.provider, r.api, r.model}, "|")+": "+d)
	}
}

// oracleImport runs the 9.6 oracle's `import STATE_DIR OUT_DIR` and returns
// its report.
func oracleImport(script, stateDir, outDir string, env []string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := oracletest.Command(ctx, script, "import", stateDir, outDir)
	cmd.Env = append(cmd.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, lastLine(stderr.String()))
	}
	if !json.Valid(stdout.Bytes()) {
		return nil, fmt.Errorf("not a JSON report: %.200s", stdout.String())
	}
	return stdout.Bytes(), nil
}

// refusal is a transcript over which 9.6's doctor --fix refused the
// migration of the whole state dir.
type refusal struct {
	Name      string `json:"name"`
	Issue     string `json:"issue"`     // the failure report's issues that name no file, joined
	Predicted string `json:"predicted"` // oc's prediction for the file
}

func findRefusal(rs []refusal, name string) *refusal {
	for i := range rs {
		if rs[i].Name == name {
			return &rs[i]
		}
	}
	return nil
}

// importOnce runs the oracle's import of the state dir. When 9.6's doctor
// --fix refuses the whole migration (it does when the rows of a transcript
// with a repeated entry id do not add up: sqlite_transcript_count_mismatch;
// it then archives nothing, and the oracle's harness fails reading its
// failure report), the transcripts with repeated ids (oc's prediction:
// Duplicates > 0) are moved to <out>/refused and the import is run again
// on the rest: the second import must succeed, else this fails.
func importOnce(script, stateDir, importDir string, sessions []session96, texts [][]byte, env []string, timeout time.Duration) ([]byte, []refusal, error) {
	var refused []refusal
	for attempt := 0; ; attempt++ {
		if err := os.RemoveAll(importDir); err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(os.Stderr, "difffuzz: importing %d transcripts with OpenClaw 2026.9.6 (%s)\n", len(sessions)-len(refused), stateDir)
		start := time.Now()
		out, err := oracleImport(script, stateDir, importDir, env, timeout)
		fmt.Fprintf(os.Stderr, "difffuzz: import took %s\n", time.Since(start).Round(time.Second))
		var issues []string
		var ferr error
		if err == nil {
			// The oracle names a refused migration in its answer (refusals:
			// nothing of the agent was moved): the sessions would all read
			// empty on both sides.
			var refusedRun bool
			if issues, refusedRun, ferr = reportRefusals(out); ferr == nil && !refusedRun {
				return out, refused, nil
			}
			err = errors.New("doctor --fix refused the migration")
		} else {
			issues, ferr = failureIssues(importDir)
		}
		if attempt > 1 || ferr != nil || len(issues) == 0 {
			return nil, nil, fmt.Errorf("the oracle's import: %w (failure report: %v)", err, ferr)
		}
		// The failure report's session keys are redacted (a random tag), so
		// an issue is matched to a file by its numbers. Files oc predicts a
		// refusal for take their issue first: another file with repeated
		// ids and the same numbers (a partial import, which 9.6 does not
		// refuse over) must not take it from them.
		var candidates []int
		results := map[int]*upgrade.FileResult{}
		for i, s := range sessions {
			if findRefusal(refused, s.Name) != nil {
				continue
			}
			res, perr := upgrade.PredictFile(filepath.Join(stateDir, filepath.FromSlash(s.File)), s.ID)
			if perr == nil && res.Duplicates > 0 {
				candidates = append(candidates, i)
				results[i] = res
			}
		}
		sort.SliceStable(candidates, func(a, b int) bool {
			return results[candidates[a]].Conflict != nil && results[candidates[b]].Conflict == nil
		})
		taken := map[int]string{}
		if !hasMismatch(issues) {
			// no count mismatch to match: every file with repeated ids goes
			for _, i := range candidates {
				taken[i] = strings.Join(issues, "; ")
			}
		}
		for _, i := range candidates {
			if issue, ok := takeMismatch(&issues, results[i]); ok {
				taken[i] = issue
			}
		}
		var keep []session96
		var keepTexts [][]byte
		for i, s := range sessions {
			issue, ok := taken[i]
			if !ok {
				if findRefusal(refused, s.Name) == nil {
					keep = append(keep, s)
					keepTexts = append(keepTexts, texts[i])
				}
				continue
			}
			res := results[i]
			p := filepath.Join(stateDir, filepath.FromSlash(s.File))
			refused = append(refused, refusal{Name: s.Name, Issue: issue,
				Predicted: fmt.Sprintf("%s, %d events, %d repeated ids", res.Outcome(), res.Keys, res.Duplicates)})
			dst := filepath.Join(filepath.Dir(importDir), "refused", filepath.Base(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, nil, err
			}
			if err := os.Rename(p, dst); err != nil {
				return nil, nil, err
			}
		}
		if len(refused) == 0 {
			return nil, nil, fmt.Errorf("the oracle's import: doctor --fix refused the migration (%s) and no transcript has repeated ids", strings.Join(issues, "; "))
		}
		if err := writeStateDir96(stateDir, keep, keepTexts); err != nil {
			return nil, nil, err
		}
	}
}

// reportRefusals reads the refusals of the oracle's import answer: whether
// there is one, and the issues of them that name no transcript file (as
// failureIssues).
func reportRefusals(importJSON []byte) ([]string, bool, error) {
	var rep struct {
		Refusals []struct {
			Issues []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"issues"`
		} `json:"refusals"`
	}
	if err := json.Unmarshal(importJSON, &rep); err != nil {
		return nil, false, err
	}
	var out []string
	for _, r := range rep.Refusals {
		for _, i := range r.Issues {
			if !strings.Contains(i.Message, ".jsonl") {
				out = append(out, i.Code+": "+i.Message)
			}
		}
	}
	return out, len(rep.Refusals) > 0, nil
}

// mismatchRE is 9.6's sqlite_transcript_count_mismatch message.
var mismatchRE = regexp.MustCompile(`SQLite transcript has (\d+) events; verified import expects (\d+)`)

// takeMismatch removes from issues the failure's count-mismatch issue that
// names the numbers oc predicts for the file (distinct events stored, rows
// read) and returns it.
func takeMismatch(issues *[]string, res *upgrade.FileResult) (string, bool) {
	for k, i := range *issues {
		m := mismatchRE.FindStringSubmatch(i)
		if m != nil && m[1] == strconv.Itoa(res.Keys) && m[2] == strconv.Itoa(res.Events) {
			*issues = append((*issues)[:k:k], (*issues)[k+1:]...)
			return i, true
		}
	}
	return "", false
}

// hasMismatch reports whether any issue is a count mismatch.
func hasMismatch(issues []string) bool {
	for _, i := range issues {
		if mismatchRE.MatchString(i) {
			return true
		}
	}
	return false
}

// failureIssues reads the issues of 9.6's migration failure reports
// (session-sqlite-migration-runs/*.failure.json) that name no transcript
// file (those that do are per-file findings the import also reports when
// it succeeds).
func failureIssues(stateDir string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(stateDir, "session-sqlite-migration-runs", "*.failure.json"))
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("no failure report (%v)", err)
	}
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var rep struct {
			Reason  string `json:"reason"`
			Targets []struct {
				Issues []struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"issues"`
			} `json:"targets"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		for _, t := range rep.Targets {
			for _, i := range t.Issues {
				if !strings.Contains(i.Message, ".jsonl") {
					out = append(out, i.Code+": "+i.Message)
				}
			}
		}
	}
	return out, nil
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// importDifferences compares oc's prediction of the import (pkg/upgrade:
// what `oc doctor` says per file) with the import's own sources: the
// outcome (imported whole, partial, nothing; recovered or not), the session
// key, the number of events imported and the valid lines left behind. It
// returns the differences by session name.
func importDifferences(stateDir string, sessions []session96, sources []importSource, c *tally) (map[string]string, error) {
	rep, err := upgrade.PredictStateDir(stateDir)
	if err != nil {
		return nil, fmt.Errorf("oc's prediction: %w", err)
	}
	predicted := map[string]upgrade.Session{}
	for _, s := range rep.Sessions {
		rel, err := filepath.Rel(stateDir, s.Path)
		if err != nil {
			return nil, err
		}
		predicted[filepath.ToSlash(rel)] = s
	}
	bySource := map[string]importSource{}
	for _, s := range sources {
		bySource[s.File] = s
	}
	out := map[string]string{}
	for _, s := range sessions {
		c.compared++
		o, ok := bySource[s.File]
		p, pok := predicted[s.File]
		if d := importDifference(p, pok, o, ok); d != "" {
			out[s.Name] = d
			continue
		}
		c.equal++
	}
	for file := range predicted {
		if _, ok := bySource[file]; !ok && strings.HasPrefix(file, "agents/") {
			out[file] = "oc predicts a file the oracle does not list"
		}
	}
	return out, nil
}

func importDifference(p upgrade.Session, predicted bool, o importSource, listed bool) string {
	switch {
	case !listed && !predicted:
		return ""
	case !listed:
		return fmt.Sprintf("oc predicts %s, the oracle does not list the file", p.Outcome)
	case !predicted:
		return fmt.Sprintf("oc predicts nothing, the oracle: %s", o.Status)
	}
	if p.Outcome == upgrade.LeftInPlace || o.LeftInPlace {
		if (p.Outcome == upgrade.LeftInPlace) != o.LeftInPlace {
			return fmt.Sprintf("oc predicts %s, the oracle: %s (left in place: %v)", p.Outcome, o.Status, o.LeftInPlace)
		}
		return ""
	}
	var keys []string
	if o.ImportedAs != nil {
		keys = o.ImportedAs.SessionKeys
	}
	// The oracle names the key a file was imported as only when events
	// were stored (a file with none is "not-imported"; its sessions.json row
	// stays): a key oc predicts for a file with no events is not compared.
	nothing := p.Result != nil && p.Result.Keys == 0 && len(keys) == 0
	if !nothing && (p.SessionKey != "" && !contains(keys, p.SessionKey) || p.SessionKey == "" && len(keys) > 0) {
		return fmt.Sprintf("oc predicts %s as %q (recovered %v), the oracle imports it as %q (%s)", p.Outcome, p.SessionKey, p.Recovered, keys, o.Status)
	}
	r := p.Result
	if r == nil {
		if o.ImportedEvents > 0 {
			return fmt.Sprintf("oc predicts %s (%s), the oracle imports %d events (%s)", p.Outcome, p.Reason, o.ImportedEvents, o.Status)
		}
		return ""
	}
	if r.Keys != o.ImportedEvents {
		return fmt.Sprintf("oc predicts %s with %d events, the oracle imports %d (%s)", p.Outcome, r.Keys, o.ImportedEvents, o.Status)
	}
	if got, want := fmt.Sprint(r.Unmatched), fmt.Sprint(o.notImported()); got != want {
		return fmt.Sprintf("oc predicts lines %s not imported, the oracle %s (%s)", got, want, o.Status)
	}
	// The oracle's status names the same outcome: "imported", "partial",
	// "not-imported …"; its "partial" is any valid line whose id is not
	// among the stored events (the harness matches lines by id), so a
	// transcript imported whole under a rewritten header id (sessions.json's
	// sessionId) is "partial" there.
	if want := oracleStatus96(p.Outcome, r); want != "" && o.Status != want || want == "" && !strings.HasPrefix(o.Status, "not-imported") {
		return fmt.Sprintf("oc predicts %s (the oracle would say %q), the oracle: %s", p.Outcome, want, o.Status)
	}
	return ""
}

// oracleStatus96 is the status the 9.6 oracle's import answer gives a file oc
// predicts outcome for ("" for its "not-imported …" ones). The harness
// matches lines to stored events by id: "partial" means a valid line whose
// id is not stored (oc's Unmatched), so a file whose left-behind lines all
// repeat an id stored earlier is "imported" there though oc's outcome,
// which counts lines, is partial.
func oracleStatus96(outcome upgrade.Outcome, r *upgrade.FileResult) string {
	switch {
	case outcome == upgrade.Nothing:
		return ""
	case len(r.Unmatched) > 0:
		return "partial"
	}
	return "imported"
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// imported96 is one session as oc reads it from the imported database.
type imported96 struct {
	path    string // its rows exported as JSONL (what `oc replay` reads)
	ctx     *transcript.Context
	version int // the stored header's version (0: none)
	// snapshots are the model snapshots on the active branch: 9.6's
	// sanitize reads them through the session manager (a switch from the
	// last one dates the stale OpenAI reasoning "now").
	snapshots []replay.ModelSnapshot
}

// loadImported96 reads a session from the database the import wrote, the
// way `oc replay KEY` does on a SQLite install: resolve the key with the
// store layer, export its rows, build the context.
func loadImported96(st *store.State, s session96, exportDir string) (*imported96, error) {
	ses, err := st.Resolve(context.Background(), s.Key)
	if err != nil {
		// by the session id the state dir's sessions.json gave it (an
		// import made with another key)
		var byID error
		if ses, byID = st.Resolve(context.Background(), s.ID); byID != nil {
			return nil, err
		}
	}
	if ses.Era != store.EraSQLite {
		return nil, fmt.Errorf("%s: resolved in the %s era, not in the database", s.Key, ses.Era)
	}
	path := filepath.Join(exportDir, s.Name+".jsonl")
	var buf bytes.Buffer
	if _, err := st.Export(context.Background(), ses, nil, &buf); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return imported96From(path, buf.Bytes())
}

// imported96From is a session built from its exported rows (one a line) as
// `oc replay --openclaw 2026.9.6` builds it from the database
// (context96.BuildBounded within the oracle's default budget): 9.6's own
// active branch, its context and the model snapshots on that branch, as its
// sanitize reads them through sessionManager.getBranch(). (Reading the
// export with 2026.5.6's transcript rules, as this harness did before,
// stops at an entry whose parent is missing, where 9.6 re-attaches it to
// the preceding leaf: seed 17's fz-0002.)
func imported96From(path string, exported []byte) (*imported96, error) {
	var rows [][]byte
	for _, l := range bytes.Split(exported, []byte("\n")) {
		if len(l) > 0 {
			rows = append(rows, l)
		}
	}
	built, err := context96.BuildBounded(rows, context96.LimitsFor(context96.DefaultContextTokens))
	if err != nil {
		return nil, err
	}
	snaps, err := replay.ModelSnapshotsOnBranch(built.Branch)
	if err != nil {
		return nil, err
	}
	return &imported96{path: path, ctx: built.Context, version: built.Version, snapshots: snaps}, nil
}

// context96Difference compares oc's context of an imported session with
// the oracle's, or says who fails.
func context96Difference(s *imported96, loadErr error, a oracletest.Result) string {
	err := loadErr
	if err == nil {
		err = replay.ContextError(s.ctx)
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
	for i, m := range s.ctx.Messages {
		if i > 0 {
			got = append(got, ',')
		}
		got = append(got, m...)
	}
	return oracletest.Difference96(append(got, ']'), want.Messages)
}

// payloadFromLimited96 is oc's 9.6 wire body built from the oracle's
// sanitize answer's limited list.
func payloadFromLimited96(s *imported96, sanitizeOut json.RawMessage, r route) ([]byte, error) {
	var v struct {
		Limited []json.RawMessage `json:"limited"`
	}
	if err := json.Unmarshal(sanitizeOut, &v); err != nil {
		return nil, fmt.Errorf("the oracle's sanitize answer: %w", err)
	}
	msgs, err := replay.DecodeMessages(v.Limited, false)
	if err != nil {
		return nil, err
	}
	// The messages the oracle's sanitize made up carry its Date.now(), and
	// its payload job ran later: a minute boundary between the two jobs
	// changed the stamp the wire shows (seed 5, fz-0002). They take
	// SyntheticTime, whose stamp the comparison matches with the oracle's.
	for _, m := range msgs {
		if madeUp96(m) {
			m.Set("timestamp", json.Number(strconv.Itoa(oracletest.SyntheticTime)))
		}
	}
	version := 0
	if s != nil {
		version = s.version
	}
	p, err := replay.BuildPayload(replay.PayloadInput{Release: policy.Release96, Location: time.UTC,
		Now: func() int64 { return oracletest.SyntheticTime }, SessionVersion: version,
		Provider: r.provider, API: r.api, Model: r.model, Messages: msgs})
	if err != nil {
		return nil, err
	}
	return p.AppendJSON(nil)
}

// ocReplay96 is oc's 2026.9.6 replay of an imported session: the limited
// list and the wire body as JSON text (nil where oc fails).
func ocReplay96(s *imported96, loadErr error, r route) (limited, payload []byte, err error) {
	if loadErr != nil {
		return nil, nil, loadErr
	}
	if err := replay.ContextError(s.ctx); err != nil {
		return nil, nil, err
	}
	msgs, err := replay.DecodeMessages(s.ctx.Messages, false)
	if err != nil {
		return nil, nil, err
	}
	synthetic := func() int64 { return oracletest.SyntheticTime }
	// The oracle's Date.now() is later than every message: a model switch
	// dated "now" makes the reasoning of every earlier turn stale. The
	// pipeline runs at a far-future now; the messages it made up then take
	// SyntheticTime, which the comparison matches with the oracle's time.
	res, err := replay.Sanitize(msgs, replay.Options{Release: policy.Release96, Provider: r.provider, API: r.api, Model: r.model,
		Now: func() int64 { return farFutureNow96 }, ModelSnapshots: s.snapshots})
	if err != nil {
		return nil, nil, err
	}
	res.Limited = restampSynthetic96(res.Limited)
	if limited, err = replay.AppendMessages(nil, res.Limited); err != nil {
		return nil, nil, err
	}
	p, err := replay.BuildPayload(replay.PayloadInput{Release: policy.Release96, Location: time.UTC, Now: synthetic,
		SessionVersion: s.version, Provider: r.provider, API: r.api, Model: r.model, Messages: res.Limited})
	if err != nil {
		return limited, nil, err
	}
	payload, err = p.AppendJSON(nil)
	return limited, payload, err
}

// farFutureNow96 is the Date.now() oc's 9.6 sanitize runs at in the
// comparison (2100-01-01): later than every generated message.
const farFutureNow96 = 4102444800000

// restampSynthetic96 gives the messages the pipeline made up (timestamp
// farFutureNow96) the timestamp SyntheticTime, which the comparison
// matches with whatever time the oracle gave them.
func restampSynthetic96(msgs []replay.Message) []replay.Message {
	for _, m := range msgs {
		// In place: the made-up messages are the pipeline's own objects
		// (timestamp keeps its place).
		if isNumber96(m.Get("timestamp"), farFutureNow96) {
			m.Set("timestamp", json.Number(strconv.Itoa(oracletest.SyntheticTime)))
		}
	}
	return msgs
}

// isNumber96 says whether a decoded JSON value is the number n (the
// pipeline's numbers are json.Number or float64).
func isNumber96(v any, n int64) bool {
	switch x := v.(type) {
	case json.Number:
		return x.String() == strconv.FormatInt(n, 10)
	case float64:
		return x == float64(n)
	}
	return false
}

// madeUp96 reports a message 2026.9.6's sanitize makes up: Google's
// "(session bootstrap)" user turn and a synthetic missing tool result.
func madeUp96(m replay.Message) bool {
	if d, ok := m.Get("details").(*jsvalue.Object); ok && d.Get("openclawSyntheticMissingToolResult") == true {
		return true
	}
	if m.Get("role") != "user" {
		return false
	}
	switch c := m.Get("content").(type) {
	case string:
		return c == "(session bootstrap)"
	case []any:
		if len(c) == 1 {
			if b, ok := c[0].(*jsvalue.Object); ok && b.Get("type") == "text" && b.Get("text") == "(session bootstrap)" {
				return true
			}
		}
	}
	return false
}
