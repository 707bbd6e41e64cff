// Package input builds the one document every Rego rule reads (documented
// in docs/input.md). It joins what is expensive to join in Rego once, in
// Go: each node's facts and whether its driver image exists in the catalog;
// later stages add per-workload scheduling (internal/input/workload) and
// per-budget arithmetic. The document holds only JSON-shaped values (maps,
// slices, strings, numbers, booleans) so that OPA converts it without
// reflection.
package input

// Version is the schema version of the input document; it changes only
// with a changelog entry.
const Version = 1
