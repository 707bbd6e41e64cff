package policy

import (
	"encoding/binary"
	"reflect"
	"slices"
	"unsafe"

	"github.com/open-policy-agent/opa/v1/ast"
)

// converter turns the input document's JSON-shaped values into OPA's.
// Two kinds of sharing make it cheaper than ast.InterfaceToValue on a
// large fleet, in time and in what the evaluation keeps live:
//
//   - by identity: the input package builds some parts many entries share
//     once (the placement of every workload with the same constraints) and
//     hands out the same map or list, converted once;
//   - by content: small maps and lists built apart but equal (every
//     workload's placement, CUDA and anti-affinity facts take a handful of
//     values across 60,000 workloads; every node's image of one tag) are
//     converted once, and every equal one gets that value. Without it the
//     conversion built four OPA objects per workload that differed from
//     another's in nothing.
//
// OPA values are not changed once built, so sharing them is safe.
type converter struct {
	maps  map[unsafe.Pointer]shared
	lists map[listKey]shared
	equal map[string]shared    // small values by their content key (intern)
	keys  map[string]*ast.Term // an object's keys, the same few in every entry
	ids   uint64
	buf   []byte
	// Scratch space: the keys and values of the maps being converted, as
	// stacks (entries), and an object's pairs as it is built.
	names []string
	vals  []shared
	pairs [][2]*ast.Term
}

// shared is a converted value's term, and a map's or a list's id: values
// of equal content have one id, so a parent's content key names its
// children by id. Every parent of a shared value holds the one term, as
// OPA's interned terms are held (ast.InternedTerm): a term per use was a
// tenth of what the conversion allocated.
type shared struct {
	term *ast.Term
	id   uint64
}

type listKey struct {
	data *any
	n    int
}

// maxShared is the most keys or items a value may have and be shared by
// content: the equal values are small; a node's labels or a long list are
// unique and would only cost their key.
const maxShared = 32

func newConverter() *converter {
	return &converter{maps: map[unsafe.Pointer]shared{}, lists: map[listKey]shared{}, equal: map[string]shared{}, keys: map[string]*ast.Term{}}
}

// value is v's value. When v is a list (a section of entries, or a chunk
// of one), its entries are not shared by content: each names its own
// object, so none equals another, and keying 60,000 of them cost a third
// of the conversion. What they hold is shared.
func (c *converter) value(v any) (ast.Value, error) {
	list, ok := v.([]any)
	if !ok {
		s, err := c.convert(v)
		if err != nil {
			return nil, err
		}
		return s.term.Value, nil
	}
	terms := make([]*ast.Term, len(list))
	for i, x := range list {
		var s shared
		var err error
		if m, ok := x.(map[string]any); ok {
			s, err = c.object(m, false)
		} else {
			s, err = c.convert(x)
		}
		if err != nil {
			return nil, err
		}
		terms[i] = s.term
	}
	return ast.NewArray(terms...), nil
}

// convert is v's value, with an id when it is a map or a list.
func (c *converter) convert(v any) (shared, error) {
	switch x := v.(type) {
	case nil:
		return shared{term: ast.InternedNullTerm}, nil
	case bool:
		return shared{term: ast.InternedTerm(x)}, nil
	case string:
		return shared{term: ast.InternedTerm(x)}, nil
	case int:
		return shared{term: ast.InternedTerm(x)}, nil
	case int32:
		return shared{term: ast.InternedTerm(x)}, nil
	case int64:
		return shared{term: ast.InternedTerm(x)}, nil
	case float64:
		return shared{term: ast.FloatNumberTerm(x)}, nil
	case map[string]any:
		return c.object(x, true)
	case []any:
		return c.array(x)
	}
	val, err := ast.InterfaceToValue(v)
	return shared{term: ast.NewTerm(val), id: c.newID()}, err // never equal to another
}

func (c *converter) newID() uint64 {
	c.ids++
	return c.ids
}

