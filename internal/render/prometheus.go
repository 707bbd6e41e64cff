package render

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/drvcheck/drvcheck/policy"
)

// Prometheus prints a run as Prometheus' text exposition format, for
// node_exporter's textfile collector or a Pushgateway: findings by rule and
// severity (every rule of the run, zeros included, so an alert's series
// never vanishes when the fleet heals), GPU nodes by upgrade state, and
// whether the scan could judge at all. A failed run keeps only the last,
// so the last good counts are not mistaken for today's.
func Prometheus(w io.Writer, r Report, opt Options) error {
	m := &metrics{}
	m.gauge("drvcheck_scan_success", "1 when the last run could judge (exit 0 or 1), 0 when it could not (exit 2).")
	m.sample("", boolValue(r.Run.Error == "" && r.Run.ExitCode != 2)) // a fleet with a cluster unread is exit 2
	m.gauge("drvcheck_scan_duration_seconds", "How long the last run took.")
	m.sample("", fmt.Sprintf("%.3f", r.Run.Duration.Seconds()))
	m.gauge("drvcheck_last_run_timestamp_seconds", "When the last run ended, in Unix seconds.")
	m.sample("", fmt.Sprint(r.Run.Finished.Unix()))
	m.gauge("drvcheck_build_info", "drvcheck's version.")
	m.sample(labels("version", opt.Version), "1")
	if r.Run.Error == "" {
		findings(m, r)
		gpuNodes(m, r)
	}
	_, err := io.WriteString(w, m.String())
	return err
}

func findings(m *metrics, r Report) {
	findingCounts(m, r)
	suppressed := map[string]int{}
	for _, rule := range r.Rules {
		suppressed[rule.ID] = 0
	}
	for _, s := range r.Suppressed {
		suppressed[s.Finding.Rule]++
	}
	m.gauge("drvcheck_findings_suppressed", "Findings of the last run held back by an exception, by rule.")
	for _, rule := range slices.Sorted(maps.Keys(suppressed)) {
		m.sample(labels("rule", rule), fmt.Sprint(suppressed[rule]))
	}
	m.gauge("drvcheck_objects_checked", "Objects the last run read.")
	m.sample("", fmt.Sprint(r.Summary.Objects))
	m.gauge("drvcheck_unchecked_objects", "Objects that look like workloads but were not read (a removed apiVersion, a misspelt kind).")
	m.sample("", fmt.Sprint(r.Summary.UncheckedObjects))
	m.gauge("drvcheck_skipped_rules", "Rules that could not judge: what they need is not in the run.")
	m.sample("", fmt.Sprint(r.Summary.SkippedRules))
}

// findingCounts counts the findings by rule and severity, every rule of
// the run at zero included, so that an alert's series never vanishes; in
// a fleet's result by cluster too, each cluster's rules at zero, a
// finding about the fleet (DRV050) with no cluster.
func findingCounts(m *metrics, r Report) {
	type key struct{ cluster, rule, severity string }
	fleet := len(r.Clusters) > 0
	clusters := []string{""}
	if fleet {
		clusters = clusters[:0]
		for _, c := range r.Clusters {
			clusters = append(clusters, c.Name)
		}
	}
	counts := map[key]int{}
	for _, c := range clusters {
		for _, rule := range r.Rules {
			counts[key{c, rule.ID, rule.Severity}] = 0
		}
	}
	for _, f := range r.Findings {
		counts[key{f.Cluster, f.Rule, f.Severity}]++
	}
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b key) int {
		return cmp.Or(strings.Compare(a.cluster, b.cluster), strings.Compare(a.rule, b.rule),
			strings.Compare(severityRank(a.severity), severityRank(b.severity)))
	})
	if !fleet {
		m.gauge("drvcheck_findings", "Findings of the last run by rule and severity, after exceptions.")
		for _, k := range keys {
			m.sample(labels("rule", k.rule, "severity", k.severity), fmt.Sprint(counts[k]))
		}
		return
	}
	m.gauge("drvcheck_findings", "Findings of the last run by cluster, rule and severity, after exceptions.")
	for _, k := range keys {
		m.sample(labels("cluster", k.cluster, "rule", k.rule, "severity", k.severity), fmt.Sprint(counts[k]))
	}
}

func gpuNodes(m *metrics, r Report) {
	m.gauge("drvcheck_gpu_nodes", "GPU nodes by the GPU Operator's upgrade state label (empty: no state).")
	m.sample(labels("upgrade_state", ""), fmt.Sprint(r.Run.UpgradeStates[""]))
	for _, s := range slices.Sorted(maps.Keys(r.Run.UpgradeStates)) {
		if s != "" {
			m.sample(labels("upgrade_state", s), fmt.Sprint(r.Run.UpgradeStates[s]))
		}
	}
}

// severityRank orders error before warning.
func severityRank(s string) string {
	if s == policy.Error {
		return "0"
	}
	return "1" + s
}

func boolValue(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// metrics builds the exposition text: a family's HELP and TYPE, then its
// samples.
type metrics struct {
	strings.Builder
	name string
}

func (m *metrics) gauge(name, help string) {
	m.name = name
	fmt.Fprintf(m, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name)
}

func (m *metrics) sample(labels, value string) {
	fmt.Fprintf(m, "%s%s %s\n", m.name, labels, value)
}

// labels writes {k="v",...}, escaped as the format asks.
func labels(kv ...string) string {
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+`="`+labelEscaper.Replace(printable(kv[i+1]))+`"`)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// labelEscaper escapes the three characters the format escapes in a label
// value, and no other (Go's %q would write escapes it does not know).
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
