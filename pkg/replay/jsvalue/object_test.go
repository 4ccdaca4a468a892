package jsvalue

import (
	"slices"
	"testing"
)

func memberKeys(o *Object) []string {
	keys := make([]string, 0, o.Len())
	if o == nil {
		return keys
	}
	for _, m := range o.Members {
		keys = append(keys, m.Key)
	}
	return keys
}

// TestObjectPropertyOrder: Set and NewObject give JavaScript's property
// order (array indices ascending first, then insertion order), and the
// copies keep it.
func TestObjectPropertyOrder(t *testing.T) {
	o := NewObject("z", 1, "10", 2, "a", 3, "2", 4, "02", 5, "4294967295", 6, "z", 7)
	if got, want := memberKeys(o), []string{"2", "10", "z", "a", "02", "4294967295"}; !slices.Equal(got, want) {
		t.Errorf("NewObject: keys %q, want %q", got, want)
	}
	if v := o.Get("z"); v != 7 {
		t.Errorf(`Get("z") = %v, want the last value 7`, v)
	}
	c := o.With("1", 8)
	c.Delete("z")
	c.Set("z", 9)
	if got, want := memberKeys(c), []string{"1", "2", "10", "a", "02", "4294967295", "z"}; !slices.Equal(got, want) {
		t.Errorf("With/Delete/Set: keys %q, want %q", got, want)
	}
	if got, want := memberKeys(o), []string{"2", "10", "z", "a", "02", "4294967295"}; !slices.Equal(got, want) {
		t.Errorf("the original changed with its copy: keys %q", got)
	}
	b, err := AppendJS(nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"1":8,"2":4,"10":2,"a":3,"02":5,"4294967295":6,"z":9}`; string(b) != want {
		t.Errorf("AppendJS = %s, want %s", b, want)
	}
}

// TestNilObjectReads: a nil *Object reads as an object without members.
func TestNilObjectReads(t *testing.T) {
	var o *Object
	if _, ok := o.Lookup("a"); ok || o.Get("a") != nil || o.Len() != 0 {
		t.Error("a nil Object has members")
	}
	o.Delete("a")
	if c := o.With("a", 1); c.Len() != 1 || c.Get("a") != 1 {
		t.Errorf("With on nil: %v", c.Members)
	}
}
