package load

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the parser: it may reject them, but
// only with a one-line error naming the source, and never panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		node("a"),
		"---\n---\n" + node("b") + "---\n",
		"kind: List\nitems:\n- " + strings.ReplaceAll(node("c"), "\n", "\n  "),
		`{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"j"}}]}`,
		"a: &a [1, 2]\nb: *a\nkind: X\nmetadata: {name: m}\n<<: {z: 1}\n",
		"kind: X\nmetadata: {name: n}\nv: 0x1F\nf: 1.5e3\nt: 2001-12-14\nb: !!binary aGVsbG8=\n",
		"kind: [\n",
		"apiVersion: v2\nname: chart\nversion: 0.1.0\n",
		"metadata:\n  name: {{ .Release.Name }}\n  {{- if .x }}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := Parse(&Source{Name: "fuzz.yaml"}, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml:") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error not one line naming the source: %q", err)
			}
			// What a failed file is classified as: never a panic, and a
			// reason on one line.
			if why := NotKubernetes(data); strings.Contains(why, "\n") {
				t.Fatalf("reason on more than one line: %q", why)
			}
			return
		}
		for _, o := range objs {
			if o.Kind == "" || o.Line < 1 {
				t.Fatalf("object without kind or line: %+v", o)
			}
			o.FieldLine([]any{"metadata", "name"})
		}
	})
}
