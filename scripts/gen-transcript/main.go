// Command gen-transcript writes a deterministic synthetic OpenClaw transcript
// (see internal/transcriptgen) for scripts/bench-repair.sh.
//
//	go run ./scripts/gen-transcript -size 100MiB -damage 0.001 -o /tmp/t.jsonl
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/openclaw-tools/oc/internal/transcriptgen"
)

func main() {
	size := flag.String("size", "100MiB", "approximate size (bytes, KiB, MiB)")
	damage := flag.Float64("damage", 0.001, "share of damaged lines")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output file (default stdout)")
	count := flag.Int("count", 0, "write COUNT transcripts into a state dir at -dir instead (agents/main/sessions/<uuid>.jsonl)")
	dir := flag.String("dir", "", "state dir for -count")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-transcript:", err)
		os.Exit(2)
	}
	if *count > 0 {
		sessions := filepath.Join(*dir, "agents", "main", "sessions")
		if err := os.MkdirAll(sessions, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "gen-transcript:", err)
			os.Exit(1)
		}
		for i := 0; i < *count; i++ {
			name := filepath.Join(sessions, fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", i, i))
			f, err := os.Create(name)
			if err == nil {
				_, err = transcriptgen.Write(f, transcriptgen.Options{Size: n, DamageRate: *damage, Seed: *seed + uint64(i)})
				err = errors.Join(err, f.Close())
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "gen-transcript:", err)
				os.Exit(1)
			}
		}
		return
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen-transcript:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	st, err := transcriptgen.Write(w, transcriptgen.Options{Size: n, DamageRate: *damage, Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen-transcript:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "wrote %d bytes, %d lines, %d damaged\n", st.Bytes, st.Lines, st.Damaged)
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suf, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suf) {
			s, mult = strings.TrimSuffix(s, suf), m
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n * mult, err
}
