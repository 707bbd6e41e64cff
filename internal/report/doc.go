// Package report delivers a run's report where --report and --pushgateway
// send it: files in any output format (each replaced whole, so a textfile
// collector or a reader never sees half of one), a Prometheus Pushgateway,
// and one ConfigMap of the cluster. A run that could not judge (exit 2)
// still reaches the metrics and the ConfigMap, saying so, because "the
// scan failed" is what a nightly job's watcher most needs to see.
package report
