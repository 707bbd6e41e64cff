package policy

import (
	"reflect"
	"strconv"
	"unsafe"

	"github.com/open-policy-agent/opa/v1/ast"
)

// converter turns the input document's JSON-shaped values into OPA's. The
// input package builds the parts many entries share once (the placement
// of every workload with the same constraints, say) and hands out the same
// map or list; converting each of those once, by identity, is most of what
// makes this faster than ast.InterfaceToValue on a large fleet. OPA values
// are not changed once built, so sharing them is safe.
type converter struct {
	maps  map[unsafe.Pointer]ast.Value
	lists map[listKey]ast.Value
	keys  map[string]*ast.Term // an object's keys, the same few in every entry
}

type listKey struct {
	data *any
	n    int
}

func newConverter() *converter {
	return &converter{maps: map[unsafe.Pointer]ast.Value{}, lists: map[listKey]ast.Value{}, keys: map[string]*ast.Term{}}
}

func (c *converter) value(v any) (ast.Value, error) {
	switch x := v.(type) {
	case nil:
		return ast.Null{}, nil
	case bool:
		return ast.Boolean(x), nil
	case string:
		return ast.String(x), nil
	case int:
		return ast.Number(strconv.Itoa(x)), nil
	case int32:
		return ast.Number(strconv.FormatInt(int64(x), 10)), nil
	case int64:
		return ast.Number(strconv.FormatInt(x, 10)), nil
	case float64:
		return ast.FloatNumberTerm(x).Value, nil
	case map[string]any:
		return c.object(x)
	case []any:
		return c.array(x)
	}
	return ast.InterfaceToValue(v)
}

func (c *converter) object(m map[string]any) (ast.Value, error) {
	id := reflect.ValueOf(m).UnsafePointer()
	if v, ok := c.maps[id]; ok {
		return v, nil
	}
	terms := make([][2]*ast.Term, 0, len(m))
	for k, x := range m {
		v, err := c.value(x)
		if err != nil {
			return nil, err
		}
		terms = append(terms, [2]*ast.Term{c.key(k), ast.NewTerm(v)})
	}
	obj := ast.NewObject(terms...)
	c.maps[id] = obj
	return obj, nil
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

func (c *converter) array(list []any) (ast.Value, error) {
	if len(list) == 0 {
		return ast.NewArray(), nil
	}
	id := listKey{unsafe.SliceData(list), len(list)}
	if v, ok := c.lists[id]; ok {
		return v, nil
	}
	terms := make([]*ast.Term, len(list))
	for i, x := range list {
		v, err := c.value(x)
		if err != nil {
			return nil, err
		}
		terms[i] = ast.NewTerm(v)
	}
	arr := ast.NewArray(terms...)
	c.lists[id] = arr
	return arr, nil
}
