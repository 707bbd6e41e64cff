// Package exceptions holds back findings that a person has accepted, and
// says so. An exception comes from the object itself (the annotation
// drvcheck.io/ignore, with drvcheck.io/ignore-reason and optionally
// drvcheck.io/ignore-expires) or from the exceptions: list of .drvcheck.yaml
// (rule, object, reason, optional expires). A suppressed finding is kept,
// with its reason, so that every report counts it; an exception past its date
// stops suppressing, and both the finding's message and the run's list of
// expired exceptions say so. Matching runs after the runner has placed the
// findings, so suppressed findings keep their file and line.
package exceptions
