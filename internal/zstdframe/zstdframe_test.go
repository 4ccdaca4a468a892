package zstdframe

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A frame decodes to exactly what it says, and a bomb is small.
func TestBombDecodes(t *testing.T) {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, c := range []struct {
		prefix, suffix string
		n              int64
	}{{"", "", 0}, {`{"a":"`, `"}`, 5}, {"x", "", maxBlock + 3}, {"", "y", 3 * maxBlock}} {
		got, err := dec.DecodeAll(Bomb([]byte(c.prefix), 'a', c.n, []byte(c.suffix)), nil)
		want := c.prefix + string(bytes.Repeat([]byte("a"), int(c.n))) + c.suffix
		if err != nil || string(got) != want {
			t.Errorf("%+v: %d bytes, %v; want %d", c, len(got), err, len(want))
		}
	}
	big := Bomb(nil, ' ', 1<<30, nil)
	if len(big) > 40<<10 {
		t.Fatalf("a 1 GiB bomb is %d bytes", len(big))
	}
	if err := dec.Reset(bytes.NewReader(big)); err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, dec)
	if err != nil || n != 1<<30 {
		t.Fatalf("1 GiB bomb: %d bytes, %v", n, err)
	}
}
