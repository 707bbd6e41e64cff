package operator

import (
	"encoding/json"
	"fmt"
	"maps"
	"sync"
)

// What the chart renders: a values file holds only what its author set,
// and the chart fills the rest from its release's values.yaml
// (chartdefaults.json). Two configurations are compared on what the chart
// renders from them, so that a field one side leaves out and the other
// sets to the chart's default is no change, and a default that moved with
// the release (driver.version 535.104.12 at v23.9.0, 550.127.05 at
// v24.9.0) is named as the change it is.

// chartValues are the releases' defaults as values maps, keyed by
// release: the table's driver, gds and gdrcopy sections, read when a
// chart's values are first rendered.
var chartValues = sync.OnceValue(func() map[string]map[string]any {
	var rows []map[string]any
	if err := json.Unmarshal(chartDefaultsJSON, &rows); err != nil {
		panic(fmt.Sprintf("chartdefaults.json: %v", err)) // the same file chartDefaults reads
	}
	out := make(map[string]map[string]any, len(rows))
	for _, r := range rows {
		release, _ := r["release"].(string)
		delete(r, "release")
		delete(r, "source")
		delete(r, "lines")
		out[release] = r
	}
	return out
})

// renderCharts gives each driver the chart's values make its Rendered
// values: the release's defaults with the values over them. Only when the
// release is known: an assumed release's defaults would be a guess.
func (p *Profile) renderCharts() {
	defaults, ok := chartValues()[p.Version.String()]
	if !ok || p.versionAssumed() {
		return
	}
	for i := range p.Drivers {
		if d := &p.Drivers[i]; d.Chart {
			d.Rendered = overlay(defaults, d.Spec)
		}
	}
}

// overlay is base with over laid on it, as Helm merges a release's
// values over the chart's: maps key by key, anything else (a list
// included) replaced whole. Neither argument is changed.
func overlay(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	for k, v := range over {
		bm, bok := out[k].(map[string]any)
		vm, vok := v.(map[string]any)
		if bok && vok {
			out[k] = overlay(bm, vm)
			continue
		}
		out[k] = v
	}
	return out
}
