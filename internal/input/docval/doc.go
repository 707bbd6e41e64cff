// Package docval writes the values every section of the input document
// shares the form of: a field inside an object as a JSON pointer, an
// object's reference, a list of strings. The document's sections are built
// by internal/input and its sub-packages; each value has one form here, so
// that the rules read the same shape wherever it comes from.
package docval
