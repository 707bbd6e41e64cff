package operator

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/repofs"
)

// values are the gpu-operator chart's values drvcheck reads.
type values struct {
	Operator struct {
		Version string `json:"version"`
	} `json:"operator"`
	// deployCR, read by the templates' {{ if }} (stacks.go).
	ClusterPolicy struct {
		DeployCR any `json:"deployCR"`
	} `json:"clusterPolicy"`
	GPUCluster struct {
		DeployCR any `json:"deployCR"`
	} `json:"gpuCluster"`
	GDS     *AuxSpec `json:"gds"`
	GDRCopy *AuxSpec `json:"gdrcopy"`
	Driver  struct {
		DriverSpec      `json:",inline"`
		NvidiaDriverCRD struct {
			Enabled         *bool             `json:"enabled"`
			DeployDefaultCR *bool             `json:"deployDefaultCR"`
			NodeSelector    map[string]string `json:"nodeSelector"`
		} `json:"nvidiaDriverCRD"`
	} `json:"driver"`
}

// The chart's image defaults (values.yaml); its version default changes
// with every release, so a values file that leaves it out needs
// --driver-version.
const (
	chartRepository = "nvcr.io/nvidia"
	chartImage      = "driver"
)

// The objects the chart's templates make of the values: the ClusterPolicy
// (deployments/gpu-operator/templates/clusterpolicy.yaml:4) and, with
// nvidiaDriverCRD.enabled and deployDefaultCR, the NVIDIADriver
// (templates/nvidiadriver.yaml:1-5).
var (
	chartClusterPolicy = object.Ref{Kind: "ClusterPolicy", Name: "cluster-policy"}
	chartNVIDIADriver  = object.Ref{Kind: "NVIDIADriver", Name: "default"}
)

// fromValues maps a values file as the chart's templates do: driver.* to
// the ClusterPolicy's spec.driver, or, with nvidiaDriverCRD.enabled, to
// the NVIDIADriver named default the chart deploys. The driver is named
// for that object, as the operator's owner label names it, not for the
// file: two values files of one release configure the same DaemonSet.
func fromValues(fsys *repofs.FS, path string) (*Profile, error) {
	data, err := fsys.ReadGiven(path)
	if err != nil {
		return nil, fmt.Errorf("--operator-values %w", err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("--operator-values %s: not a values file: %v", path, err)
	}
	p, err := fromValueMap(m, chartClusterPolicy, "--operator-values "+path)
	if err != nil {
		return nil, err
	}
	if p.Mode == ModeNVIDIADriver {
		p.Drivers[0].Object = chartNVIDIADriver
	}
	p.From = fromAll("--operator-values " + path)
	return p, nil
}

// fromValueMap is the profile the chart's values m make, typed as the
// chart's templates type them (chartTyped); src names their source in
// findings, where in errors.
func fromValueMap(m map[string]any, src object.Ref, where string) (*Profile, error) {
	if err := chartTyped(m); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	var v values
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: not a values file: %v", where, err)
	}
	s := v.Driver.DriverSpec
	d := Driver{Object: src, Chart: true, Enabled: s.Enabled == nil || *s.Enabled,
		Precompiled: isTrue(s.UsePrecompiled), Repository: s.Repository, Image: s.Image, Version: s.Version,
		Aux: withChartDefaults(auxOf("", s.Manager, v.GDS, v.GDRCopy)), KernelModuleType: s.KernelModuleType, UseOpenKernelModules: isTrue(s.UseOpenKernelModules), RDMA: s.RDMA != nil && isTrue(s.RDMA.Enabled), Spec: m}
	if u := s.UpgradePolicy; u != nil && u.PodDeletion == nil {
		u.PodDeletion = u.GPUPodDeletion // the chart's name, which it maps to podDeletion
	}
	d.Upgrade = ChartPolicy(s.UpgradePolicy, where+" driver.upgradePolicy")
	if d.Repository == "" {
		d.Repository = chartRepository
	}
	if d.Image == "" {
		d.Image = chartImage
	}
	p := &Profile{Mode: ModeClusterPolicy, From: fromAll(d.Owner()), valuesVersion: v.Operator.Version}
	p.ClusterPolicy, p.GPUClusters = chartStacks(v, src)
	if crd := v.Driver.NvidiaDriverCRD; isTrue(crd.Enabled) {
		p.Mode = ModeNVIDIADriver
		d.Default = crd.DeployDefaultCR == nil || *crd.DeployDefaultCR
		d.NodeSelector = crd.NodeSelector
	}
	p.Drivers = []Driver{d}
	return p, nil
}
