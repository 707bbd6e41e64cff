// Package load reads Kubernetes objects from files, folders and standard
// input: YAML (multi-document, empty documents, a trailing "---") and JSON,
// with "kind: List" and typed lists such as NodeList expanded into their items.
// Every object remembers the file and the line its document starts on, and
// Locate finds the line of any field inside it later, by parsing the file
// again, so that no YAML tree has to stay in memory for the whole run.
// Files are parsed by a pool of workers; the order of the result is the order
// of the files and of the documents inside them, whatever the scheduling.
package load
