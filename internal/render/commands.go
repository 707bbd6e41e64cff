package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Commands other than check and scan print text for people or json for
// programs; TextOrJSON rejects any other --output for them.
func TextOrJSON(command, format string) error { return OneOf(command, format, "text", "json") }

// OneOf refuses an output format a command does not print.
func OneOf(command, format string, formats ...string) error {
	if !slices.Contains(formats, format) {
		return fmt.Errorf("%s: --output %s: want %s or %s", command, format, strings.Join(formats[:len(formats)-1], ", "), formats[len(formats)-1])
	}
	return nil
}

// writeJSON prints v as indented JSON, as every json output does.
// writeList writes {"key": list}, an empty list as [] rather than null.
func writeList[T any](w io.Writer, key string, list []T) error {
	if list == nil {
		list = []T{}
	}
	return writeJSON(w, map[string]any{key: list})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
