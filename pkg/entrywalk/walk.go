// Package entrywalk is the one walk over a transcript entry's JSON that
// every decoder of an entry shares: the members of the entry object and of
// its "message" object, read off the line's tape (jsjson.Tape) where it
// recorded them and from the text where it did not (a line too long for
// the tape's offsets, an object with more members than its node budget).
// The analysis (package transcript) and repair's plan (package repair) keep
// different fields of what it visits; they no longer each walk the tape and
// each fall back to the text in their own way.
package entrywalk

import (
	"github.com/openclaw-tools/oc/internal/jsjson"
	"github.com/openclaw-tools/oc/pkg/jsonl"
)

// A Visitor takes what Walk finds. key is a member's key as JavaScript
// reads it (escapes decoded); value is its value's text, at offset start of
// the entry's; node is the value's node on the tape, or -1 when it was read
// from the text (then nothing below it is on the tape either).
type Visitor interface {
	// Member is one member of the entry object, in order, duplicates
	// included (JSON.parse keeps the last).
	Member(key, value []byte, start, node int)
	// MessageMember is one member of the entry's message: the value of its
	// last "message" member, when that is an object (JSON.parse keeps the
	// last of duplicate keys). It is called after every Member.
	MessageMember(key, value []byte, start, node int)
}

// message is the key whose object MessageMember visits.
const message = "message"

// Walk visits entry b's members and its message's. tp is the tape
// tp.Parse(b) made, or nil to read the text (b must then be valid JSON: it
// is only called on lines that parsed). It reports whether b is a JSON
// object.
func Walk(b []byte, tp *jsjson.Tape, v Visitor) bool {
	if tp == nil || tp.Unrecorded {
		return walkText(b, v) // too long a line for the tape's offsets
	}
	nodes := tp.Nodes
	if len(nodes) == 0 || nodes[0].Kind != '{' {
		return false
	}
	if nodes[0].Flags&jsjson.Pruned != 0 {
		return walkText(b, v) // more members than the tape holds
	}
	msg := -1
	for j := 1; j < int(nodes[0].Next); j = int(nodes[j].Next) {
		n := &nodes[j]
		key := n.KeyText(b)
		v.Member(key, b[n.Start:n.End], int(n.Start), j)
		if string(key) == message {
			msg = j
		}
	}
	if msg < 0 || nodes[msg].Kind != '{' {
		return true
	}
	m := &nodes[msg]
	if m.Flags&jsjson.Pruned != 0 {
		walkMessageText(b, int(m.Start), v)
		return true
	}
	for k := msg + 1; k < int(m.Next); k = int(nodes[k].Next) {
		n := &nodes[k]
		v.MessageMember(n.KeyText(b), b[n.Start:n.End], int(n.Start), k)
	}
	return true
}

// walkText is Walk from the text.
func walkText(b []byte, v Visitor) bool {
	i := jsonl.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	msg := -1
	jsonl.EachMember(b, i, func(m jsonl.Member) bool {
		key := jsonl.KeyText(m.Key)
		v.Member(key, b[m.Start:m.End], m.Start, -1)
		if string(key) == message {
			msg = m.Start
		}
		return true
	})
	if msg >= 0 && b[msg] == '{' {
		walkMessageText(b, msg, v)
	}
	return true
}

// walkMessageText visits the members of the message object at b[start].
func walkMessageText(b []byte, start int, v Visitor) {
	jsonl.EachMember(b, start, func(m jsonl.Member) bool {
		v.MessageMember(jsonl.KeyText(m.Key), b[m.Start:m.End], m.Start, -1)
		return true
	})
}
