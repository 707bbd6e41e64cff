package sched

import (
	"encoding/binary"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// classesFor returns the classes spec is judged on: the fleet's classes,
// split further by what spec reads that the fleet was not built on. Each
// spec pays only for its own keys, and only for the values it names: to a
// spec pinned to node-7 by kubernetes.io/hostname, every other node looks
// the same ("some other hostname"), so 5,000 nodes make two classes, not
// 5,000. Splits are cached by that view.
func (f *Fleet) classesFor(s *corev1.PodSpec) []*Class {
	v := f.keys.viewOf(s)
	if v.empty() {
		return f.Classes
	}
	id := v.id()
	if cs, ok := f.splits[id]; ok {
		return cs
	}
	named := make([][]labelValue, len(v.named))
	for j, nk := range v.named {
		named[j] = f.column(nk.key)
	}
	raw := make([][]labelValue, len(v.raw))
	for j, key := range v.raw {
		raw[j] = f.column(key)
	}
	cs, _ := groupBy(f.all, func(b []byte, i int) []byte {
		b = binary.AppendUvarint(b, uint64(f.classOf[i]))
		for j, nk := range v.named {
			b = named[j][i].appendCode(b, nk.values)
		}
		for j := range v.raw {
			b = raw[j][i].appendCode(b, nil)
		}
		if v.byName {
			b = labelValue{f.all[i].Name, true}.appendCode(b, v.names)
		}
		return b
	})
	f.splits[id] = cs
	return cs
}

// labelValue is one node's value of a label key, if it carries the key.
type labelValue struct {
	value   string
	present bool
}

// column returns every node's value of key, read once per key: splitting
// for a view then reads a slice instead of each node's label map.
func (f *Fleet) column(key string) []labelValue {
	if c, ok := f.columns[key]; ok {
		return c
	}
	c := make([]labelValue, len(f.all))
	for i, n := range f.all {
		c[i].value, c[i].present = n.Labels[key]
	}
	f.columns[key] = c
	return c
}

// appendCode appends what a view can tell of the value: absent ('a'),
// another value than those named ('o'), or the value ('v' value NUL; label
// values hold no NUL). With named nil every value is kept. It allocates
// nothing, as it runs once per node and view.
func (lv labelValue) appendCode(b []byte, named map[string]bool) []byte {
	switch {
	case !lv.present:
		return append(b, 'a')
	case named != nil && !named[lv.value]:
		return append(b, 'o')
	}
	return append(append(append(b, 'v'), lv.value...), 0)
}

// view is how one spec's filters see a node beyond the fleet's keys. A key
// only compared by In, NotIn, Exists, DoesNotExist (or nodeSelector) matters
// only through whether it is present and whether its value is one the spec
// names; a key compared by Gt or Lt matters through its value (raw).
// matchFields compare the node name the same way as In/NotIn.
type view struct {
	named  []namedKey // by key
	raw    []string   // sorted
	names  map[string]bool
	byName bool
}

type namedKey struct {
	key    string
	values map[string]bool
}

// viewOf collects what s reads that k's classes do not already separate.
func (k Keys) viewOf(s *corev1.PodSpec) view {
	named, raw := map[string]map[string]bool{}, map[string]bool{}
	var v view
	name := func(key string, values ...string) {
		if k.Labels[key] {
			return
		}
		if named[key] == nil {
			named[key] = map[string]bool{}
		}
		for _, val := range values {
			named[key][val] = true
		}
	}
	for key, val := range s.NodeSelector {
		name(key, val)
	}
	for _, term := range requiredTerms(s) {
		for _, r := range term.MatchExpressions {
			if (r.Operator == corev1.NodeSelectorOpGt || r.Operator == corev1.NodeSelectorOpLt) && !k.Labels[r.Key] {
				raw[r.Key] = true
			}
			name(r.Key, r.Values...)
		}
		for _, r := range term.MatchFields {
			if k.ByName {
				continue
			}
			v.byName = true
			if v.names == nil {
				v.names = map[string]bool{}
			}
			for _, val := range r.Values {
				v.names[val] = true
			}
		}
	}
	for key := range raw {
		v.raw = append(v.raw, key)
		delete(named, key)
	}
	slices.Sort(v.raw)
	for key, vals := range named {
		v.named = append(v.named, namedKey{key, vals})
	}
	slices.SortFunc(v.named, func(a, b namedKey) int { return strings.Compare(a.key, b.key) })
	return v
}

func (v view) empty() bool { return len(v.named) == 0 && len(v.raw) == 0 && !v.byName }

// id names the view, for caching.
func (v view) id() string {
	var b strings.Builder
	for _, nk := range v.named {
		b.WriteString("n\x00" + nk.key + "\x00" + strings.Join(sortedSet(nk.values), "\x00") + "\x01")
	}
	for _, key := range v.raw {
		b.WriteString("r\x00" + key + "\x01")
	}
	if v.byName {
		b.WriteString("m\x00" + strings.Join(sortedSet(v.names), "\x00"))
	}
	return b.String()
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
