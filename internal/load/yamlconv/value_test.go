package yamlconv

import (
	"fmt"
	"strings"
	"testing"

	yaml "sigs.k8s.io/yaml/goyaml.v3"
)

// document converts the one YAML document in text.
func document(t *testing.T, text string) (map[string]any, error) {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil {
		t.Fatal(err)
	}
	m, _, _, err := Document(n.Content[0])
	return m, err
}

func TestAliasesCannotExplode(t *testing.T) {
	in := "kind: X\nmetadata: {name: a}\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		in += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	_, err := document(t, in)
	if err == nil || !strings.Contains(err.Error(), "aliases expand to more than") {
		t.Fatalf("error %v, want the expansion bound", err)
	}
}

func TestMergeKeys(t *testing.T) {
	m, err := document(t, "base: &b {x: 1, y: 2}\nkind: X\nmetadata: {name: a}\nspec:\n  <<: *b\n  y: 3\n")
	if err != nil {
		t.Fatal(err)
	}
	spec := m["spec"].(map[string]any)
	if spec["x"] != int64(1) || spec["y"] != int64(3) {
		t.Fatalf("spec %v, want x=1 y=3", spec)
	}
}

// A key given twice is an error naming both lines: taking the last, as
// many parsers do, would let a later gpu.present: "false" hide a GPU node.
func TestDuplicateKeyIsAnError(t *testing.T) {
	in := "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    nvidia.com/gpu.present: \"true\"\n    nvidia.com/gpu.present: \"false\"\n"
	_, err := document(t, in)
	if err == nil || err.Error() != `7: key "nvidia.com/gpu.present" appears twice in one mapping (first on line 6)` {
		t.Fatalf("error %v", err)
	}
	// A key of its own over one a merge set is how merges are used.
	merged := "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    <<: {a: \"1\", b: \"2\"}\n    a: \"3\"\n"
	m, err := document(t, merged)
	if err != nil {
		t.Fatal(err)
	}
	if l := m["metadata"].(map[string]any)["labels"].(map[string]any); l["a"] != "3" || l["b"] != "2" {
		t.Fatalf("labels %v", l)
	}
}

// A large list without aliases is no alias bomb: kubectl get nodes -o json
// of a fleet of a thousand nodes, with a few hundred values each, reads.
func TestLargeListWithoutAliasesReads(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"apiVersion": "v1", "kind": "List", "items": [`)
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n%d", "labels": {`, i)
		for j := range 300 {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"l%d": "v"`, j)
		}
		b.WriteString(`}}}`)
	}
	b.WriteString(`]}`)
	m, err := document(t, b.String())
	if items, _ := m["items"].([]any); err != nil || len(items) != 1000 {
		t.Fatalf("%d items, %v", len(items), err)
	}
}