// object is m's value. share says whether m's value may be shared: given
// again for m (by identity), or for an equal map (by content, when small).
// A list's entries are not (value): each is met once and equals no other,
// and recording 60,000 of them only grew the maps.
func (c *converter) object(m map[string]any, share bool) (shared, error) {
	id := reflect.ValueOf(m).UnsafePointer()
	if share {
		if s, ok := c.maps[id]; ok {
			return s, nil
		}
	}
	small := share && len(m) <= maxShared
	names, values, err := c.entries(m, small)
	defer c.pop(len(c.names)-len(names), len(c.vals)-len(values))
	if err != nil {
		return shared{}, err
	}
	s := c.intern(small, func(key []byte) []byte {
		key = append(key, '{')
		for i, k := range names {
			key = appendString(key, k)
			key = appendValue(key, values[i])
		}
		return key
	}, func() ast.Value {
		// NewObject copies the pairs: one scratch slice serves them all.
		c.pairs = c.pairs[:0]
		for i, k := range names {
			c.pairs = append(c.pairs, [2]*ast.Term{c.key(k), values[i].term})
		}
		return ast.NewObject(c.pairs...)
	})
	if share {
		c.maps[id] = s
	}
	return s, nil
}

// entries converts m's values, its keys sorted when share asks for a
// content key. Keys and values go on the converter's stacks (names,
// vals), which a nested map extends and pops in turn: a slice of each per
// map was a third of what the conversion allocated. The caller pops them
// when done with them.
func (c *converter) entries(m map[string]any, share bool) ([]string, []shared, error) {
	nb, vb := len(c.names), len(c.vals)
	for k := range m {
		c.names = append(c.names, k)
	}
	names := c.names[nb:]
	if share {
		slices.Sort(names) // the content key's order
	}
	for _, k := range names {
		s, err := c.convert(m[k])
		if err != nil {
			return names, c.vals[vb:], err
		}
		c.vals = append(c.vals, s)
	}
	return names, c.vals[vb:], nil
}

// pop drops the stacks back to the lengths a map's entries found them at.
func (c *converter) pop(names, vals int) {
	c.names, c.vals = c.names[:names], c.vals[:vals]
}

// key is the term of an object's key k, made once: the input's 20,000
// workload entries share a few dozen keys, and a term per use was a fifth
// of what the conversion kept.
func (c *converter) key(k string) *ast.Term {
	t, ok := c.keys[k]
	if !ok {
		t = ast.StringTerm(k)
		c.keys[k] = t
	}
	return t
}

func (c *converter) array(list []any) (shared, error) {
	id := listKey{unsafe.SliceData(list), len(list)}
	if len(list) > 0 {
		if s, ok := c.lists[id]; ok {
			return s, nil
		}
	}
	values := make([]shared, len(list))
	for i, x := range list {
		s, err := c.convert(x)
		if err != nil {
			return shared{}, err
		}
		values[i] = s
	}
	s := c.intern(len(list) <= maxShared, func(key []byte) []byte {
		key = append(key, '[')
		for _, v := range values {
			key = appendValue(key, v)
		}
		return key
	}, func() ast.Value {
		terms := make([]*ast.Term, len(values))
		for i, v := range values {
			terms[i] = v.term
		}
		return ast.NewArray(terms...)
	})
	if len(list) > 0 {
		c.lists[id] = s
	}
	return s, nil
}

// intern is the value build makes, or when small (a value too large to
// be shared only gets an id) the one already built of equal content.
func (c *converter) intern(small bool, contentKey func([]byte) []byte, build func() ast.Value) shared {
	if !small {
		return shared{term: ast.NewTerm(build()), id: c.newID()}
	}
	c.buf = contentKey(c.buf[:0])
	if s, ok := c.equal[string(c.buf)]; ok {
		return s
	}
	s := shared{term: ast.NewTerm(build()), id: c.newID()}
	c.equal[string(c.buf)] = s
	return s
}

// appendValue writes a child into a content key: a map or a list by its
// id, a scalar by its type and text, so that no two different values write
// the same bytes.
func appendValue(key []byte, s shared) []byte {
	if s.id != 0 {
		key = append(key, 'p')
		return binary.AppendUvarint(key, s.id)
	}
	switch v := s.term.Value.(type) {
	case ast.Null:
		return append(key, 'n')
	case ast.Boolean:
		if v {
			return append(key, 't')
		}
		return append(key, 'f')
	case ast.String:
		return appendString(append(key, 's'), string(v))
	case ast.Number:
		return appendString(append(key, 'd'), string(v))
	}
	return appendString(append(key, 'u'), s.term.Value.String()) // convert gives ids to all else
}

// appendString writes s with its length first, so that a string cannot
// run into the next.
func appendString(key []byte, s string) []byte {
	key = binary.AppendUvarint(key, uint64(len(s)))
	return append(key, s...)
}
