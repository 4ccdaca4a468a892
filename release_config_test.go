package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml this check reads.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		IDs   []string `yaml:"ids"`
		Files []string `yaml:"files"`
	} `yaml:"archives"`
}

// The release config is checked the way `goreleaser check` would catch
// what can go wrong here, without building goreleaser (hundreds of modules,
// too slow for CI on two cores): it is goreleaser's version 2 format with
// no key this check does not know, it releases exactly the six targets CI
// cross-builds (.ci/run), as static binaries, stamping a version variable
// that exists, and every file an archive ships exists.
func TestReleaseConfig(t *testing.T) {
	raw, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 {
		t.Fatalf(".goreleaser.yaml: version %d, want 2 (goreleaser v2's format)", cfg.Version)
	}
	var top map[string]any
	if err := yaml.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	known := []string{"version", "project_name", "before", "builds", "archives", "checksum", "changelog", "release"}
	for k := range top {
		if !slices.Contains(known, k) {
			t.Errorf(".goreleaser.yaml: top-level key %q is not one this check knows; extend the check with what it means", k)
		}
	}
	if len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: %d builds, want 1 (oc)", len(cfg.Builds))
	}
	b := cfg.Builds[0]
	if b.Binary != "oc" || b.Main != "." {
		t.Errorf("build: binary %q main %q, want oc from .", b.Binary, b.Main)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Error("build: CGO_ENABLED=0 missing: oc ships static binaries")
	}

	var released []string
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			released = append(released, goos+"/"+goarch)
		}
	}
	slices.Sort(released)
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`for target in ([a-z0-9/ ]+); do`).FindSubmatch(ci)
	if m == nil {
		t.Fatal(".ci/run: the cross-compile loop (for target in ...; do) is gone; update this check")
	}
	crossBuilt := strings.Fields(string(m[1]))
	slices.Sort(crossBuilt)
	if !slices.Equal(released, crossBuilt) {
		t.Errorf("release targets %v, CI cross-builds %v: they must be the same six", released, crossBuilt)
	}

	stamp := regexp.MustCompile(`-X (\S+)\.(\w+)=`)
	found := false
	for _, fl := range b.Ldflags {
		for _, x := range stamp.FindAllStringSubmatch(fl, -1) {
			pkg, name := strings.TrimPrefix(x[1], "github.com/openclaw-tools/oc/"), x[2]
			src, err := os.ReadFile(filepath.Join(pkg, filepath.Base(pkg)+".go"))
			if err != nil {
				t.Fatalf("ldflags stamp %s.%s: %v", x[1], name, err)
			}
			if !regexp.MustCompile(`(?m)^var ` + name + ` string$`).Match(src) {
				t.Errorf("ldflags stamp %s.%s: no such string variable", x[1], name)
			}
			found = true
		}
	}
	if !found {
		t.Error("build: no -X version stamp in ldflags")
	}

	if len(cfg.Archives) == 0 {
		t.Fatal("no archives")
	}
	for _, a := range cfg.Archives {
		for _, f := range a.Files {
			matches, err := filepath.Glob(f)
			if err != nil || len(matches) == 0 {
				t.Errorf("archive file %q matches nothing", f)
			}
		}
	}
}
