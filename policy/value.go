package policy

import (
	"encoding/binary"
	"reflect"
	"slices"
	"strconv"
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
}

// shared is a converted map or list and its id: values of equal content
// have one id, so a parent's content key names its children by id.
type shared struct {
	val ast.Value
	id  uint64
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
		return s.val, err
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
		terms[i] = ast.NewTerm(s.val)
	}
	return ast.NewArray(terms...), nil
}

// convert is v's value, with an id when it is a map or a list.
func (c *converter) convert(v any) (shared, error) {
	switch x := v.(type) {
	case nil:
		return shared{val: ast.Null{}}, nil
	case bool:
		return shared{val: ast.Boolean(x)}, nil
	case string:
		return shared{val: ast.String(x)}, nil
	case int:
		return shared{val: ast.Number(strconv.Itoa(x))}, nil
	case int32:
		return shared{val: ast.Number(strconv.FormatInt(int64(x), 10))}, nil
	case int64:
		return shared{val: ast.Number(strconv.FormatInt(x, 10))}, nil
	case float64:
		return shared{val: ast.FloatNumberTerm(x).Value}, nil
	case map[string]any:
		return c.object(x, true)
	case []any:
		return c.array(x)
	}
	val, err := ast.InterfaceToValue(v)
	return shared{val: val, id: c.newID()}, err // never equal to another
}

func (c *converter) newID() uint64 {
	c.ids++
	return c.ids
}

// object is m's value; share says whether an equal map's may be given.
func (c *converter) object(m map[string]any, share bool) (shared, error) {
	id := reflect.ValueOf(m).UnsafePointer()
	if s, ok := c.maps[id]; ok {
		return s, nil
	}
	share = share && len(m) <= maxShared
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	if share {
		slices.Sort(names) // the content key's order
	}
	values := make([]shared, len(names))
	for i, k := range names {
		s, err := c.convert(m[k])
		if err != nil {
			return shared{}, err
		}
		values[i] = s
	}
	s := c.intern(share, func(key []byte) []byte {
		key = append(key, '{')
		for i, k := range names {
			key = appendString(key, k)
			key = appendValue(key, values[i])
		}
		return key
	}, func() ast.Value {
		terms := make([][2]*ast.Term, len(names))
		for i, k := range names {
			terms[i] = [2]*ast.Term{c.key(k), ast.NewTerm(values[i].val)}
		}
		return ast.NewObject(terms...)
	})
	c.maps[id] = s
	return s, nil
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
			terms[i] = ast.NewTerm(v.val)
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
		return shared{val: build(), id: c.newID()}
	}
	c.buf = contentKey(c.buf[:0])
	if s, ok := c.equal[string(c.buf)]; ok {
		return s
	}
	s := shared{val: build(), id: c.newID()}
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
	switch v := s.val.(type) {
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
	return appendString(append(key, 'u'), s.val.String()) // convert gives ids to all else
}

// appendString writes s with its length first, so that a string cannot
// run into the next.
func appendString(key []byte, s string) []byte {
	key = binary.AppendUvarint(key, uint64(len(s)))
	return append(key, s...)
}
