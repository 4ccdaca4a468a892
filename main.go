// Command oc inspects, repairs and migrates the state an OpenClaw gateway keeps on disk.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/openclaw-tools/oc/cmd"
)

func main() {
	os.Exit(run())
}

// run is oc; with OC_CPUPROFILE=FILE set it also writes a CPU profile of the
// run to FILE, and with OC_MEMPROFILE=FILE a profile of what it allocated
// (both for `go tool pprof`, see scripts/bench-scan.sh).
func run() int {
	if path := os.Getenv("OC_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		defer writeAllocProfile(path)
	}
	if path := os.Getenv("OC_CPUPROFILE"); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oc: OC_CPUPROFILE:", err)
			return 3
		}
		defer stop()
	}
	return cmd.Execute()
}

func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("start profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "oc: OC_CPUPROFILE:", err)
		}
	}, nil
}

// writeAllocProfile writes what the run allocated to path.
func writeAllocProfile(path string) {
	runtime.GC() // the profile counts what was allocated up to the last collection
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oc: OC_MEMPROFILE:", err)
	}
}
