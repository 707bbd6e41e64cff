// Package yamlconv turns a parsed YAML document into the plain values
// JSON would give (map[string]any, []any, string, int64, float64, bool,
// nil), bounded against alias bombs and strict on duplicate keys, and
// indexes the line of every field while it converts (Lines): internal/load
// finds a finding's line later without a second parse, and no YAML tree
// stays in memory for the run.
package yamlconv
