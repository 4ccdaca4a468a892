// Command gen-docs writes oc's man pages (man/man1) and shell completions
// (completions/) below -dir from oc's command tree: `go generate ./cmd` runs
// it for the repository, and a test fails when the checked-in copies are
// not what it writes. It is a program of its own, not an oc command, so
// that oc does not link the man page renderer.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/openclaw-tools/oc/cmd"
	"github.com/openclaw-tools/oc/internal/cli"
	"github.com/openclaw-tools/oc/internal/gendocs"
)

func main() {
	dir := flag.String("dir", ".", "repository root: man/man1 and completions/ are written below it")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen-docs:", err)
		os.Exit(1)
	}
}

// write generates the man pages and completions below dir. The command
// tree is built with no environment, so that what is written does not
// depend on who runs it.
func write(dir string) error {
	root, _ := cmd.NewRootCmd(cli.System(), func(string) string { return "" })
	return gendocs.Write(root, dir, func(page string) []gendocs.Section {
		var sections []gendocs.Section
		for _, s := range cmd.ManSections(root, page) {
			sections = append(sections, gendocs.Section(s))
		}
		return sections
	})
}
