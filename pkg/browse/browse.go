// Package browse is oc browse: a full-screen, read-only browser of an
// install's sessions (bubbletea). The sessions are on the left (filterable),
// the selected conversation in the middle (oc show's text rendering), its
// branch tree, branches and findings on the right; keys switch branch, fold
// tools and thinking, jump to the next finding, search, and open the replay
// view (the stored context beside what a provider is sent for it, each
// changed message with the rules that changed it).
package browse

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/list"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/conversation"
	"github.com/openclaw-tools/oc/pkg/render"
	"github.com/openclaw-tools/oc/pkg/render/text"
	"github.com/openclaw-tools/oc/pkg/replayview"
	"github.com/openclaw-tools/oc/pkg/show"
	"github.com/openclaw-tools/oc/pkg/store"
	"github.com/openclaw-tools/oc/pkg/transcript"
)

// Help is the key summary the status line and ? show.
const Help = "tab pane · enter open · / search · n/N match · b/B branch · t tools · h thinking · f/F finding · g/G top/end · r replay · p provider · q quit"

type pane int

const (
	paneSessions pane = iota
	paneConversation
)

// Model is the browser's state (a tea.Model).
type Model struct {
	ctx    context.Context
	st     *store.State
	title  string
	styles *cli.Styles
	color  bool

	width, height int
	focus         pane
	sessions      list.Model
	conv          viewport.Model
	side          viewport.Model
	input         textinput.Model
	searching     bool

	cur      *loaded
	loading  string
	full     bool
	thinking bool
	branch   int // index into cur.leaves; -1: the active branch
	query    string
	matches  []int
	match    int
	finding  int

	replayOn  bool
	replay    *replayview.View
	replayErr string
	provider  int
	providers []string

	status string
}

// loaded is the open session.
type loaded struct {
	ses      store.Session
	conv     *conversation.Conversation
	header   *render.Header
	leaves   []conversation.Leaf
	outline  []*transcript.Segment
	findings []transcript.Finding
	// lines are the rendered conversation, wrapped; anchors the row each
	// item starts at, with its transcript line.
	lines   []string
	anchors []anchor
	err     string
}

type anchor struct {
	line int64
	row  int
}

// sessionItem is a session in the list.
type sessionItem struct{ ses store.Session }

func (s sessionItem) FilterValue() string { return s.ses.Label() + " " + s.ses.Agent + " " + s.ses.ID }
func (s sessionItem) Title() string       { return cli.Safe(shortName(s.ses)) }
func (s sessionItem) Description() string {
	return cli.Safe(string(s.ses.Era) + " · " + s.ses.Agent)
}

func shortName(s store.Session) string {
	if s.Era == store.EraJSONL && s.Key == "" && s.Archive == nil {
		if s.ID != "" {
			return s.ID
		}
		return s.Path
	}
	return s.Label()
}

// New makes the browser over sessions; title names the install.
func New(ctx context.Context, st *store.State, sessions []store.Session, title string, styles *cli.Styles, color bool) *Model {
	items := make([]list.Item, len(sessions))
	for i, s := range sessions {
		items[i] = sessionItem{s}
	}
	d := list.NewDefaultDelegate()
	d.ShowDescription = false
	d.SetSpacing(0)
	l := list.New(items, d, 20, 10)
	l.Title = "Sessions"
	l.SetShowHelp(false)
	l.SetShowStatusBar(false)
	l.DisableQuitKeybindings()
	in := textinput.New()
	in.Prompt = "/"
	in.CharLimit = 200
	m := &Model{ctx: ctx, st: st, title: title, styles: styles, color: color, sessions: l, input: in, branch: -1,
		conv: viewport.New(40, 10), side: viewport.New(20, 10), providers: replayview.Providers(), provider: -1}
	m.status = Help
	return m
}

// Close releases the open session (its temporary copy is removed).
func (m *Model) Close() {
	if m.cur != nil && m.cur.conv != nil {
		m.cur.conv.Close()
	}
}

