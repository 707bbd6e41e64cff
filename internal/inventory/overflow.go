package inventory

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

var intOrString = reflect.TypeFor[intstr.IntOrString]()

// overflow finds a number in raw that the field it decodes into (of type
// t) cannot hold. apimachinery's converter narrows an int64 into an int32
// field without a word, so replicas: 4294967300 would read as 4. It walks
// raw along the type, by json names, and returns the path of the first
// such number, or nil.
func overflow(raw any, t reflect.Type, path []any) []any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch x := raw.(type) {
	case map[string]any:
		return overflowMap(x, t, path)
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return nil
		}
		for i, v := range x {
			if p := overflow(v, t.Elem(), append(path, i)); p != nil {
				return p
			}
		}
	case int64, float64:
		if fits(x, t) {
			return nil
		}
		return path
	}
	return nil
}

// overflowMap walks m's keys in order, so that of two numbers too wide
// the same one is named on every run.
func overflowMap(m map[string]any, t reflect.Type, path []any) []any {
	switch t.Kind() {
	case reflect.Map:
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if p := overflow(m[k], t.Elem(), append(path, k)); p != nil {
				return p
			}
		}
	case reflect.Struct:
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if f, ok := jsonField(t, k); ok {
				if p := overflow(m[k], f.Type, append(path, k)); p != nil {
					return p
				}
			}
		}
	}
	return nil
}

// fits reports whether the number n fits a field of type t.
func fits(n any, t reflect.Type) bool {
	v := float64(0)
	switch x := n.(type) {
	case int64:
		v = float64(x)
	case float64:
		v = x
	}
	if t == intOrString {
		return v >= math.MinInt32 && v <= math.MaxInt32
	}
	switch t.Kind() {
	case reflect.Int32:
		return v >= math.MinInt32 && v <= math.MaxInt32
	case reflect.Int16:
		return v >= math.MinInt16 && v <= math.MaxInt16
	case reflect.Int8:
		return v >= math.MinInt8 && v <= math.MaxInt8
	case reflect.Uint32:
		return v >= 0 && v <= math.MaxUint32
	case reflect.Uint16, reflect.Uint8:
		return v >= 0 && v <= math.MaxUint16
	}
	return true
}

// jsonField finds the field of struct t that the json name key decodes
// into, looking into inlined (embedded) structs.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == key {
			return f, true
		}
		if (name == "" && f.Anonymous) || strings.Contains(opts, "inline") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if g, ok := jsonField(ft, key); ok {
					return g, true
				}
			}
		}
	}
	return reflect.StructField{}, false
}
