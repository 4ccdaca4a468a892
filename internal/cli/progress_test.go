package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestProgressOnlyOnTerminalAfterASecond(t *testing.T) {
	ios, _, errOut := Test(false)
	assert.Nil(t, NewProgress(ios, "x", 10), "no progress when stderr is not a terminal")
	assert.Empty(t, errOut.String())

	ios, _, errOut = Test(true)
	ios.SetQuiet(true)
	assert.Nil(t, NewProgress(ios, "x", 10), "-q silences progress")
	assert.Empty(t, errOut.String())

	ios, _, errOut = Test(true)
	p := NewProgress(ios, "checking", 4)
	now := p.started
	p.now = func() time.Time { return now }
	p.Add(1)
	assert.Empty(t, errOut.String(), "nothing drawn in the first second")
	now = now.Add(1500 * time.Millisecond)
	p.Add(1)
	assert.Contains(t, errOut.String(), "checking [===============               ] 2/4")
	p.Done()
	out := errOut.String()
	assert.True(t, strings.HasSuffix(out, "\r"), "Done clears the line")

	var nilProgress *Progress
	nilProgress.Add(1) // a nil progress is a no-op
	nilProgress.Done()
}

func TestStylesPlainWithoutColor(t *testing.T) {
	ios, _, _ := Test(false)
	assert.Equal(t, "error", ios.Styles().Severity("error"))
	ios, _, _ = Test(true)
	assert.Contains(t, ios.Styles().Severity("error"), "\x1b[")
	ios.SetNoColor(true)
	assert.Equal(t, "error", ios.Styles().Severity("error"))
}

func TestCodeOf(t *testing.T) {
	assert.Equal(t, ExitOK, CodeOf(nil))
	assert.Equal(t, ExitUsage, CodeOf(Usagef("bad %s", "flag")))
	assert.Equal(t, ExitFindings, CodeOf(Exit(ExitFindings, nil)))
	assert.Equal(t, ExitIncomplete, CodeOf(assert.AnError), "any other error could not complete")
}

func TestByteProgressShowsMiB(t *testing.T) {
	ios, _, errOut := Test(true)
	p := NewByteProgress(ios, "repair big.jsonl", 100<<20, 1)
	now := p.started.Add(2 * time.Second)
	p.now = func() time.Time { return now }
	p.Add(25 << 20)
	assert.Contains(t, errOut.String(), "repair big.jsonl [=======                       ] 25.0/100.0 MiB")
	ios, _, _ = Test(false)
	assert.Nil(t, NewByteProgress(ios, "x", 10, 1), "no progress when stderr is not a terminal")

	// A file read twice (inspect: analysis and repair check) shows its own
	// size, not twice it: 30 MiB of both passes is 15 MiB of a 100 MiB file.
	ios, _, errOut = Test(true)
	p = NewByteProgress(ios, "inspecting big.jsonl", 100<<20, 2)
	p.now = func() time.Time { return now }
	p.Add(10 << 20)
	now = now.Add(time.Second)
	p.Add(20 << 20)
	assert.Contains(t, errOut.String(), "inspecting big.jsonl [====                          ] 15.0/100.0 MiB")
}
