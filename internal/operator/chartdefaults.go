package operator

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
)

// chartDefaultsCSV is the gpu-operator chart's default driver.version at
// each release (deployments/gpu-operator/values.yaml at the release's
// tag; the source column cites the line): what the operator installs when
// the values leave the version out. The defaults of repository, image
// and usePrecompiled (nvcr.io/nvidia, driver, false) are the same at
// every release.
//
//go:embed chartdefaults.csv
var chartDefaultsCSV []byte

// chartDefaults maps a release (v24.3.0) to its default driver version.
var chartDefaults = func() map[string]string {
	rows, err := csv.NewReader(bytes.NewReader(chartDefaultsCSV)).ReadAll()
	if err != nil || len(rows) < 2 {
		panic(fmt.Sprintf("chartdefaults.csv: %v", err)) // embedded: a test reads it
	}
	out := map[string]string{}
	for _, r := range rows[1:] {
		out[r[0]] = r[1]
	}
	return out
}()

// defaultVersion is the driver version the chart of release v installs
// when the values set none, and whether drvcheck knows it.
func defaultVersion(v Version) (string, bool) {
	d, ok := chartDefaults[v.String()]
	return d, ok
}

// fromChartDefaults gives each driver of the chart's values that sets no
// version the chart's default of the operator's release: the chart writes
// it (values.yaml driver.version), and it changes with every release. An
// unknown release, or one only assumed, leaves the image unresolved.
func (p *Profile) fromChartDefaults() {
	for i := range p.Drivers {
		if d := &p.Drivers[i]; d.Chart && d.Version == "" {
			p.chartDefault(d)
		}
	}
}

// chartDefault resolves one such driver.
func (p *Profile) chartDefault(d *Driver) {
	if v, ok := defaultVersion(p.Version); ok && !p.versionAssumed() {
		d.Version, p.From["version"] = v, "the gpu-operator chart's default at "+p.Version.String()
		return
	}
	why := "no input names the operator's release; give --operator-version or --driver-version"
	if !p.versionAssumed() {
		why = fmt.Sprintf("drvcheck knows no default for gpu-operator %s (%s); give --driver-version", p.Version, p.VersionFrom)
	}
	d.Unresolved = fmt.Sprintf("%s sets no driver.version, so the operator installs the chart's default of its release: %s", d.Owner(), why)
}
