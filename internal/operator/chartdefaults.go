package operator

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// chartDefaultsJSON holds, for every release of the gpu-operator chart
// from v23.9.0, the defaults of deployments/gpu-operator/values.yaml at
// the release's tag that feed the driver pod, one object per release in
// release order; each cites its tag's file and the line of each block.
// The file is read from the tags (a YAML parser over the chart's
// values.yaml), not written by hand.
//
//go:embed chartdefaults.json
var chartDefaultsJSON []byte

// ChartDefaults is what the gpu-operator chart of one release gives the
// driver pod when the values leave a setting out. Its keys are the
// chart's own paths, so that values can be read against it path by path:
// driver.upgradePolicy.gpuPodDeletion, which the chart renders as the
// CRD's podDeletion, and driver.nvidiaDriverCRD.enabled, which it renders
// as useNvidiaDriverCRD (NVIDIA/gpu-operator@v26.7.0
// deployments/gpu-operator/templates/clusterpolicy.yaml:152, 237-240).
//
// A key the release's values.yaml lacks is absent from the file and
// zero here: KernelModuleType ("") before v25.3.0; UseOpenKernelModules
// (nil) in v23.9.0, which predates it (values.yaml:132 at v23.9.1 adds
// it), and from v25.3.0, where the chart comments it out as a no-op
// (values.yaml:141-142 at v25.3.0); GDRCopy (nil) before v24.3.0.
type ChartDefaults struct {
	Release string `json:"release"` // v24.3.0
	// Source is the repository@tag and file; Lines maps a block's path
	// (driver, driver.version, driver.upgradePolicy, driver.manager, gds,
	// gdrcopy) to its line there.
	Source  string             `json:"source"`
	Lines   map[string]int     `json:"lines"`
	Driver  DriverDefaults     `json:"driver"`
	GDS     ComponentDefaults  `json:"gds"`
	GDRCopy *ComponentDefaults `json:"gdrcopy,omitempty"`
}

// DriverDefaults is the chart's driver block, as far as it feeds the
// driver pod.
type DriverDefaults struct {
	Enabled         bool `json:"enabled"`
	NvidiaDriverCRD struct {
		Enabled         bool `json:"enabled"`
		DeployDefaultCR bool `json:"deployDefaultCR"`
	} `json:"nvidiaDriverCRD"`
	KernelModuleType     string `json:"kernelModuleType,omitempty"`
	UseOpenKernelModules *bool  `json:"useOpenKernelModules,omitempty"`
	UsePrecompiled       bool   `json:"usePrecompiled"`
	Repository           string `json:"repository"`
	Image                string `json:"image"`
	Version              string `json:"version"`
	RDMA                 struct {
		Enabled      bool `json:"enabled"` // the nvidia-peermem container
		UseHostMofed bool `json:"useHostMofed"`
	} `json:"rdma"`
	UpgradePolicy UpgradeDefaults `json:"upgradePolicy"`
	Manager       ManagerDefaults `json:"manager"`
}

// ImageDefaults is an image's repository, name and version (its tag, or
// the start of it).
type ImageDefaults struct {
	Repository string `json:"repository"`
	Image      string `json:"image"`
	Version    string `json:"version"`
}

// ComponentDefaults is gds or gdrcopy: a container of the driver pod
// when enabled.
type ComponentDefaults struct {
	Enabled bool `json:"enabled"`
	ImageDefaults
}

// ManagerDefaults is driver.manager, the k8s-driver-manager init
// container. Its env lists the chart's variables: six until v25.3.2,
// none from v25.3.3, where the same values moved into the operator's
// DaemonSet asset (NVIDIA/gpu-operator@v25.3.3
// assets/state-driver/0500_daemonset.yaml:60-71, commit 1a1a5a1).
type ManagerDefaults struct {
	ImageDefaults
	Env []EnvVar `json:"env"`
}

// EnvVar is one variable of a container's env.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// UpgradeDefaults is driver.upgradePolicy as the chart writes it.
type UpgradeDefaults struct {
	AutoUpgrade         bool          `json:"autoUpgrade"`
	MaxParallelUpgrades int           `json:"maxParallelUpgrades"`
	MaxUnavailable      string        `json:"maxUnavailable"` // "25%"
	WaitForCompletion   PhaseDefaults `json:"waitForCompletion"`
	GPUPodDeletion      PhaseDefaults `json:"gpuPodDeletion"`
	Drain               PhaseDefaults `json:"drain"`
}

// PhaseDefaults is one phase of the upgrade policy. A field the phase
// has not is zero: waitForCompletion has only timeoutSeconds and
// podSelector, gpuPodDeletion no enable and no podSelector.
type PhaseDefaults struct {
	Enable         bool   `json:"enable"` // drain only
	Force          bool   `json:"force"`
	PodSelector    string `json:"podSelector"`
	TimeoutSeconds int    `json:"timeoutSeconds"`
	DeleteEmptyDir bool   `json:"deleteEmptyDir"`
}

// chartDefaults is the file read once, in release order, when a run first
// needs it (not at every start, a render's child's too). It is part of
// the program, not input: a malformed file is a build mistake that the
// package's tests catch, so reading it panics.
var chartDefaults = sync.OnceValue(readChartDefaults)

func readChartDefaults() []ChartDefaults {
	dec := json.NewDecoder(bytes.NewReader(chartDefaultsJSON))
	dec.DisallowUnknownFields() // a misspelt key would read as the zero value
	var rows []ChartDefaults
	if err := dec.Decode(&rows); err != nil || len(rows) == 0 {
		panic(fmt.Sprintf("chartdefaults.json: %v", err))
	}
	return rows
}

// DefaultsOf is the chart's defaults at release v, and whether drvcheck
// knows them. The result shares its map, slices and pointers with the
// table: read them, never write.
func DefaultsOf(v Version) (ChartDefaults, bool) {
	for _, d := range chartDefaults() {
		if d.Release == v.String() {
			return d, true
		}
	}
	return ChartDefaults{}, false
}

// defaultVersion is the driver version the chart of release v installs
// when the values set none, and whether drvcheck knows it.
func defaultVersion(v Version) (string, bool) {
	d, ok := DefaultsOf(v)
	return d.Driver.Version, ok
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
