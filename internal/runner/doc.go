// Package runner is the one visible path of a run, whatever reads the
// objects (Files, Live, FilesWithLiveNodes): compile the rules, read the
// objects, list the tags that exist, read every node's facts once, build
// and convert the input document, evaluate the rules, place every finding
// at its file and line, then hold back the findings that exceptions cover
// and count what is left. Commands call Run and render what it returns; it
// never prints.
package runner
