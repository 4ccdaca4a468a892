package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBrowseInTmux runs oc browse in a real 80x24 terminal (a tmux pane),
// types as a person would and reads the screen: it opens, switches panes,
// searches, and quits on q leaving the terminal as it was (alternate
// screen off, the shell's next line printed).
func TestBrowseInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tmux")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("SKIP: tmux is not installed (apt-get install tmux); the key-by-key model tests in pkg/browse still ran")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	dir := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(showcase)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0197e000-5b0e-7c11-8d22-000000000001.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	name := "ocbrowse"
	tm := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	// the oc child of the signal tests runs any command line
	shell := "env OC_DOCTOR_SIGNAL_ARGS='browse\n--state-dir\n" + state + "' TERM=xterm-256color " + exe + " -test.run='^TestDoctorSignalChild$'; echo OC-EXIT=$?; sleep 60"
	tm("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "sh", "-c", shell)
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	screen := func(want string) string {
		t.Helper()
		var s string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			s = tm("capture-pane", "-p", "-t", name)
			if strings.Contains(s, want) {
				return s
			}
		}
		t.Fatalf("the screen never showed %q:\n%s", want, s)
		return s
	}
	s := screen("Branches (2)")
	for _, want := range []string{"oc browse", "Sessions", "showing the active branch", "Findings"} {
		if !strings.Contains(s, want) {
			t.Errorf("first screen lacks %q:\n%s", want, s)
		}
	}
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("a line wider than the terminal: %q", l)
		}
	}
	// a person's pace: a key, a look at the screen
	keys := func(args ...string) {
		tm(append([]string{"send-keys", "-t", name}, args...)...)
		time.Sleep(300 * time.Millisecond)
	}
	keys("Tab")
	keys("/")
	if last := lastLine(tm("capture-pane", "-p", "-t", name)); !strings.HasPrefix(last, "/") {
		t.Errorf("/ does not open the search prompt: %q", last)
	}
	keys("-l", "old archives")
	keys("Enter")
	screen("match 1 of 1 for \"old archives\"")
	if alt := strings.TrimSpace(tm("display-message", "-p", "-t", name, "#{alternate_on}")); alt != "1" {
		t.Errorf("the browser does not use the alternate screen (alternate_on=%s)", alt)
	}
	tm("send-keys", "-t", name, "q")
	s = screen("OC-EXIT=")
	if !strings.Contains(s, "OC-EXIT=0") {
		t.Errorf("q: %s", s)
	}
	if strings.Contains(s, "Sessions") {
		t.Errorf("the browser's screen is left behind after q:\n%s", s)
	}
	if alt := strings.TrimSpace(tm("display-message", "-p", "-t", name, "#{alternate_on}")); alt != "0" {
		t.Errorf("the terminal is left on the alternate screen")
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