// Init opens the first session.
func (m *Model) Init() tea.Cmd {
	if len(m.sessions.Items()) == 0 {
		return nil
	}
	return m.open(m.sessions.Items()[0].(sessionItem).ses)
}

// messages of the loading commands
type (
	loadedMsg struct{ l *loaded }
	replayMsg struct {
		v   *replayview.View
		err error
	}
)

// open loads a session (in a command: large sessions do not freeze the keys).
func (m *Model) open(ses store.Session) tea.Cmd {
	m.loading = shortName(ses)
	ctx, st := m.ctx, m.st
	return func() tea.Msg { return loadedMsg{load(ctx, st, ses)} }
}

// load opens a session and gathers what the side pane shows.
func load(ctx context.Context, st *store.State, ses store.Session) *loaded {
	l := &loaded{ses: ses}
	c, err := conversation.Open(ctx, st, ses, nil)
	if err != nil {
		l.err = oneLine(err.Error())
		return l
	}
	l.conv = c
	l.leaves = c.Leaves()
	l.outline = c.Outline()
	l.findings = findings(ctx, st, ses, c)
	return l
}

// findings are the session's findings as oc inspect reports them.
func findings(ctx context.Context, st *store.State, ses store.Session, c *conversation.Conversation) []transcript.Finding {
	var out []transcript.Finding
	switch {
	case ses.Archive != nil:
		if rep, err := st.InspectArchive(ctx, ses); err == nil && rep.Summary != nil {
			out = rep.Findings
		}
	case ses.Era == store.EraSQLite:
		if rep, err := st.InspectSession(ctx, ses); err == nil && rep.Summary != nil {
			out = rep.Findings
		}
	default:
		if sum, err := transcript.AnalyzeFile(transcript.File{Path: c.Path()}, nil); err == nil {
			out = sum.Findings
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case loadedMsg:
		m.Close()
		m.cur, m.loading = msg.l, ""
		m.branch, m.query, m.matches, m.finding = -1, "", nil, -1
		m.replay, m.replayErr, m.replayOn = nil, "", false
		m.rerender()
		return m, nil
	case replayMsg:
		m.replay, m.replayErr = msg.v, ""
		if msg.err != nil {
			m.replayErr = oneLine(msg.err.Error())
		}
		m.fillReplay()
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	}
	// the list's own messages (its filter's matches)
	var cmd tea.Cmd
	m.sessions, cmd = m.sessions.Update(msg)
	return m, cmd
}

// key handles a key press.
func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.Type == tea.KeyCtrlC {
		return m, tea.Quit
	}
	if m.searching {
		switch k.Type {
		case tea.KeyEnter:
			m.searching = false
			m.setQuery(m.input.Value())
			return m, nil
		case tea.KeyEsc:
			m.searching = false
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(k)
		return m, cmd
	}
	if m.focus == paneSessions && m.sessions.SettingFilter() {
		var cmd tea.Cmd
		m.sessions, cmd = m.sessions.Update(k)
		return m, cmd
	}
	switch k.String() {
	case "q":
		return m, tea.Quit
	case "tab", "shift+tab":
		m.focus = 1 - m.focus
		return m, nil
	case "esc":
		if m.replayOn {
			m.replayOn = false
			m.rerender()
			return m, nil
		}
	}
	if m.focus == paneSessions {
		if k.Type == tea.KeyEnter {
			if it, ok := m.sessions.SelectedItem().(sessionItem); ok {
				m.focus = paneConversation
				return m, m.open(it.ses)
			}
			return m, nil
		}
		var cmd tea.Cmd
		m.sessions, cmd = m.sessions.Update(k)
		return m, cmd
	}
	return m.conversationKey(k)
}

// conversationKey handles a key in the conversation pane.
func (m *Model) conversationKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch k.String() {
	case "/":
		m.searching = true
		m.input.SetValue("")
		return m, m.input.Focus()
	case "n", "N":
		m.nextMatch(k.String() == "n")
		return m, nil
	case "b", "B":
		m.nextBranch(k.String() == "b")
		return m, nil
	case "t":
		m.full = !m.full
		m.rerender()
		return m, nil
	case "h":
		m.thinking = !m.thinking
		m.rerender()
		return m, nil
	case "f", "F":
		m.nextFinding(k.String() == "f")
		return m, nil
	case "g", "home":
		m.conv.GotoTop()
		return m, nil
	case "G", "end":
		m.conv.GotoBottom()
		return m, nil
	case "r":
		m.replayOn = !m.replayOn
		if !m.replayOn {
			m.rerender()
			return m, nil
		}
		return m, m.loadReplay()
	case "p":
		if m.replayOn && len(m.providers) > 0 {
			m.provider = (m.provider + 1) % len(m.providers)
			return m, m.loadReplay()
		}
	}
	var cmd tea.Cmd
	m.conv, cmd = m.conv.Update(k)
	return m, cmd
}

