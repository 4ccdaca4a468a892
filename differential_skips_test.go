package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A test that needs ../shared (the corpus, the stored oracle answers) or an
// oracle must stop through oracletest.Unavailable when they are missing: a
// failure in CI (a differential test that compared nothing must not pass
// there) and a skip listed by scripts/test elsewhere. A bare t.Skip in such a
// test passes in CI without comparing anything and hides from the list.
//
// A test touches ../shared when its function mentions it (the "shared"
// folder, oracletest's corpus and oracle helpers, this repository's wrappers
// of them) or its skip message names the corpus, an oracle or ../shared.
// Opt-in runs skip through oracletest too (RequireLive, NotRequested), so
// that scripts/test lists them; internal/oracletest's own helpers skip only
// in Unavailable and NotRequested.
func TestDifferentialTestsDoNotSkipInCI(t *testing.T) {
	touches := regexp.MustCompile(`"shared"|\b(SharedDir|CorpusDir|sharedDir|Oracle|Oracle96|StoredAnswers|Batch|Batch96|Batch96Env|Transcripts|corpusTranscripts|corpusMatching|oracleImportDir|oracleCron)\(`)
	named := regexp.MustCompile(`(?i)shared|oracle|corpus`)
	files, skips := 0, 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		// internal/oracletest's helpers are part of every differential test.
		helper := filepath.ToSlash(filepath.Dir(path)) == "internal/oracletest"
		if d.IsDir() || !strings.HasSuffix(path, ".go") || !strings.HasSuffix(path, "_test.go") && !helper {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		files++
		text := func(n ast.Node) string {
			return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			body := text(fn.Body)
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Skip" && sel.Sel.Name != "Skipf" && sel.Sel.Name != "SkipNow") {
					return true
				}
				skips++
				msg := ""
				for _, a := range call.Args {
					msg += text(a)
				}
				if helper && !strings.HasSuffix(path, "_test.go") {
					if fn.Name.Name != "Unavailable" && fn.Name.Name != "NotRequested" {
						t.Errorf("%s: %s: %s: oracletest's helpers stop only through Unavailable", fset.Position(call.Pos()), fn.Name.Name, text(call))
					}
					return true
				}
				if touches.MatchString(body) || named.MatchString(msg) {
					t.Errorf("%s: %s: %s skips where ../shared or an oracle is missing: use oracletest.Unavailable (fails in CI, listed by scripts/test)",
						fset.Position(call.Pos()), fn.Name.Name, text(call))
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 || skips == 0 {
		t.Fatalf("%d test files, %d skips seen: the search is broken", files, skips)
	}
}
