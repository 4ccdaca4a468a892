package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/openclaw-tools/oc/internal/cli"
)

// The README starts with the two commands a newcomer runs on a fresh
// machine: oc on the bundled example state dir, and the tests exactly as CI
// runs them (.ci/run exports its variables, then calls scripts/test; CI=true
// is CI's own switch, which turns a missing ../shared into a failure, so it
// is left out).
func TestReadmeStartsWithTheTwoCommands(t *testing.T) {
	readme := readFile(t, "README.md")
	block := firstCodeBlock(t, readme)
	if len(block) < 2 {
		t.Fatalf("README.md: the first code block has %d commands, want the example and the tests", len(block))
	}
	if got, want := command(block[0]), "go run . inspect --state-dir testdata/example-state"; got != want {
		t.Errorf("README.md: first command is %q, want %q", got, want)
	}
	if st, err := os.Stat("testdata/example-state"); err != nil || !st.IsDir() {
		t.Errorf("the README's example state dir: %v", err)
	}
	if got, want := command(block[1]), ciTestCommand(t); got != want {
		t.Errorf("README.md: the test command is %q, but .ci/run runs %q", got, want)
	}
}

// ciTestCommand is what .ci/run runs for the tests: its exported variables
// (but CI) before the scripts/test line's command.
func ciTestCommand(t *testing.T) string {
	t.Helper()
	var env []string
	run := ""
	sc := bufio.NewScanner(strings.NewReader(readFile(t, ".ci/run")))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "export "); ok && !strings.HasPrefix(v, "CI=") {
			env = append(env, v)
		}
		if strings.HasPrefix(line, "scripts/test") && run == "" {
			run = strings.TrimSpace(strings.SplitN(line, "||", 2)[0])
		}
	}
	if run == "" {
		t.Fatal(".ci/run: no line runs scripts/test")
	}
	return strings.Join(append(env, run), " ")
}

// The README's exit-code table says what `oc help exit-codes` (and the man
// page's EXIT STATUS) says: the same codes with the same names.
func TestReadmeExitCodesMatchHelp(t *testing.T) {
	helpRow := regexp.MustCompile(`(?m)^ {0,3}(\d+) {2,}([A-Z][A-Z_]*) `)
	var help []string
	for _, m := range helpRow.FindAllStringSubmatch(cli.ExitCodesHelp, -1) {
		help = append(help, m[1]+" "+m[2])
	}
	if len(help) < 4 {
		t.Fatalf("found %d codes in oc help exit-codes: %q", len(help), help)
	}
	section := markdownSection(t, readFile(t, "README.md"), "## Exit codes")
	tableRow := regexp.MustCompile(`(?m)^\| (\d+) \| ([A-Z][A-Z_]*) \|`)
	var readme []string
	for _, m := range tableRow.FindAllStringSubmatch(section, -1) {
		readme = append(readme, m[1]+" "+m[2])
	}
	if !slices.Equal(readme, help) {
		t.Errorf("README.md's exit codes %q, oc help exit-codes %q", readme, help)
	}
}

// notYetMerged are docs other branches write, linked from the README and
// docs/README.md before they land. A missing one is allowed; one that
// exists is checked like any other. Empty this list once they are in main.
var notYetMerged = []string{
	"docs/safety.md", "docs/performance.md", "docs/json.md", "docs/install-model.md",
	"docs/ci-gates.md", "docs/reading.md", "docs/replay-fidelity.md",
}

// Every relative link in README.md and docs/*.md names a file that exists,
// and a #fragment names a heading of that file (as GitHub makes anchors).
func TestDocLinksResolve(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, from := range files {
		text := readFile(t, from)
		for _, m := range link.FindAllStringSubmatch(stripCode(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			file := from
			if path != "" {
				file = filepath.Clean(filepath.Join(filepath.Dir(from), path))
			}
			st, err := os.Stat(file)
			if err != nil {
				if slices.Contains(notYetMerged, filepath.ToSlash(file)) {
					continue
				}
				t.Errorf("%s: link %q: %v", from, target, err)
				continue
			}
			checked++
			if frag == "" || st.IsDir() {
				continue
			}
			if !slices.Contains(anchors(readFile(t, file)), frag) {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", from, target, file, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links; the README alone has more", checked)
	}
}

// anchors are the fragment ids GitHub gives a Markdown file's headings:
// lower case, punctuation but '-' and '_' dropped, spaces as '-', a repeat
// numbered.
func anchors(text string) []string {
	var out []string
	seen := map[string]int{}
	for _, line := range strings.Split(stripCode(text), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a = a + "-" + string(rune('0'+n))
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

// stripCode blanks fenced code blocks, whose lines are neither headings nor
// links.
func stripCode(text string) string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstCodeBlock is the lines of the first fenced code block.
func firstCodeBlock(t *testing.T, text string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(text, "```")
	if !ok {
		t.Fatal("no code block")
	}
	_, rest, _ = strings.Cut(rest, "\n")
	body, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("unterminated code block")
	}
	return strings.Split(strings.TrimRight(body, "\n"), "\n")
}

// command is a shell line without its comment.
func command(line string) string {
	cmd, _, _ := strings.Cut(line, "#")
	return strings.TrimSpace(cmd)
}

// markdownSection is the text from the heading to the next heading of the
// same or a higher level.
func markdownSection(t *testing.T, text, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(stripCode(text), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no section %q", heading)
	}
	level := strings.Index(heading, " ")
	end := 0
	for _, l := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(l, "#") && strings.Index(l, " ") <= level {
			return rest[:end]
		}
		end += len(l)
	}
	return rest
}
