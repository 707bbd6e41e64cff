// Package render is where drvcheck prints, for every command. A run's
// findings go out in every output format drvcheck offers: text for people
// (grouped by severity, coloured only on a terminal and never under
// NO_COLOR), json in the shape the README documents, sarif (2.1.0, for code
// scanning), github (workflow commands that annotate pull requests), junit
// (for CI test reports) and markdown (for step summaries and pull-request
// comments); each format is one file, all take the same Report, and
// suppressed findings appear in every one of them. The other commands' own
// outputs (plan, status, verify, audit, tag, input, version) are here too,
// in text and, where scripts read them, json; testdata/ holds their golden
// files.
package render