// loadReplay replays the open session for the chosen provider.
func (m *Model) loadReplay() tea.Cmd {
	if m.cur == nil || m.cur.conv == nil {
		return nil
	}
	path, rules96 := m.cur.conv.Path(), m.cur.conv.Rules == conversation.Rules96
	provider := ""
	if m.provider >= 0 {
		provider = m.providers[m.provider]
	}
	m.replay, m.replayErr = nil, ""
	m.fillReplay()
	return func() tea.Msg {
		v, err := replayview.Build(path, rules96, provider)
		return replayMsg{v, err}
	}
}

// resize lays the panes out for a terminal of w x h.
func (m *Model) resize(w, h int) {
	m.width, m.height = w, h
	side := max(16, w/4)
	if w < 60 {
		side = max(10, w/5)
	}
	body := max(3, h-2)
	m.sessions.SetSize(side, body)
	m.conv.Width, m.conv.Height = max(10, w-2*side-2), body
	m.side.Width, m.side.Height = side, body
	m.rerender()
}

// rerender renders the open session for the current width and settings.
func (m *Model) rerender() {
	if m.replayOn {
		m.fillReplay()
		return
	}
	m.fillSide()
	if m.cur == nil {
		m.conv.SetContent(m.styles.Dim.Render("no session open"))
		return
	}
	if m.cur.err != "" {
		m.conv.SetContent(m.styles.Error.Render(ansi.Wrap(cli.Safe(m.cur.err), max(10, m.conv.Width), " ")))
		return
	}
	sel := conversation.Selection{}
	if m.branch >= 0 && m.branch < len(m.cur.leaves) {
		sel.Branch = fmt.Sprint(m.cur.leaves[m.branch].Line)
	}
	opts := render.Options{Full: m.full, Thinking: m.thinking, Color: m.color}
	if m.query != "" {
		opts.Highlight = regexp.MustCompile("(?i)" + regexp.QuoteMeta(m.query))
	}
	var buf bytes.Buffer
	r := text.New(&buf, m.styles, opts)
	m.cur.header = show.HeaderOf(m.cur.conv, sel)
	_ = r.Begin(m.cur.header)
	_ = r.Flush()
	m.cur.lines, m.cur.anchors = nil, nil
	m.appendWrapped(&buf)
	err := m.cur.conv.Items(m.ctx, sel, func(it *conversation.Item) error {
		m.cur.anchors = append(m.cur.anchors, anchor{line: it.Line, row: len(m.cur.lines)})
		if err := r.Item(it); err != nil {
			return err
		}
		if err := r.Flush(); err != nil {
			return err
		}
		m.appendWrapped(&buf)
		return nil
	})
	_ = r.End()
	m.appendWrapped(&buf)
	if err != nil {
		m.cur.lines = append(m.cur.lines, m.styles.Error.Render(cli.Safe(oneLine(err.Error()))))
	}
	m.conv.SetContent(strings.Join(m.cur.lines, "\n"))
	m.findMatches()
}

