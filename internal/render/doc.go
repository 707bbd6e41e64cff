// Package render prints a run's findings in every output format drvcheck
// offers: text for people (grouped by severity, coloured only on a terminal
// and never under NO_COLOR) and json as the contract fixes it. Each format
// is one file; all take the same Report.
package render
