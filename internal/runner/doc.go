// Package runner is the one visible path of a run: load the objects, list
// the tags that exist, build the input document, evaluate the rules, and
// place every finding at its file and line. Commands call it and render
// what it returns; it never prints.
package runner
