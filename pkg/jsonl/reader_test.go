package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readAll(t *testing.T, r *Reader) []Line {
	t.Helper()
	var out []Line
	for {
		l, err := r.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		l.Data = append([]byte(nil), l.Data...)
		out = append(out, l)
	}
}

func TestReaderLinesOffsetsAndTerminators(t *testing.T) {
	in := "a\r\n\nbb\n  \r\nlast"
	lines := readAll(t, NewReaderSize(strings.NewReader(in), 16))
	require.Len(t, lines, 5)
	want := []struct {
		data   string
		term   Terminator
		offset int64
	}{{"a", TermCRLF, 0}, {"", TermLF, 3}, {"bb", TermLF, 4}, {"  ", TermCRLF, 7}, {"last", TermNone, 11}}
	var rebuilt bytes.Buffer
	for i, w := range want {
		assert.Equal(t, int64(i+1), lines[i].Num)
		assert.Equal(t, w.data, string(lines[i].Data))
		assert.Equal(t, w.term, lines[i].Term)
		assert.Equal(t, w.offset, lines[i].Offset)
		rebuilt.Write(lines[i].Data)
		rebuilt.Write(lines[i].Term.Bytes())
	}
	assert.Equal(t, in, rebuilt.String(), "lines and terminators give back the input byte for byte")
	assert.True(t, lines[3].IsBlank())
}

func TestReaderEmptyAndFinalNewline(t *testing.T) {
	assert.Empty(t, readAll(t, NewReader(strings.NewReader(""))))
	lines := readAll(t, NewReader(strings.NewReader("x\n")))
	require.Len(t, lines, 1, "a final newline does not make an empty last line")
	assert.Equal(t, TermLF, lines[0].Term)
}

// A line far larger than the buffer arrives whole, read a byte at a time or
// in big chunks alike.
func TestReaderHugeLine(t *testing.T) {
	huge := bytes.Repeat([]byte("0123456789"), 7<<20/10) // 7 MiB
	in := append(append([]byte("first\n"), huge...), "\nlast\n"...)
	for name, r := range map[string]io.Reader{
		"whole":     bytes.NewReader(in),
		"one byte":  iotest.OneByteReader(bytes.NewReader(in[:len(huge)/64+64])),
		"half read": iotest.HalfReader(bytes.NewReader(in)),
	} {
		lines := readAll(t, NewReaderSize(r, 64))
		if name == "one byte" {
			require.Len(t, lines, 2, name)
			continue
		}
		require.Len(t, lines, 3, name)
		assert.Equal(t, len(huge), len(lines[1].Data), name)
		assert.True(t, bytes.Equal(huge, lines[1].Data), name)
		assert.Equal(t, int64(6+len(huge)+1), lines[2].Offset, name)
	}
}

func TestReaderReportsReadErrorsWithLine(t *testing.T) {
	boom := errors.New("disk on fire")
	r := NewReaderSize(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)), 16)
	l, err := r.Next()
	require.NoError(t, err)
	assert.Equal(t, "a", string(l.Data))
	_, err = r.Next()
	assert.ErrorIs(t, err, boom, "a read error is not mistaken for the end of the file")
	var le *LineError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, int64(2), le.Line)
}

func TestOpenDecompressesByMagic(t *testing.T) {
	dir := t.TempDir()
	content := "{\"type\":\"session\"}\n{\"a\":1}\n"
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	_, _ = gw.Write([]byte(content))
	require.NoError(t, gw.Close())
	zw, err := zstd.NewWriter(&zs)
	require.NoError(t, err)
	_, _ = zw.Write([]byte(content))
	require.NoError(t, zw.Close())
	for name, data := range map[string][]byte{"plain.jsonl": []byte(content), "x.jsonl.gz": gz.Bytes(), "misnamed.jsonl": zs.Bytes()} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		src, err := Open(p, nil)
		require.NoError(t, err)
		got, err := io.ReadAll(src)
		require.NoError(t, err)
		require.NoError(t, src.Close())
		assert.Equal(t, content, string(got), name)
	}
	src, err := Open("-", strings.NewReader(content))
	require.NoError(t, err)
	got, _ := io.ReadAll(src)
	assert.Equal(t, content, string(got))
	assert.Equal(t, "<stdin>", src.Name)

	_, err = Open(dir, nil)
	assert.ErrorContains(t, err, "is a directory")
	_, err = Open(filepath.Join(dir, "missing"), nil)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func BenchmarkReaderValid(b *testing.B) {
	line := []byte(`{"type":"message","id":"0000002a","parentId":"00000029","timestamp":"2026-05-01T00:00:42.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum dolor ", 100) + `"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop"}}` + "\n")
	data := bytes.Repeat(line, 10000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(data))
		for {
			l, err := r.Next()
			if err != nil {
				break
			}
			if !Valid(l.Data) {
				b.Fatal("invalid")
			}
		}
	}
}

// Lines (in memory) and Reader (streaming) agree on every input.
func TestLinesMatchesReader(t *testing.T) {
	for _, in := range []string{"", "a", "a\n", "a\r\n\nbb\n  \r\nlast", "\n\n", "x\ry\n", "{\"a\":1}\r\n"} {
		want := readAll(t, NewReaderSize(strings.NewReader(in), 16))
		var got []Line
		Lines([]byte(in), func(l Line) bool { got = append(got, l); return true })
		require.Len(t, got, len(want), "%q", in)
		for i := range want {
			assert.Equal(t, want[i].Num, got[i].Num, "%q", in)
			assert.Equal(t, want[i].Offset, got[i].Offset, "%q", in)
			assert.Equal(t, want[i].Term, got[i].Term, "%q", in)
			assert.Equal(t, string(want[i].Data), string(got[i].Data), "%q", in)
		}
	}
}

// BenchmarkMembers measures the zero-copy member walk the hot paths use on
// every entry line (after Valid).
func BenchmarkMembers(b *testing.B) {
	line := []byte(`{"type":"message","id":"0000002a","parentId":"00000029","timestamp":"2026-05-01T00:00:42.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum dolor ", 100) + `"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop"}}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		n := 0
		if !Members(line, func(k, v []byte) bool { n++; return true }) || n != 5 {
			b.Fatal("members", n)
		}
	}
}
