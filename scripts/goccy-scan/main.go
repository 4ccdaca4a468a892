// Command goccy-scan is the speed baseline of scripts/bench-scan.sh: a plain
// goccy/go-json validity scan of a JSONL file, line by line, printing the
// count of valid and invalid lines. Issue 10 asks oc's scanner to stay within
// 2x of the time this takes on the same bytes and cores.
//
//	go run ./scripts/goccy-scan FILE
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	json "github.com/goccy/go-json"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goccy-scan FILE")
		os.Exit(2)
	}
	valid, invalid, err := scan(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "goccy-scan:", err)
		os.Exit(3)
	}
	fmt.Printf("%d valid, %d invalid\n", valid, invalid)
}

func scan(path string) (valid, invalid int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// a line longer than the buffer: gather it whole
			long := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			if json.Valid(line) {
				valid++
			} else {
				invalid++
			}
		}
		if err == io.EOF {
			return valid, invalid, nil
		}
		if err != nil {
			return valid, invalid, fmt.Errorf("read %s: %w", path, err)
		}
	}
}
