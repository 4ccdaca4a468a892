package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Progress draws a one-line progress bar on stderr when stderr is a terminal,
// -q is not set, and the run has lasted longer than a second. It is safe for
// concurrent use; Done clears the line. A nil *Progress is a no-op.
type Progress struct {
	mu       sync.Mutex
	ios      *IOStreams
	label    string
	total    int
	done     int
	started  time.Time
	lastDraw time.Time
	drawn    bool
	bytes    bool // total and done are bytes, shown in MiB
	passes   int  // bytes: reads of the file counted in done (shown as one)
	now      func() time.Time
}

// NewProgress returns a progress display for total items, or nil when progress
// is disabled for these streams.
func NewProgress(ios *IOStreams, label string, total int) *Progress {
	if ios == nil || !ios.ProgressEnabled() {
		return nil
	}
	return &Progress{ios: ios, label: label, total: total, started: time.Now(), now: time.Now}
}

// NewByteProgress is NewProgress for one large file of size bytes that is
// read passes times (concurrently: inspect analyses it while its repair check
// reads it): Add counts the bytes of every pass, and the line shows the MiB
// of the file read, their mean, against its size.
func NewByteProgress(ios *IOStreams, label string, size int64, passes int) *Progress {
	p := NewProgress(ios, label, int(size)*max(passes, 1))
	if p != nil {
		p.bytes, p.passes = true, max(passes, 1)
	}
	return p
}

// Add records n more finished items and redraws at most ten times a second.
func (p *Progress) Add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	now := p.now()
	if now.Sub(p.started) < time.Second || now.Sub(p.lastDraw) < 100*time.Millisecond {
		return
	}
	p.lastDraw = now
	p.drawn = true
	fmt.Fprintf(p.ios.ErrOut, "\r%s", p.line())
}

func (p *Progress) line() string {
	const width = 30
	filled := 0
	if p.total > 0 {
		filled = p.done * width / p.total
	}
	if filled > width {
		filled = width
	}
	bar := strings.Repeat("=", filled) + strings.Repeat(" ", width-filled)
	if p.bytes {
		const mib = 1 << 20
		n := float64(p.passes) * mib
		return fmt.Sprintf("%s [%s] %.1f/%.1f MiB", p.label, bar, float64(p.done)/n, float64(p.total)/n)
	}
	return fmt.Sprintf("%s [%s] %d/%d", p.label, bar, p.done, p.total)
}

// Done clears the progress line if one was drawn.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintf(p.ios.ErrOut, "\r%s\r", strings.Repeat(" ", len(p.line())))
	}
}
