package inventory

import (
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// mismatch finds the first value in raw that the field it decodes into (of
// type t) cannot take, and says why.
// apimachinery's converter only says "cannot restore struct from: int64";
// this names the field, so the error can name its line.
func mismatch(raw any, t reflect.Type, path []any) ([]any, string) {
	if raw == nil {
		return nil, ""
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if want, custom := customType(t); custom {
		if want == "" {
			return decodes(raw, t, path)
		}
		if accepts(want, raw) {
			return nil, ""
		}
		return path, "want " + want + ", got " + describe(raw)
	}
	want := jsonKind(t)
	if !accepts(want, raw) {
		return path, "want " + want + ", got " + describe(raw)
	}
	switch x := raw.(type) {
	case map[string]any:
		// In key order: of two wrong fields, the same one is named on
		// every run.
		for _, k := range slices.Sorted(maps.Keys(x)) {
			ft, ok := elemOf(t, k)
			if !ok {
				continue // an unknown field is dropped, as the API server does
			}
			if p, w := mismatch(x[k], ft, append(path, k)); p != nil {
				return p, w
			}
		}
	case []any:
		for i, v := range x {
			if p, w := mismatch(v, t.Elem(), append(path, i)); p != nil {
				return p, w
			}
		}
	}
	return nil, ""
}

// decodes tries a type that reads its own JSON (a Quantity, a Time) on
// raw, and says why it refuses.
func decodes(raw any, t reflect.Type, path []any) ([]any, string) {
	data, err := json.Marshal(raw)
	if err == nil {
		err = reflect.New(t).Interface().(json.Unmarshaler).UnmarshalJSON(data)
	}
	if err != nil {
		return path, err.Error()
	}
	return nil, ""
}

// customType reports a type that decodes itself, and the JSON it takes:
// text ("a string") for a TextUnmarshaler, anything ("") for the rest
// (IntOrString, Quantity, Time and RawExtension read several forms).
func customType(t reflect.Type) (string, bool) {
	pt := reflect.PointerTo(t)
	switch {
	case pt.Implements(jsonUnmarshaler):
		return "", true
	case pt.Implements(textUnmarshaler):
		return "a string", true
	}
	return "", false
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a string" // []byte is base64 text
		}
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return ""
}

func accepts(want string, raw any) bool {
	switch raw.(type) {
	case map[string]any:
		return want == "a mapping" || want == ""
	case []any:
		return want == "a list" || want == ""
	case string:
		return want == "a string" || want == ""
	case bool:
		return want == "true or false" || want == ""
	case int64:
		return want == "an integer" || want == "a number" || want == ""
	case float64:
		return want == "a number" || want == ""
	}
	return true
}

// elemOf is the type a key of a mapping of type t decodes into.
func elemOf(t reflect.Type, key string) (reflect.Type, bool) {
	switch t.Kind() {
	case reflect.Map:
		return t.Elem(), true
	case reflect.Struct:
		f, ok := jsonField(t, key)
		return f.Type, ok
	}
	return nil, false
}

// describe names a decoded JSON value for a message.
func describe(v any) string {
	switch x := v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the string %q", x)
	}
	return fmt.Sprintf("%v", v)
}
