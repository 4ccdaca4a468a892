package jsjson

import (
	"bytes"
	"os"
	"testing"

	gojson "github.com/goccy/go-json"
)

// benchFileLines are the lines of OC_BENCH_FILE (scripts/bench-scan.sh's
// generated transcript, or any), for the file benchmarks below: the
// validating tape against goccy/go-json's validity scan, the baseline
// issue 10 names, on the same bytes.
func benchFileLines(b *testing.B) [][]byte {
	path := os.Getenv("OC_BENCH_FILE")
	if path == "" {
		b.Skip("set OC_BENCH_FILE to a transcript")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	return bytes.Split(data, []byte("\n"))
}

func BenchmarkFileGoccyValid(b *testing.B) {
	lines := benchFileLines(b)
	for b.Loop() {
		for _, l := range lines {
			gojson.Valid(l)
		}
	}
}

func BenchmarkFileValid(b *testing.B) {
	lines := benchFileLines(b)
	for b.Loop() {
		for _, l := range lines {
			Valid(l)
		}
	}
}

func BenchmarkFileTape(b *testing.B) {
	lines := benchFileLines(b)
	tp := Tape{MaxDepth: 4}
	for b.Loop() {
		for _, l := range lines {
			tp.Parse(l)
		}
	}
}

func BenchmarkLongString(b *testing.B) {
	line := []byte(`"` + string(bytes.Repeat([]byte("abcdefgh"), 1<<17)) + `"`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		Valid(line)
	}
}
