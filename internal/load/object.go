package load

import (
	"fmt"
	"strings"

	"github.com/drvcheck/drvcheck/internal/load/yamlconv"
	"github.com/drvcheck/drvcheck/internal/object"
)

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
	// Decoded holds what Options.Each made of Raw (the typed API object),
	// so that Raw can be dropped early.
	Decoded any

	gitops map[string]any // Raw of an Argo CD or Flux object, for follow

	Source *Source
	Line   int // 1-based line where the object's document (or List item) starts
	Doc    int // index of the document in its source
	Item   int // index in the List's items, or -1

	lines yamlconv.Lines // the document's field lines (see FieldLine)
	root  uint64         // path hash of the object inside its document
	wide  bool           // its document holds a number beyond 32 bits
}

// Source is a file, or standard input, that objects came from.
type Source struct {
	Name string // the path as the user gave it, or "-" for standard input
	// kustomize marks a folder whose kustomization is built, not walked;
	// chart one whose Helm chart is rendered.
	kustomize, chart bool
	// given marks a file the user named, not one a walk found.
	given bool
}

// GeneratedSuffix ends the name of an object that has only
// metadata.generateName: `cuda-vectoradd-*`.
const GeneratedSuffix = "*"

// Generated says whether o is named by its generateName.
func (o *Object) Generated() bool { return strings.HasSuffix(o.Name, GeneratedSuffix) }

// Ref returns the object's reference.
func (o *Object) Ref() object.Ref {
	return object.Ref{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// Wide reports whether the object's document holds a number beyond 32
// bits: only then need its decoding be checked for a wrapped field.
func (o *Object) Wide() bool { return o.wide }

// Where names the object and where it was read, for error messages.
func (o *Object) Where() string {
	if o.Source == nil {
		return o.Ref().String()
	}
	return fmt.Sprintf("%s (%s:%d)", o.Ref(), o.Source.Name, o.Line)
}

// FieldLine returns the line of the field at path inside o (map keys as
// strings, list indexes as numbers or numeric strings). When the path
// cannot be followed to its end it returns the line of the deepest part
// found, and at least the object's own line.
func (o *Object) FieldLine(path []any) int { return o.lines.Line(o.root, path, o.Line) }
