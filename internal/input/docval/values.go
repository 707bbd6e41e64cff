package docval

// Ref is an object's reference as the document writes it.
func Ref(kind, namespace, name string) map[string]any {
	return map[string]any{"kind": kind, "namespace": namespace, "name": name}
}

// Strings is ss as the document's list of strings: OPA converts []any
// without reflection.
func Strings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
