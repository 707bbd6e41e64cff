package render

import (
	"encoding/json"
	"fmt"
	"io"
)

// Commands other than check and scan print text for people or json for
// programs; TextOrJSON rejects any other --output for them.
func TextOrJSON(command, format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("%s: --output %s: want text or json", command, format)
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
