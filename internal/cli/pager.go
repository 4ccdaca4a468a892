package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// Pager is a running pager that output goes through, as git runs one:
// $PAGER (default "less -R") through the shell, with LESS=FRX when LESS is
// not set (quit when the text fits on one screen, keep colours, leave the
// text on the screen). Close waits for the pager to end.
type Pager struct {
	cmd *exec.Cmd
	w   io.WriteCloser
}

// PagerCommand is the pager to run for env (nil: none, when PAGER is
// empty-but-set or "cat").
func PagerCommand(env func(string) string) []string {
	p, set := env("PAGER"), env("PAGER") != ""
	if !set {
		p = "less -R"
	}
	p = strings.TrimSpace(p)
	if p == "" || p == "cat" {
		return nil
	}
	return []string{"/bin/sh", "-c", p}
}

// StartPager starts the pager writing to out (the terminal). It returns
// nil and no error when env names no pager.
func StartPager(env func(string) string, out, errOut io.Writer) (*Pager, error) {
	argv := PagerCommand(env)
	if argv == nil {
		return nil, nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, errOut
	less, lv := env("LESS"), env("LV")
	if less == "" {
		less = "FRX"
	}
	if lv == "" {
		lv = "-c"
	}
	cmd.Env = append(os.Environ(), "LESS="+less, "LV="+lv)
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Pager{cmd: cmd, w: w}, nil
}

// Write sends output to the pager.
func (p *Pager) Write(b []byte) (int, error) { return p.w.Write(b) }

// Close ends the pager's input and waits for the reader to quit it.
func (p *Pager) Close() error {
	err := p.w.Close()
	if werr := p.cmd.Wait(); err == nil {
		err = werr
	}
	return err
}

// IsClosedPipe reports whether err is a write to a pager (or a pipe) that
// was quit before the output ended: not a failure of the command.
func IsClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
}
