package transcript

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// Segment is a run of entries with no fork inside: each entry but the last
// has exactly one child. Children are the runs that continue from its last
// entry. Active marks the runs on the active branch.
type Segment struct {
	FirstLine int64      `json:"firstLine"`
	LastLine  int64      `json:"lastLine"`
	FirstID   string     `json:"firstId"`
	LastID    string     `json:"lastId"`
	Entries   int        `json:"entries"`
	Kinds     string     `json:"kinds"` // e.g. "4 user, 5 assistant, 1 compaction"
	Active    bool       `json:"active"`
	Leaf      bool       `json:"leaf,omitempty"` // ends at the active leaf
	Children  []*Segment `json:"children,omitempty"`
}

// OutlineFile reads a transcript and returns its branch structure.
func OutlineFile(path string, stdin io.Reader) ([]*Segment, error) {
	src, err := jsonl.Open(path, stdin)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	ix, err := Scan(src, ScanOptions{})
	if err != nil {
		return nil, atFile(src.Name, err)
	}
	return Outline(ix), nil
}

// Outline groups the tree into segments, roots first in file order.
func Outline(ix *Index) []*Segment {
	t := NewTree(ix)
	children, roots := t.Children()
	active := map[int]bool{}
	for _, i := range t.Path() {
		active[i] = true
	}
	leaf := t.Leaf()
	type job struct {
		start int
		into  *[]*Segment
	}
	var out []*Segment
	var stack []job
	for k := len(roots) - 1; k >= 0; k-- {
		stack = append(stack, job{roots[k], &out})
	}
	visited := make([]bool, len(ix.Nodes))
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visited[j.start] {
			continue
		}
		seg := &Segment{FirstLine: ix.Nodes[j.start].Line, FirstID: ix.Nodes[j.start].ID().String(), Active: active[j.start]}
		kinds := map[string]int{}
		cur := j.start
		for {
			visited[cur] = true
			n := &ix.Nodes[cur]
			seg.Entries++
			seg.LastLine, seg.LastID = n.Line, n.ID().String()
			k := n.Type
			if n.Type == TypeMessage && n.Role() != "" {
				k = n.Role()
			}
			kinds[k]++
			if cur == leaf {
				seg.Leaf = true
			}
			if len(children[cur]) != 1 || visited[children[cur][0]] {
				break
			}
			cur = children[cur][0]
		}
		seg.Kinds = describeKinds(kinds)
		*j.into = append(*j.into, seg)
		kids := children[cur]
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, job{kids[k], &seg.Children})
		}
	}
	return out
}

func describeKinds(kinds map[string]int) string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if kinds[names[i]] != kinds[names[j]] {
			return kinds[names[i]] > kinds[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		label := n
		if label == "" {
			label = "(no type)"
		}
		parts[i] = fmt.Sprintf("%d %s", kinds[n], label)
	}
	return strings.Join(parts, ", ")
}
