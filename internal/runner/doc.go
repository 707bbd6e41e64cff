// Package runner is the one visible path of a run: load the objects, list
// the tags that exist, build the input document, evaluate the rules, place
// every finding at its file and line, then hold back the findings that
// exceptions cover (Except). Commands call it and render what it returns;
// it never prints.
package runner
