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

// A differential test states how many comparisons its inputs call for
// through oracletest.Compared, which fails unless the count is exact and
// records it for scripts/test's total. A test that touches the oracles
// (their answers, ../shared) and instead stops on a minimum of its own
// ("if compared < 30 { t.Fatalf(...) }") passes with fewer comparisons than
// its inputs hold and is left out of the total. A consistency check that
// runs on the oracles' data but compares oc with itself reports through
// oracletest.Checked instead (exact too, totalled apart).
func TestDifferentialCountsGoThroughCompared(t *testing.T) {
	touches := regexp.MustCompile(`"shared"|\b(SharedDir|CorpusDir|sharedDir|Oracle|Oracle96|StoredAnswers|Batch|Batch96|Batch96Env|Fixture96State|Fixtures96|FixtureContexts96|CorpusContexts96|corpusTranscripts|oracleImportDir|oracleCron|loadReproAnswers)\(`)
	countWord := regexp.MustCompile(`(?i)compared|comparisons|checked|too few`)
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != "." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
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
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") || !touches.MatchString(text(fn.Body)) {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				ifs, ok := n.(*ast.IfStmt)
				if !ok || !hasLess(ifs.Cond) {
					return true
				}
				for _, st := range ifs.Body.List {
					es, ok := st.(*ast.ExprStmt)
					if !ok {
						continue
					}
					call, ok := es.X.(*ast.CallExpr)
					if !ok {
						continue
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok || !strings.HasPrefix(sel.Sel.Name, "Fatal") && !strings.HasPrefix(sel.Sel.Name, "Error") {
						continue
					}
					if !countWord.MatchString(text(call)) {
						continue
					}
					t.Errorf("%s: %s: states a minimum of comparisons (%s): report through oracletest.Compared(t, what, n, want) (or Checked, for oc against itself) with the exact number its inputs call for",
						fset.Position(ifs.Pos()), fn.Name.Name, text(ifs.Cond))
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("%d test files seen: the search is broken", files)
	}
}

// hasLess reports whether cond compares with < or <= (a minimum).
func hasLess(cond ast.Expr) bool {
	found := false
	ast.Inspect(cond, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && (b.Op == token.LSS || b.Op == token.LEQ) {
			found = true
		}
		return true
	})
	return found
}
