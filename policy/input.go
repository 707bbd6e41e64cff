package policy

import (
	"errors"
	"maps"
	"runtime"
	"slices"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Input is the input document converted for OPA once, so that every rule
// package reads the same value.
type Input struct{ obj ast.Object }

// NewInput converts doc, a JSON-shaped document (maps, slices, strings,
// numbers, booleans), on every CPU: on a large fleet the conversion costs
// as much as evaluating the rules. Each section is converted apart, and
// long lists (workloads, nodes, budgets) in chunks.
func NewInput(doc map[string]any) (*Input, error) {
	in := &Input{obj: ast.NewObject()}
	return in, in.Add(doc)
}

// Add converts the sections of doc and adds them to the input, so that a
// caller can convert one part of the document while it builds another.
func (in *Input) Add(doc map[string]any) error {
	parts := split(doc)
	values := make([]ast.Value, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { values[i], errs[i] = newConverter().value(p.val) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i := 0; i < len(parts); {
		key := parts[i].key
		if !parts[i].list {
			in.obj.Insert(ast.StringTerm(key), ast.NewTerm(values[i]))
			i++
			continue
		}
		var items []*ast.Term
		for ; i < len(parts) && parts[i].key == key; i++ {
			arr := values[i].(*ast.Array)
			for k := range arr.Len() {
				items = append(items, arr.Elem(k))
			}
		}
		in.obj.Insert(ast.StringTerm(key), ast.ArrayTerm(items...))
	}
	return nil
}

// part is one section of the document, or a chunk of a list section.
type part struct {
	key  string
	list bool // a chunk of a list section, converted as an array
	val  any
}

func split(doc map[string]any) []part {
	var parts []part
	chunks := runtime.GOMAXPROCS(0)
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		list, ok := doc[k].([]any)
		if !ok || len(list) == 0 {
			parts = append(parts, part{key: k, val: doc[k]})
			continue
		}
		size := (len(list) + chunks - 1) / chunks
		for start := 0; start < len(list); start += size {
			parts = append(parts, part{key: k, list: true, val: list[start:min(start+size, len(list))]})
		}
	}
	return parts
}
