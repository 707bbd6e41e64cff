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

// chartDefault is the driver version the chart of release v installs
// when the values set none, and whether drvcheck knows it.
func chartDefault(v Version) (string, bool) {
	d, ok := chartDefaults[v.String()]
	return d, ok
}
