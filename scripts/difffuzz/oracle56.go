package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// oracle56Cmd is the 2026.5.6 oracle script a run batches its jobs to,
// the environment it needs, and its default jobs per batch process.
type oracle56Cmd struct {
	script string
	env    []string
	chunk  int
}

// oracle56For resolves -oracle56: "stock" is the shared oracle
// (shared/oracle/oracle); "fast" is scripts/difffuzz/oracle56/oracle in
// this repository, which runs the same shared harness on the same install
// with OpenClaw's no-config plugin cache and install-root file reads
// memoised (see oracle56/fast.mjs). The fast one loads the plugins once a
// process (about 30 s of CPU for the 23 routes of -routes all, then well
// under 0.1 s a job), so it batches many more jobs a process.
func oracle56For(kind, shared string) (oracle56Cmd, error) {
	stock := filepath.Join(shared, "oracle")
	switch kind {
	case "stock":
		return oracle56Cmd{script: filepath.Join(stock, "oracle"), chunk: 16}, nil
	case "fast":
		script, err := fastOracleScript()
		if err != nil {
			return oracle56Cmd{}, err
		}
		abs, err := filepath.Abs(stock)
		if err != nil {
			return oracle56Cmd{}, fmt.Errorf("-oracle56 fast: %w", err)
		}
		return oracle56Cmd{script: script, env: []string{"OC_SHARED_ORACLE=" + abs}, chunk: 5000}, nil
	}
	return oracle56Cmd{}, fmt.Errorf("-oracle56 %q: want stock or fast", kind)
}

// fastOracleScript finds scripts/difffuzz/oracle56/oracle in the module
// the working directory is in.
func fastOracleScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("-oracle56 fast: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			script := filepath.Join(dir, "scripts", "difffuzz", "oracle56", "oracle")
			if _, err := os.Stat(script); err != nil {
				return "", fmt.Errorf("-oracle56 fast: %w", err)
			}
			return script, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("-oracle56 fast: no go.mod above the working directory")
		}
		dir = parent
	}
}
