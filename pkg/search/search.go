package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/openclaw-tools/oc/internal/parallel"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/store/sqlitestore"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Options tune a search.
type Options struct {
	// Context is the number of text lines shown before and after a
	// matching line (grep -C).
	Context int
	// FirstOnly stops reading a session at its first match (grep -l).
	FirstOnly bool
	// Jobs is the number of sessions read at once (0: one per CPU).
	Jobs int
}

// Match is one matching line of a message's text.
type Match struct {
	Line    int64  `json:"line"` // the entry's line (row position for SQLite, header first)
	EntryID string `json:"entryId,omitempty"`
	Role    string `json:"role"`           // the message's role, or the entry's kind
	Part    string `json:"part"`           // text, thinking, arguments, summary, error
	Tool    string `json:"tool,omitempty"` // the tool of a call or result
	Model   string `json:"model,omitempty"`
	Text    string `json:"text"` // the matching line of the text
	// Ranges are the byte ranges of the matches in Text.
	Ranges [][2]int `json:"ranges"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`
}

// Result is what one session gave.
type Result struct {
	Session store.Session
	Matches []Match
	// Err: the session could not be read (whole or in part).
	Err error
}

// Run searches the sessions, handing fn each session's result in the
// sessions' order as soon as it and those before it are done. fn's error
// stops the search.
func Run(ctx context.Context, st *store.State, sessions []store.Session, q Query, o Options, fn func(Result) error) error {
	m, err := Compile(q)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make([]chan Result, len(sessions))
	for i := range done {
		done[i] = make(chan Result, 1)
	}
	rd := &reader{st: st, bufs: &buffers{}, dbs: map[string]*sqlitestore.DB{}}
	defer rd.close()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		parallel.Each(len(sessions), o.Jobs, func(i int) {
			if ctx.Err() != nil {
				done[i] <- Result{Session: sessions[i], Err: ctx.Err()}
				return
			}
			done[i] <- searchSession(ctx, rd, sessions[i], m, o)
		})
	}()
	defer func() { <-finished }() // the databases close after the last read
	for i := range done {
		r := <-done[i]
		if errors.Is(r.Err, context.Canceled) && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := fn(r); err != nil {
			cancel()
			for j := i + 1; j < len(done); j++ {
				<-done[j]
			}
			return err
		}
	}
	return ctx.Err()
}

// errStop ends a session's read at its first match (Options.FirstOnly).
var errStop = errors.New("first match found")

// reader reads sessions' rows for a search: the chunk buffers, and each
// agent database opened once and shared by the workers.
type reader struct {
	st   *store.State
	bufs *buffers
	mu   sync.Mutex
	dbs  map[string]*sqlitestore.DB
	errs map[string]error
}

func (r *reader) db(ctx context.Context, path string) (*sqlitestore.DB, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if db, ok := r.dbs[path]; ok {
		return db, nil
	}
	if err, ok := r.errs[path]; ok {
		return nil, err
	}
	db, err := r.st.OpenAgentDB(ctx, path)
	if err != nil {
		if r.errs == nil {
			r.errs = map[string]error{}
		}
		r.errs[path] = err
		return nil, err
	}
	r.dbs[path] = db
	return db, nil
}

func (r *reader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, db := range r.dbs {
		db.Close()
	}
}

// searchSession reads one session's rows.
func searchSession(ctx context.Context, rd *reader, ses store.Session, m *matcher, o Options) Result {
	s := &sessionSearch{m: m, o: o}
	res := Result{Session: ses}
	row := func(_ int64, line []byte) error {
		s.pos++
		if s.pos&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		return s.line(s.pos, line)
	}
	var err error
	switch {
	case ses.Era == store.EraJSONL && ses.Archive == nil:
		err = scanJSONL(ses.Path, m, m.model != "", rd.bufs, row)
	case ses.Archive == nil:
		err = s.events(ctx, rd, ses, row)
	default:
		_, err = rd.st.Rows(ctx, ses, nil, row)
	}
	if err != nil && !s.stopped { // (a store may wrap errStop past errors.Is)
		res.Err = fmt.Errorf("%s: %w", name(ses), err)
	}
	res.Matches = s.matches
	return res
}

func name(ses store.Session) string {
	if ses.Era == store.EraJSONL && ses.Archive == nil {
		return ses.Path
	}
	return ses.Label() + " in " + ses.Path
}

