package browse_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/pkg/browse"
	"github.com/openclaw-tools/oc/pkg/catalog"
)

// screen drives the model as the program would: each command's message is
// fed back until none is left (opening a session, replaying).
type screen struct {
	t *testing.T
	m tea.Model
}

func (s *screen) send(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	s.m, cmd = s.m.Update(msg)
	return s.drain(cmd)
}

// drain runs cmd and feeds its messages back (batches expanded), except a
// quit, which it returns. A command that does not answer at once (a
// cursor's blink, a status message's timer) is what a person would wait
// for: it is dropped.
func (s *screen) drain(cmd tea.Cmd) tea.Cmd {
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0 && steps < 100; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := run(c)
		switch m := msg.(type) {
		case nil:
			continue
		case tea.QuitMsg:
			return c
		case tea.BatchMsg:
			queue = append(queue, m...)
			continue
		}
		var next tea.Cmd
		s.m, next = s.m.Update(msg)
		if strings.HasPrefix(fmt.Sprintf("%T", msg), "browse.") {
			queue = append(queue, next) // the browser's own work goes on; timers do not
		}
	}
	return nil
}

// run is c's message, or nil when it takes more than a few seconds.
func run(c tea.Cmd) tea.Msg {
	ch := make(chan tea.Msg, 1)
	go func() { ch <- c() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(5 * time.Second):
		return nil
	}
}

func (s *screen) keys(keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "ctrl+c":
			msg = tea.KeyMsg{Type: tea.KeyCtrlC}
		case "pgdown":
			msg = tea.KeyMsg{Type: tea.KeyPgDown}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		last = s.send(msg)
	}
	return last
}

// view is the screen as plain text, checked to fit the terminal.
func (s *screen) view(w, h int) string {
	s.t.Helper()
	v := s.m.View()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		s.t.Errorf("%d lines on a %d-line screen", len(lines), h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			s.t.Errorf("line %d is %d cells wide on a %d-cell screen: %q", i, ansi.StringWidth(l), w, ansi.Strip(l))
		}
	}
	return ansi.Strip(v)
}

func newScreen(t *testing.T, w, h int) (*screen, *browse.Model) {
	t.Helper()
	state := t.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../testdata/show/showcase.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0197e000-5b0e-7c11-8d22-000000000001.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	hostile := `{"type":"session","version":3,"id":"evil\u001b]0;x\u0007"}` + "\n" +
		`{"type":"message","id":"m1","parentId":null,"message":{"role":"user","content":"\u001b[2J\u009b31m\u202eboo"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "zz-evil.jsonl"), []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	st, sessions, err := catalog.Select(context.Background(), state, "", catalog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ios, _, _ := cli.Test(false)
	m := browse.New(context.Background(), st, sessions, "test-state", ios.Styles(), false)
	t.Cleanup(m.Close)
	s := &screen{t: t, m: m}
	s.send(tea.WindowSizeMsg{Width: w, Height: h})
	s.drain(m.Init())
	return s, m
}

// TestBrowseAt80x24 uses the browser as a person would on the smallest
// terminal it supports, and reads the screen after each step.
func TestBrowseAt80x24(t *testing.T) {
	s, _ := newScreen(t, 80, 24)
	v := s.view(80, 24)
	for _, want := range []string{"oc browse", "Sessions", "0197e000", "showing the active branch", "Tree", "Branches (2)", "Findings"} {
		if !strings.Contains(v, want) {
			t.Errorf("first screen lacks %q:\n%s", want, v)
		}
	}
	// into the conversation; the other branch (the failed gpt-5 turn)
	s.keys("tab", "pgdown")
	if v = s.view(80, 24); !strings.Contains(v, "Why is the nightly") {
		t.Errorf("pgdown does not scroll to the first message:\n%s", v)
	}
	s.keys("b")
	v = s.view(80, 24)
	if !strings.Contains(v, "branch 1 of 2") {
		t.Errorf("b did not switch branch:\n%s", v)
	}
	s.keys("G")
	if v = s.view(80, 24); !strings.Contains(v, "rate limit") {
		t.Errorf("the other branch's failed turn is not shown:\n%s", v)
	}
	// back to the active branch, search
	s.keys("b", "/", "r", "e", "m", "o", "v", "e", "d", "enter")
	if v = s.view(80, 24); !strings.Contains(v, "match 1 of 1") || !strings.Contains(v, "»Removed« 12 old archives") {
		t.Errorf("search did not find and show the match:\n%s", v)
	}
	// unfold tools: the 20th line of the tool result appears
	s.keys("t")
	s.keys("/", "l", "i", "n", "e", " ", "2", "0", ":", "enter")
	if v = s.view(80, 24); !strings.Contains(v, "»line 20:« backup") {
		t.Errorf("t did not unfold the tool result:\n%s", v)
	}
	// the replay view: stored beside sent, rules named
	s.keys("r")
	v = s.view(80, 24)
	for _, want := range []string{"Replay for anthropic", "STORED", "SENT", "user:"} {
		if !strings.Contains(v, want) {
			t.Errorf("replay view lacks %q:\n%s", want, v)
		}
	}
	s.keys("p")
	if v = s.view(80, 24); !strings.Contains(v, "Replay for") {
		t.Errorf("p: %s", v)
	}
	s.keys("esc")
	if v = s.view(80, 24); strings.Contains(v, "STORED") {
		t.Errorf("esc did not leave the replay view")
	}
	if cmd := s.keys("q"); cmd == nil {
		t.Errorf("q does not quit")
	}
}

// TestBrowseHostileSessionAndFilter: a session of hostile text shows no
// control character; the list filters.
func TestBrowseHostileSessionAndFilter(t *testing.T) {
	s, _ := newScreen(t, 100, 30)
	s.keys("/", "z", "z", "enter", "enter")
	raw := s.m.View()
	v := ansi.Strip(raw)
	if !strings.Contains(v, `\x1b[2J`) || !strings.Contains(v, `\u202e`) {
		t.Errorf("the hostile session is not shown escaped:\n%s", v)
	}
	for _, bad := range []string{"\x1b]0;", "\x1b[2J", "\u009b", "\u202e", "\x07"} {
		if strings.Contains(raw, bad) {
			t.Errorf("%q reaches the screen", bad)
		}
	}
	if cmd := s.keys("ctrl+c"); cmd == nil {
		t.Errorf("ctrl+c does not quit")
	}
}
