package fleet

import (
	"fmt"
	"strings"
	"time"
)

// FromReport is the result a run kept in a cluster's report ConfigMap
// (--report configmap=NS/NAME), named name when the run gave itself none,
// and when that run finished. A run that could not scan, or whose report
// did not fit, is an error naming where: merged without it, the fleet
// would read as clean.
func FromReport(data map[string]string, where, name string) (Result, time.Time, error) {
	finished, err := time.Parse(time.RFC3339, data["finished"])
	if err != nil {
		return Result{}, time.Time{}, fmt.Errorf("%s: not a drvcheck report ConfigMap: finished %q is not a time", where, data["finished"])
	}
	switch data["exit-code"] {
	case "0", "1":
	case "2":
		return Result{}, finished, fmt.Errorf("%s: the run of %s could not scan: %s", where, data["finished"], firstLine(data["error"]))
	default:
		return Result{}, finished, fmt.Errorf("%s: not a drvcheck report ConfigMap: exit-code %q", where, data["exit-code"])
	}
	report, ok := data["report.json"]
	if !ok {
		why := "it holds no report.json"
		if data["omitted"] != "" {
			why = firstLine(data["omitted"])
		}
		return Result{}, finished, fmt.Errorf("%s: the run of %s: %s", where, data["finished"], why)
	}
	r, err := decode([]byte(report), where)
	if err != nil {
		return Result{}, finished, err
	}
	if r.Cluster == nil {
		r.Cluster = &Cluster{}
	}
	if r.Cluster.Name == "" {
		r.Cluster.Name = name
	}
	return r, finished, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