// events reads a SQLite session's rows in seq order (zstd rows decoded
// within the run's budget). Rows are numbered as oc show numbers them, the
// session header first: a header found after other rows moves them one
// down. A read that starts over (the database changed under it) forgets
// what it found.
func (s *sessionSearch) events(ctx context.Context, rd *reader, ses store.Session, row func(int64, []byte) error) error {
	db, err := rd.db(ctx, ses.Path)
	if err != nil {
		return err
	}
	header := false
	reset := func() { s.pos, s.matches, header, s.provider, s.model = 0, nil, false, "", "" }
	_, err = db.Events(ctx, ses.ID, reset, func(ev sqlitestore.Event) error {
		if !header && bytes.Contains(ev.JSON, []byte(sessionWord)) && isHeader(ev.JSON) {
			header = true
			if s.pos > 0 {
				for i := range s.matches {
					s.matches[i].Line++
				}
			}
		}
		return row(ev.Seq, ev.JSON)
	})
	return err
}

// isHeader reports whether a row is a session header.
func isHeader(row []byte) bool {
	it := conversation.DecodeLine(0, row)
	return it.Kind == conversation.KindSessionHeader
}

// sessionSearch is the state of one session's read.
type sessionSearch struct {
	m       *matcher
	o       Options
	stopped bool // FirstOnly: the first match ended the read
	pos     int64
	buf     []byte
	matches []Match
	// the model in effect (last assistant turn or model change), for --model
	provider, model string
}

// The words a row that changes the model in effect holds, and one a
// session header holds.
const (
	sessionWord     = `"session"`
	modelChangeWord = "model_change"
	assistantWord   = "assistant"
)

// line handles one row.
func (s *sessionSearch) line(pos int64, data []byte) error {
	may := s.m.mayMatch(data, &s.buf)
	tracksModel := s.m.model != "" && (bytes.Contains(data, []byte(modelChangeWord)) || bytes.Contains(data, []byte(assistantWord)))
	if !may && !tracksModel {
		return nil
	}
	it := conversation.DecodeLine(pos, data)
	if it.Kind == conversation.KindModelChange || it.Kind == conversation.KindMessage && it.Role == transcript.RoleAssistant && it.Model != "" {
		s.provider, s.model = it.Provider, it.Model
	}
	if !may || it.Kind == conversation.KindMalformed || it.Kind == conversation.KindSessionHeader {
		return nil
	}
	return s.item(it)
}

// item matches one decoded entry's texts.
func (s *sessionSearch) item(it *conversation.Item) error {
	role := roleOf(it)
	if s.m.q.Role != "" && !strings.EqualFold(role, s.m.q.Role) {
		return nil
	}
	if !s.m.modelMatches(s.provider, s.model) {
		return nil
	}
	var err error
	match := func(part, tool, text string) {
		if err != nil {
			return
		}
		if s.m.q.Tool != "" && tool != s.m.q.Tool {
			return
		}
		lines := strings.Split(text, "\n")
		for k, l := range lines {
			ranges := s.m.re.FindAllStringIndex(l, -1)
			if ranges == nil {
				continue
			}
			mt := Match{Line: it.Line, EntryID: it.ID, Role: role, Part: part, Tool: tool, Model: joinModel(s.provider, s.model), Text: l}
			for _, r := range ranges {
				mt.Ranges = append(mt.Ranges, [2]int{r[0], r[1]})
			}
			if c := s.o.Context; c > 0 {
				mt.Before = lines[max(0, k-c):k]
				mt.After = lines[k+1 : min(len(lines), k+1+c)]
			}
			s.matches = append(s.matches, mt)
			if s.o.FirstOnly {
				err, s.stopped = errStop, true
				return
			}
		}
	}
	resultTool := ""
	if it.Role == transcript.RoleToolResult {
		resultTool = it.ToolName
	}
	for _, b := range it.Blocks {
		switch b.Kind {
		case conversation.BlockText, conversation.BlockOther:
			match("text", resultTool, b.Text)
		case conversation.BlockThinking:
			match("thinking", "", b.Text)
		case conversation.BlockToolCall:
			conversation.StringValues(b.Arguments, func(v string) { match("arguments", b.Name, v) })
		}
	}
	if it.Summary != "" {
		match("summary", "", it.Summary)
	}
	if it.ErrorMessage != "" {
		match("error", "", it.ErrorMessage)
	}
	return err
}

// roleOf is a message's role, or what another entry is.
func roleOf(it *conversation.Item) string {
	switch it.Kind {
	case conversation.KindMessage:
		return it.Role
	case conversation.KindCompaction:
		return "compaction"
	case conversation.KindBranchSummary:
		return "branchSummary"
	case conversation.KindCustomMessage:
		return "custom"
	}
	return string(it.Kind)
}

func joinModel(provider, model string) string {
	if provider != "" && model != "" {
		return provider + "/" + model
	}
	return provider + model
}
