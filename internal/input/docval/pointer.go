package docval

import (
	"fmt"
	"strings"
)

// Pointer renders a path inside an object as a JSON pointer (RFC 6901),
// e.g. /spec/template/spec/containers/0/image: the form of every "field" in
// the document. One string instead of an array of parts keeps the document
// small, and OPA converts it far faster, on fleets of tens of thousands of
// workloads. An empty path is "", the object itself.
func Pointer(path []any) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(escaper.Replace(fmt.Sprint(p)))
	}
	return b.String()
}

var escaper = strings.NewReplacer("~", "~0", "/", "~1")
