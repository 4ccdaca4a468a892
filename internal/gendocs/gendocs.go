// Package gendocs writes oc's man pages and shell completions from its cobra
// command tree, so that the checked-in copies in man/ and completions/ never
// drift from the code (a test regenerates them and compares).
package gendocs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// Section is one extra man-page section: its title (EXIT STATUS,
// ENVIRONMENT, FILES) and its text, printed as it is (no filling).
type Section struct {
	Title, Text string
}

// Write generates man/man1/*.1 and completions/* under dir. sections gives
// each page's extra sections (EXIT STATUS, ENVIRONMENT, FILES), inserted
// before SEE ALSO; page is the command path with dashes ("oc-repair").
func Write(root *cobra.Command, dir string, sections func(page string) []Section) error {
	manDir := filepath.Join(dir, "man", "man1")
	compDir := filepath.Join(dir, "completions")
	for _, d := range []string{manDir, compDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	root.DisableAutoGenTag = true
	// A fixed date, so regenerating gives the same bytes.
	manDate := time.Date(2026, time.November, 30, 0, 0, 0, 0, time.UTC)
	header := &doc.GenManHeader{Title: "OC", Section: "1", Source: "oc", Manual: "oc manual", Date: &manDate}
	if err := doc.GenManTree(root, header, manDir); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	pages, err := filepath.Glob(filepath.Join(manDir, "*.1"))
	if err != nil {
		return err
	}
	for _, p := range pages {
		page := strings.TrimSuffix(filepath.Base(p), ".1")
		if err := addSections(p, sections(page)); err != nil {
			return err
		}
	}
	gens := map[string]func(*bytes.Buffer) error{
		"oc.bash": func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) },
		"_oc":     func(b *bytes.Buffer) error { return root.GenZshCompletion(b) },
		"oc.fish": func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) },
		"oc.ps1":  func(b *bytes.Buffer) error { return root.GenPowerShellCompletionWithDesc(b) },
	}
	for name, gen := range gens {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			return fmt.Errorf("completion %s: %w", name, err)
		}
		if err := os.WriteFile(filepath.Join(compDir, name), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// addSections inserts sections before SEE ALSO, as preformatted text.
func addSections(path string, sections []Section) error {
	if len(sections) == 0 {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var sec strings.Builder
	for _, x := range sections {
		sec.WriteString(".SH " + x.Title + "\n.nf\n")
		for _, line := range strings.Split(x.Text, "\n") {
			line = strings.ReplaceAll(line, `\`, `\\`)
			if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
				line = `\&` + line
			}
			sec.WriteString(line + "\n")
		}
		sec.WriteString(".fi\n\n")
	}
	s := string(data)
	if i := strings.Index(s, ".SH SEE ALSO"); i >= 0 {
		s = s[:i] + sec.String() + s[i:]
	} else {
		s += sec.String()
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
