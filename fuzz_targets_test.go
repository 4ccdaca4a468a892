package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Every fuzz target in the repository is listed in .ci/fuzz-targets with
// its execution budget (CI
// fuzzes exactly that list), and the list names no target that is gone.
func TestEveryFuzzTargetIsInCI(t *testing.T) {
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w*)\(\w+ \*testing\.F\)`)
	// CI bounds each target by a count of executions, not by time: a
	// -fuzztime duration races Go's fuzz coordinator (golang/go#75804,
	// fixed in Go 1.27), which then fails with "context deadline exceeded"
	// and no crasher on a loaded machine.
	execCount := regexp.MustCompile(`^[1-9][0-9]*x$`)
	var inRepo []string
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
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			inRepo = append(inRepo, "./"+filepath.ToSlash(filepath.Dir(path))+" "+string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(".ci", "fuzz-targets"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var listed []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 3 || !execCount.MatchString(fields[2]) {
			t.Errorf(".ci/fuzz-targets: %q: want \"<package dir> <FuzzTarget> <executions>x\"", sc.Text())
			continue
		}
		listed = append(listed, fields[0]+" "+fields[1])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(inRepo)
	sort.Strings(listed)
	if len(inRepo) == 0 {
		t.Fatal("no fuzz targets found in the repository: the search is broken")
	}
	want := map[string]bool{}
	for _, l := range listed {
		want[l] = true
	}
	have := map[string]bool{}
	for _, r := range inRepo {
		have[r] = true
		if !want[r] {
			t.Errorf("fuzz target %s is not in .ci/fuzz-targets", r)
		}
	}
	for _, l := range listed {
		if !have[l] {
			t.Errorf(".ci/fuzz-targets lists %s, which is not in the repository", l)
		}
	}
}
