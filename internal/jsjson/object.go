package jsjson

import (
	"slices"
	"strconv"
)

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Object is a JavaScript object parsed from JSON or built by assignment: its
// members in insertion order. Keys enumerates them as JavaScript does.
type Object struct {
	Members []Member
}

// Get returns the value of key.
func (o *Object) Get(key string) (any, bool) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			return o.Members[i].Value, true
		}
	}
	return nil, false
}

// Set is assignment: an existing key takes the new value in its place, a new
// key goes last.
func (o *Object) Set(key string, v any) {
	for i := range o.Members {
		if o.Members[i].Key == key {
			o.Members[i].Value = v
			return
		}
	}
	o.Members = append(o.Members, Member{Key: key, Value: v})
}

// Delete is the delete operator.
func (o *Object) Delete(key string) {
	o.Members = slices.DeleteFunc(o.Members, func(m Member) bool { return m.Key == key })
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.Members) }

// Keys is Object.keys(o): array-index keys in ascending numeric order, then
// the other keys in insertion order.
func (o *Object) Keys() []string {
	keys := make([]string, 0, len(o.Members))
	var idx []string
	for _, m := range o.Members {
		if IsArrayIndex(m.Key) {
			idx = append(idx, m.Key)
		} else {
			keys = append(keys, m.Key)
		}
	}
	if len(idx) == 0 {
		return keys
	}
	slices.SortFunc(idx, func(a, b string) int {
		x, _ := strconv.ParseUint(a, 10, 32)
		y, _ := strconv.ParseUint(b, 10, 32)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return append(idx, keys...)
}

// IsArrayIndex reports whether key is a canonical array index (0 to
// 2^32-2), which JavaScript enumerates before every other key.
func IsArrayIndex(key string) bool {
	if key == "" || len(key) > 10 || (key[0] == '0' && len(key) > 1) {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n < 1<<32-1
}
