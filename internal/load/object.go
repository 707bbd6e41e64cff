package load

import "fmt"

// DefaultNamespace is where objects without a namespace live, as kubectl
// applies them.
const DefaultNamespace = "default"

// Object is one Kubernetes object read from a manifest.
type Object struct {
	APIVersion string
	Kind       string
	Namespace  string // as written; empty for cluster-scoped kinds and for "default"
	Name       string
	Raw        map[string]any

	Source *Source
	Line   int // 1-based line where the object's document (or List item) starts
	Doc    int // index of the document in its source
	Item   int // index in the List's items, or -1

	lines lineIndex // the document's field lines (see FieldLine)
	root  uint64    // path hash of the object inside its document
}

// Source is a file, or standard input, that objects came from.
type Source struct {
	Name string // the path as the user gave it, or "-" for standard input
}

// Ref names an object the way findings do.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// Ref returns the object's reference.
func (o *Object) Ref() Ref { return Ref{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name} }

// Where names the object and where it was read, for error messages.
func (o *Object) Where() string {
	id := o.Kind + " " + o.Name
	if o.Namespace != "" {
		id = o.Kind + " " + o.Namespace + "/" + o.Name
	}
	if o.Source == nil {
		return id
	}
	return fmt.Sprintf("%s (%s:%d)", id, o.Source.Name, o.Line)
}

// Field walks nested maps and returns the value at path, or nil.
func Field(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}
