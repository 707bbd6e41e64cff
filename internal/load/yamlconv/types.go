package yamlconv

import (
	"reflect"
	"strings"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// typeInfo is what Decode needs of a Go type, found once per type.
type typeInfo struct {
	kind reflect.Kind
	// simple: a string, bool or number (any kind FromUnstructured sets
	// by assignment or conversion, before it looks for a JSON decoder).
	simple bool
	// unmarshaler: the type decodes its own JSON; entry does it as
	// FromUnstructured does.
	unmarshaler bool
	entry       *value.TypeReflectCacheEntry
	stringKey   bool // a map whose keys are strings
	// fields maps a struct's JSON names to where each is set (several
	// places when an embedded struct repeats a name: FromUnstructured
	// sets them all); a nil place is a field Decode cannot set. Nil for a
	// struct whose shape Decode does not take.
	fields map[string][][]int
}

var types sync.Map // reflect.Type → *typeInfo

func infoOf(t reflect.Type) *typeInfo {
	if x, ok := types.Load(t); ok {
		return x.(*typeInfo)
	}
	x, _ := types.LoadOrStore(t, newInfo(t))
	return x.(*typeInfo)
}

func newInfo(t reflect.Type) *typeInfo {
	info := &typeInfo{kind: t.Kind()}
	switch info.kind {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Struct, reflect.Interface:
	default:
		info.simple = true
		return info
	}
	info.entry = value.TypeReflectEntryOf(t)
	info.unmarshaler = info.entry.CanConvertFromUnstructured()
	switch info.kind {
	case reflect.Map:
		info.stringKey = t.Key().Kind() == reflect.String
	case reflect.Struct:
		fields := map[string][][]int{}
		if addFields(fields, t, nil) {
			info.fields = fields
		}
	}
	return info
}

// addFields adds t's fields, below the index prefix, under the names
// FromUnstructured reads them by (pkg/runtime converter.go,
// fieldInfoFromField): the JSON tag's name, else the Go name; an embedded
// field without one is read from the same mapping (on Go before 1.27 a
// tag's ",inline" does not do it, fieldinfo_126.go). It returns false for
// an embedded field other than a plain struct.
func addFields(fields map[string][][]int, t reflect.Type, prefix []int) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		index := append(append([]int(nil), prefix...), i)
		name := jsonName(f)
		if name == "" {
			ft := f.Type
			if ft.Kind() != reflect.Struct || !f.IsExported() || value.TypeReflectEntryOf(ft).CanConvertFromUnstructured() {
				return false
			}
			if !addFields(fields, ft, index) {
				return false
			}
			continue
		}
		if !f.IsExported() {
			index = nil // set by reflection, FromUnstructured would panic
		}
		fields[name] = append(fields[name], index)
	}
	return true
}

func jsonName(f reflect.StructField) string {
	tag, ok := f.Tag.Lookup("json")
	if !ok || tag == "" {
		if f.Anonymous {
			return ""
		}
		return f.Name
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" && !f.Anonymous {
		return f.Name
	}
	return name
}
