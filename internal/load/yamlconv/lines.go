package yamlconv

import (
	"encoding/json"
	"hash/maphash"
	"slices"
	"strconv"
)

// Lines maps every field of a document (each mapping key and each list
// item, by the hash of its path) to its line. It is built while the
// document is converted, so finding a field's line later costs a few
// lookups and never a second parse: on a large run where most files hold a
// finding, parsing them again would double the time.
type Lines []lineEntry

type lineEntry struct {
	path uint64
	line int32
}

var pathSeed = maphash.MakeSeed()

// Path hashes chain: a child's hash is computed from its parent's, with a
// tag byte so that the key "1" and the index 1 differ.
func keyHash(parent uint64, key string) uint64 {
	var h maphash.Hash
	h.SetSeed(pathSeed)
	writeUint64(&h, parent)
	h.WriteByte('k')
	h.WriteString(key)
	return h.Sum64()
}

func indexHash(parent uint64, i int) uint64 {
	var h maphash.Hash
	h.SetSeed(pathSeed)
	writeUint64(&h, parent)
	h.WriteByte('i')
	writeUint64(&h, uint64(i))
	return h.Sum64()
}

func writeUint64(h *maphash.Hash, v uint64) {
	var b [8]byte
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	h.Write(b[:])
}

func (x *Lines) add(path uint64, line int) {
	*x = append(*x, lineEntry{path: path, line: int32(line)})
}

// sort orders the index by path, stably: a path a merge key gives two
// lines keeps the first added, on every run and on either way of reading.
func (x Lines) sort() {
	slices.SortStableFunc(x, func(a, b lineEntry) int {
		switch {
		case a.path < b.path:
			return -1
		case a.path > b.path:
			return 1
		}
		return 0
	})
}

func (x Lines) lookup(path uint64) (int, bool) {
	i, ok := slices.BinarySearchFunc(x, path, func(e lineEntry, p uint64) int {
		switch {
		case e.path < p:
			return -1
		case e.path > p:
			return 1
		}
		return 0
	})
	if !ok {
		return 0, false
	}
	return int(x[i].line), true
}

// ItemRoot is the path of item i of a List document: the root of the
// object it holds.
func ItemRoot(i int) uint64 { return indexHash(keyHash(0, "items"), i) }

// Line returns the line of the field at path below the one at root (map
// keys as strings, list indexes as numbers or numeric strings). When the
// path cannot be followed to its end it returns the line of the deepest
// part found, and line when not even its first part is.
func (x Lines) Line(root uint64, path []any, line int) int {
	if x == nil {
		return line
	}
	h := root
	for _, p := range path {
		next, at, ok := x.step(h, p)
		if !ok {
			break
		}
		h, line = next, at
	}
	return line
}

func (x Lines) step(h uint64, p any) (uint64, int, bool) {
	if key, ok := p.(string); ok {
		k := keyHash(h, key)
		if line, found := x.lookup(k); found {
			return k, line, true
		}
	}
	if i, ok := index(p); ok {
		k := indexHash(h, i)
		if line, found := x.lookup(k); found {
			return k, line, true
		}
	}
	return 0, 0, false
}

func index(p any) (int, bool) {
	switch v := p.(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	case json.Number: // how list indexes come back from Rego
		i, err := v.Int64()
		return int(i), err == nil
	case string:
		i, err := strconv.Atoi(v)
		return i, err == nil
	}
	return 0, false
}
