// Package object names a Kubernetes object the one way every stage of
// drvcheck does: the loader records where a Ref was read, the input document
// and the rules carry it as {kind, namespace, name}, exceptions match it and
// every output format prints it with String. Keeping it in one small package
// lets the loader, the rules' findings and the formats share it without
// casts between look-alike types.
package object

// Ref names an object: its kind, namespace ("" for cluster-scoped kinds) and
// name.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String writes the reference as Kind/namespace/name, or Kind/name for a
// cluster-scoped object: the form findings print and config exceptions
// match.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}