// appendWrapped moves buf's lines, wrapped to the pane, to the content.
func (m *Model) appendWrapped(buf *bytes.Buffer) {
	if buf.Len() == 0 {
		return
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	buf.Reset()
	for _, l := range strings.Split(s, "\n") {
		w := ansi.Wrap(l, max(10, m.conv.Width), " ")
		m.cur.lines = append(m.cur.lines, strings.Split(w, "\n")...)
	}
}

// fillSide writes the side pane: tree, branches, findings.
func (m *Model) fillSide() {
	if m.cur == nil || m.cur.conv == nil {
		m.side.SetContent("")
		return
	}
	var b strings.Builder
	st := m.styles
	b.WriteString(st.Heading.Render("Tree") + "\n")
	var walk func(segs []*transcript.Segment, depth int)
	walk = func(segs []*transcript.Segment, depth int) {
		for _, s := range segs {
			mark := "○"
			if s.Active {
				mark = "●"
			}
			b.WriteString(strings.Repeat(" ", depth) + mark + fmt.Sprintf(" %d-%d %s\n", s.FirstLine, s.LastLine, cli.Safe(s.Kinds)))
			walk(s.Children, depth+1)
		}
	}
	walk(m.cur.outline, 0)
	b.WriteString("\n" + st.Heading.Render(fmt.Sprintf("Branches (%d)", len(m.cur.leaves))) + "\n")
	for i, l := range m.cur.leaves {
		mark := "  "
		if i == m.branch || m.branch < 0 && l.Active {
			mark = "▸ "
		}
		act := ""
		if l.Active {
			act = " active"
		}
		b.WriteString(fmt.Sprintf("%sline %d%s\n", mark, l.Line, act))
	}
	b.WriteString("\n" + st.Heading.Render(fmt.Sprintf("Findings (%d)", len(m.cur.findings))) + "\n")
	for i, f := range m.cur.findings {
		mark := "  "
		if i == m.finding {
			mark = "▸ "
		}
		b.WriteString(mark + st.Severity(f.Severity) + fmt.Sprintf(" %s line %d\n", cli.Safe(f.Rule), f.Line))
	}
	out := make([]string, 0, 32)
	for _, l := range strings.Split(b.String(), "\n") {
		out = append(out, strings.Split(ansi.Wrap(l, max(8, m.side.Width), " "), "\n")...)
	}
	m.side.SetContent(strings.Join(out, "\n"))
}

// fillReplay writes the replay view into the conversation pane.
func (m *Model) fillReplay() {
	if !m.replayOn {
		return
	}
	st := m.styles
	w := max(10, m.conv.Width)
	var lines []string
	add := func(s string) { lines = append(lines, strings.Split(ansi.Wrap(s, w, " "), "\n")...) }
	switch {
	case m.replayErr != "":
		add(st.Error.Render("replay: " + cli.Safe(m.replayErr)))
	case m.replay == nil:
		add(st.Dim.Render("replaying…"))
	default:
		v := m.replay
		add(st.Title.Render(fmt.Sprintf("Replay for %s (%s, %s) by OpenClaw %s", cli.Safe(v.Route.Provider), cli.Safe(v.Route.API), cli.Safe(v.Route.Model), v.Release)))
		add(st.Dim.Render(fmt.Sprintf("%d stored context messages, %d sent · p: next provider · esc: back", v.Messages, v.Sent)))
		if len(v.Rules) > 0 {
			add(st.Warn.Render("rules that changed something: " + cli.Safe(strings.Join(v.Rules, ", "))))
		} else {
			add(st.OK.Render("no rule changed anything: sent as stored"))
		}
		col := max(4, (w-3)/2)
		add(st.Heading.Render(pad("STORED", col) + "   " + "SENT"))
		for _, r := range v.Rows {
			mark := " "
			switch r.Op {
			case "changed":
				mark = st.Warn.Render("~")
			case "dropped":
				mark = st.Error.Render("-")
			case "inserted":
				mark = st.OK.Render("+")
			}
			lines = append(lines, pad(ansi.Truncate(cli.Safe(r.Stored), col, "…"), col)+" "+mark+" "+ansi.Truncate(cli.Safe(r.Sent), col, "…"))
			if len(r.Rules) > 0 {
				add("    " + st.Dim.Render("changed by "+cli.Safe(strings.Join(r.Rules, ", "))))
			}
		}
	}
	m.conv.SetContent(strings.Join(lines, "\n"))
	m.conv.GotoTop()
}

func pad(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// nextBranch shows the next (or previous) branch.
func (m *Model) nextBranch(forward bool) {
	if m.cur == nil || len(m.cur.leaves) == 0 {
		return
	}
	n := len(m.cur.leaves)
	if m.branch < 0 {
		for i, l := range m.cur.leaves {
			if l.Active {
				m.branch = i
			}
		}
	}
	if forward {
		m.branch = (m.branch + 1) % n
	} else {
		m.branch = (m.branch - 1 + n) % n
	}
	m.status = fmt.Sprintf("branch %d of %d: ends at line %d", m.branch+1, n, m.cur.leaves[m.branch].Line)
	m.rerender()
	m.conv.GotoTop()
}

// nextFinding scrolls to the next (or previous) finding's entry.
func (m *Model) nextFinding(forward bool) {
	if m.cur == nil || len(m.cur.findings) == 0 {
		m.status = "no findings in this session"
		return
	}
	n := len(m.cur.findings)
	if forward {
		m.finding = (m.finding + 1) % n
	} else {
		m.finding = (m.finding - 1 + n) % n
	}
	f := m.cur.findings[m.finding]
	m.status = fmt.Sprintf("finding %d of %d: %s %s: %s", m.finding+1, n, f.Severity, f.Rule, f.Message)
	for _, a := range m.cur.anchors {
		if a.line >= f.Line {
			m.conv.SetYOffset(a.row)
			break
		}
	}
	m.fillSide()
}

// setQuery highlights a search and jumps to its first match.
func (m *Model) setQuery(q string) {
	m.query = q
	m.rerender()
	if q != "" && len(m.matches) == 0 {
		m.status = fmt.Sprintf("%q: not found", q)
	}
	m.match = -1
	m.nextMatch(true)
}

// findMatches lists the rows where the query is.
func (m *Model) findMatches() {
	m.matches = nil
	if m.query == "" || m.cur == nil {
		return
	}
	q := strings.ToLower(m.query)
	for i, l := range m.cur.lines {
		if strings.Contains(strings.ToLower(ansi.Strip(l)), q) {
			m.matches = append(m.matches, i)
		}
	}
}

// nextMatch scrolls to the next (or previous) match.
func (m *Model) nextMatch(forward bool) {
	if len(m.matches) == 0 {
		return
	}
	n := len(m.matches)
	if forward {
		m.match = (m.match + 1) % n
	} else {
		m.match = (m.match - 1 + n) % n
	}
	m.conv.SetYOffset(m.matches[m.match])
	m.status = fmt.Sprintf("match %d of %d for %q", m.match+1, n, m.query)
}

// View draws the screen.
func (m *Model) View() string {
	if m.width == 0 {
		return ""
	}
	st := m.styles
	head := "oc browse · " + cli.Safe(m.title)
	if m.cur != nil {
		head += " · " + cli.Safe(shortName(m.cur.ses))
	}
	if m.loading != "" {
		head += " · opening " + cli.Safe(m.loading) + "…"
	}
	head = st.Title.Render(ansi.Truncate(head, m.width, "…"))
	body := max(3, m.height-2)
	box := func(s string, w int) string {
		return lipgloss.NewStyle().Width(w).MaxWidth(w).Height(body).MaxHeight(body).Render(s)
	}
	sep := strings.TrimSuffix(strings.Repeat("│\n", body), "\n")
	left := m.sessions.View()
	mid := m.conv.View()
	if m.focus == paneSessions {
		sep = st.Key.Render(sep)
	}
	panes := lipgloss.JoinHorizontal(lipgloss.Top, box(left, m.side.Width), sep, box(mid, m.conv.Width), st.Dim.Render(strings.TrimSuffix(strings.Repeat("│\n", body), "\n")), box(m.side.View(), m.side.Width))
	foot := st.Dim.Render(ansi.Truncate(cli.Safe(m.status), m.width, "…"))
	if m.searching {
		foot = m.input.View()
	}
	return head + "\n" + panes + "\n" + foot
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
