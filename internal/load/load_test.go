package load

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func parse(t *testing.T, data string) []*Object {
	t.Helper()
	objs, err := Parse(&Source{Name: "in.yaml"}, []byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return objs
}

func names(objs []*Object) string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Kind+"/"+o.Name)
	}
	return strings.Join(out, " ")
}

func TestMultiDocumentWithEmptyDocumentsAndTrailingSeparator(t *testing.T) {
	objs := parse(t, `---
# a comment-only document
---
apiVersion: v1
kind: Node
metadata: {name: a}
---
---
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: ns
---
`)
	if got := names(objs); got != "Node/a Pod/p" {
		t.Fatalf("objects %q", got)
	}
	if objs[0].Line != 4 || objs[1].Line != 9 {
		t.Fatalf("lines %d %d, want 4 9", objs[0].Line, objs[1].Line)
	}
	if objs[1].Namespace != "ns" || objs[1].Doc != 3 {
		t.Fatalf("namespace %q doc %d", objs[1].Namespace, objs[1].Doc)
	}
}

func TestListAsKubectlWritesIt(t *testing.T) {
	objs := parse(t, `apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: v1
  kind: Node
  metadata: {name: a}
- apiVersion: v1
  kind: Node
  metadata: {name: b}
`)
	if got := names(objs); got != "Node/a Node/b" {
		t.Fatalf("objects %q", got)
	}
	if objs[1].Line != 8 || objs[1].Item != 1 {
		t.Fatalf("item line %d item %d, want 8 1", objs[1].Line, objs[1].Item)
	}
}

func TestTypedListItemsTakeTheListKind(t *testing.T) {
	objs := parse(t, `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"a"}}]}`)
	if len(objs) != 1 || objs[0].Kind != "Node" || objs[0].APIVersion != "v1" {
		t.Fatalf("got %+v", objs)
	}
}

func TestJSONDocument(t *testing.T) {
	objs := parse(t, "{\n \"apiVersion\": \"v1\",\n \"kind\": \"Node\",\n \"metadata\": {\"name\": \"j\", \"labels\": {\"n\": 550}}\n}\n")
	if names(objs) != "Node/j" {
		t.Fatalf("objects %q", names(objs))
	}
	if v := objs[0].Raw["metadata"].(map[string]any)["labels"].(map[string]any)["n"]; v != int64(550) {
		t.Fatalf("number decoded as %T %v, want int64 550", v, v)
	}
}

func TestMalformedInputNamesFileAndLine(t *testing.T) {
	cases := map[string]struct{ in, want string }{
		"syntax":      {"apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n   bad: [\n", "in.yaml:5:"},
		"no kind":     {"apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nmetadata: {name: b}\n", "in.yaml:5: document has no kind"},
		"not a map":   {"- a\n- b\n", "in.yaml:1: document is not a mapping"},
		"no name":     {"apiVersion: v1\nkind: Node\nmetadata: {}\n", "in.yaml:1: Node has no metadata.name"},
		"kind number": {"kind: 5\nmetadata: {name: a}\n", "in.yaml:1: kind is not a string"},
		"list item":   {"kind: List\nitems:\n- 5\n", "in.yaml:3: item 0 of the List is not a mapping"},
		"item kind":   {"kind: List\nitems:\n- metadata: {name: a}\n", "in.yaml:3: document has no kind"},
		"twice":       {"kind: X\nmetadata: {name: a}\nkind: Y\n", `in.yaml:3: key "kind" appears twice`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(&Source{Name: "in.yaml"}, []byte(c.in))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want prefix %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
		})
	}
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func node(name string) string { return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name + "}\n" }

func TestFoldersAreWalkedInOrderSkippingHiddenAndIgnored(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b/2.yml", node("b2"))
	write(t, dir, "a.yaml", node("a"))
	write(t, dir, "b/1.json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"b1"}}`)
	write(t, dir, ".github/workflows/ci.yml", "on: push\n")
	write(t, dir, "notes.txt", "not yaml")
	write(t, dir, "skip/x.yaml", node("x"))
	write(t, dir, "c.tmp.yaml", node("tmp"))
	objs, err := Load(context.Background(), []string{dir}, Options{Ignore: []string{"skip", "*.tmp.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(objs); got != "Node/a Node/b1 Node/b2" {
		t.Fatalf("objects %q", got)
	}
}

func TestStdinAndExplicitFiles(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "manifest.txt", node("file"))
	objs, err := Load(context.Background(), []string{f, "-"}, Options{Stdin: strings.NewReader(node("stdin"))})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(objs); got != "Node/file Node/stdin" || objs[1].Source.Name != "-" {
		t.Fatalf("objects %q", got)
	}
	if _, err := Load(context.Background(), []string{"-", "-"}, Options{Stdin: strings.NewReader("")}); err == nil {
		t.Fatal("reading stdin twice was accepted")
	}
}

func TestMissingPathAndTheFirstBadFileAreErrors(t *testing.T) {
	_, err := Load(context.Background(), []string{"does/not/exist"}, Options{})
	if err == nil || err.Error() != "does/not/exist: no such file or directory" {
		t.Fatalf("error %v", err)
	}
	dir := t.TempDir()
	write(t, dir, "a.yaml", node("a"))
	bad := write(t, dir, "b.yaml", "kind: [\n")
	write(t, dir, "c.yaml", "kind: Node\n")
	_, err = Load(context.Background(), []string{dir}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), bad+":") {
		t.Fatalf("error %v, want it to name %s first", err, bad)
	}
}

func TestFieldLines(t *testing.T) {
	dir := t.TempDir()
	f := write(t, dir, "list.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
    labels:
      app: x
  spec:
    affinity:
      nodeAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - key: a
              operator: In
              values: ["1"]
            - key: b
              operator: Gt
              values: ["x"]
`)
	objs, err := Load(context.Background(), []string{f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := objs[0]
	terms := []any{"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"}
	cases := []struct {
		path []any
		want int
	}{
		{nil, 4},
		{[]any{"metadata", "labels", "app"}, 9},
		{append(terms, 0, "matchExpressions", 1), 19},
		{append(terms, float64(0), "matchExpressions", "1", "operator"), 20},
		{[]any{"metadata", "labels", "missing"}, 8}, // deepest part found
		{[]any{"nothing"}, 4},
		{append(terms, json.Number("0"), "matchExpressions", json.Number("1"), "values", 0), 21},
	}
	for _, c := range cases {
		if got := p.FieldLine(c.path); got != c.want {
			t.Errorf("FieldLine(%v) = %d, want %d", c.path, got, c.want)
		}
	}
}

// A run starts one render child per CPU, and never more than four.
func TestRenderChildrenAreBounded(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for procs, want := range map[int]int{1: 1, 2: 2, 4: 4, 64: 4} {
		runtime.GOMAXPROCS(procs)
		if got := renderChildren(); got != want {
			t.Errorf("%d CPUs: %d children, want %d", procs, got, want)
		}
	}
}
