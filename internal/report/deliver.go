package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/drvcheck/drvcheck/internal/cluster"
	"github.com/drvcheck/drvcheck/internal/pushgateway"
	"github.com/drvcheck/drvcheck/internal/render"
)

// metricsFormat is the one format a failed run still writes.
const metricsFormat = "prometheus"

// Sinks are where a run's report goes besides standard output.
type Sinks struct {
	Targets     []Target
	Pushgateway string
	// Cluster is the cluster of a ConfigMap target.
	Cluster cluster.Options
}

// Deliver sends rep to every sink, files first. A failed run (rep.Run.Error
// set) reaches the metrics and the ConfigMap only, saying so; its other
// reports would read as "no findings".
func (s Sinks) Deliver(ctx context.Context, rep render.Report, opt render.Options) error {
	failed := rep.Run.Error != ""
	for _, t := range s.Targets {
		if t.ConfigMap() || (failed && t.Format != metricsFormat) {
			continue
		}
		err := ReplaceFile(ctx, t.Path, func(w io.Writer) error { return render.Render(w, t.Format, rep, opt) })
		if err != nil {
			return fmt.Errorf("--report %w", err)
		}
	}
	if s.Pushgateway != "" {
		if err := pushgateway.Push(ctx, s.Pushgateway, rendered(metricsFormat, rep, opt)); err != nil {
			return err
		}
	}
	for _, t := range s.Targets {
		if t.ConfigMap() {
			if err := s.writeConfigMap(ctx, t, rep, opt); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s Sinks) writeConfigMap(ctx context.Context, t Target, rep render.Report, opt render.Options) error {
	ns, name, err := t.namespaceName()
	if err != nil {
		return err
	}
	c, err := cluster.Connect(s.Cluster)
	if err != nil {
		return fmt.Errorf("--report configmap=%s: %w", t.Path, err)
	}
	return c.WriteReport(ctx, ns, name, configMapData(rep, opt))
}

// configMapData is the ConfigMap's content: when and how the run ended, its
// metrics, and (when it could judge) the HTML page to look at, the JSON
// report report merge reads and the Markdown summary; what does not fit
// is left out, in that order, and named.
func configMapData(rep render.Report, opt render.Options) map[string]string {
	data := map[string]string{
		"exit-code":    strconv.Itoa(rep.Run.ExitCode),
		"finished":     rep.Run.Finished.UTC().Format(time.RFC3339),
		"metrics.prom": string(rendered(metricsFormat, rep, opt)),
	}
	if rep.Run.Error != "" {
		data["error"] = rep.Run.Error
		return data
	}
	data["summary.md"] = string(rendered("markdown", rep, opt))
	data["report.json"] = string(rendered("json", rep, opt))
	data["report.html"] = string(rendered("html", rep, opt))
	for _, key := range []string{"report.html", "report.json", "summary.md"} {
		if size(data) <= cluster.MaxReport {
			break
		}
		data["omitted"] += fmt.Sprintf("%s (%d bytes) does not fit in a ConfigMap; use --report json=FILE. ", key, len(data[key]))
		delete(data, key)
	}
	return data
}

func size(data map[string]string) int {
	n := 0
	for k, v := range data {
		n += len(k) + len(v)
	}
	return n
}

// rendered is rep in format; the formats write to memory without error.
func rendered(format string, rep render.Report, opt render.Options) []byte {
	var buf bytes.Buffer
	if err := render.Render(&buf, format, rep, opt); err != nil {
		return []byte(err.Error())
	}
	return buf.Bytes()
}
