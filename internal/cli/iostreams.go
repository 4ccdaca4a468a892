package cli

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"
)

// IOStreams are the three standard streams plus what oc needs to know about them:
// whether they are terminals and whether colour is allowed. Commands never touch
// os.Stdout directly, so tests can capture output and pretend to be a terminal.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdoutTTY bool
	stderrTTY bool
	noColor   bool // NO_COLOR set, or --no-color
	quiet     bool
	width     int
}

// System returns streams bound to the process's stdin, stdout and stderr.
func System() *IOStreams {
	s := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
		noColor:   os.Getenv("NO_COLOR") != "",
		width:     80,
	}
	if s.stdoutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			s.width = w
		}
	}
	return s
}

// Test returns streams over buffers. tty makes both output streams act as terminals.
func Test(tty bool) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: &bytes.Buffer{}, Out: out, ErrOut: errOut, stdoutTTY: tty, stderrTTY: tty, width: 80}, out, errOut
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// SetNoColor turns colour off (the --no-color flag).
func (s *IOStreams) SetNoColor(v bool) { s.noColor = s.noColor || v }

// SetQuiet silences progress output (the -q flag).
func (s *IOStreams) SetQuiet(v bool) { s.quiet = v }

// Quiet reports whether -q was given.
func (s *IOStreams) Quiet() bool { return s.quiet }

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// ColorEnabled reports whether stdout output may be styled.
func (s *IOStreams) ColorEnabled() bool { return s.stdoutTTY && !s.noColor }

// ProgressEnabled reports whether a progress display may be drawn on stderr.
func (s *IOStreams) ProgressEnabled() bool { return s.stderrTTY && !s.quiet }

// Width is the terminal width (80 when unknown or not a terminal).
func (s *IOStreams) Width() int { return s.width }

// Styles returns the lipgloss styles for stdout: real colours on a terminal,
// plain text when piped or when colour is off.
func (s *IOStreams) Styles() *Styles {
	r := lipgloss.NewRenderer(s.Out)
	if s.ColorEnabled() {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return newStyles(r)
}
