// Package pushgateway sends a run's metrics to a Prometheus Pushgateway,
// for the nightly scan of a cluster whose Prometheus cannot scrape a Job
// that has ended. It replaces the metrics of its group (job drvcheck) at
// each push, so a rule that no longer fires reads 0 and not its last
// count.
package pushgateway
