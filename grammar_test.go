package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Messages oc writes say "1 message" and "2 messages", never "message(s)":
// no string literal in the code of replay's --explain, repair's plans and
// undo, or cmd's output has a "(s)" plural. OpenClaw's own wire text is
// copied as OpenClaw sends it and stays ("Attached image(s) from tool
// result:" is part of the request body oc must reproduce byte for byte, as
// are 2026.9.6's "Image(s) from tool result #1 (read):" labels).
func TestNoParenthesisedPlurals(t *testing.T) {
	wireText := map[string]bool{
		`"Attached image(s) from tool result:"`: true,
		`"Image(s) from tool result #%d:"`:      true,
		`"Image(s) from tool result #%d (%s):"`: true,
	}
	plural := regexp.MustCompile(`\w\(s\)`)
	files := 0
	for _, root := range []string{"pkg/replay", "pkg/repair", "cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			files++
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if ok && lit.Kind == token.STRING && plural.MatchString(lit.Value) && !wireText[lit.Value] {
					t.Errorf("%s: %s: say the count's noun in the right number (one/many), not \"(s)\"", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Fatalf("only %d source files read: the search is broken", files)
	}
}
