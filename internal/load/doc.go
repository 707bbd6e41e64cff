// Package load reads Kubernetes objects from files, folders and standard
// input: YAML (multi-document, empty documents, a trailing "---") and JSON,
// with "kind: List" and typed lists such as NodeList expanded into their items.
// Every object remembers the file and the line its document starts on, and
// an index of the line of every field, built while the document is
// converted (internal/load/yamlconv): Object.FieldLine finds a finding's
// line later without a second parse, and no YAML tree stays in memory for
// the run. When Options.Typed names an API type for a file's object, the
// object is decoded straight into it (typed.go) and has no plain values.
// Files are parsed by a pool of workers; the order of the result is the order
// of the files and of the documents inside them, whatever the scheduling.
// A folder with a kustomization is built, and one with a Helm chart
// rendered, in the sandbox (internal/load/renderer); the objects are parsed
// back here, a kustomization's placed at their source files' lines
// (kustomize.go). A file that holds no Kubernetes object (a Helm values
// file, a workflow) is told apart from a broken manifest (nonkube.go).
package load
