package operator

import (
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
	Driver struct {
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

// fromValues maps a values file as the chart's templates do: driver.* to
// the ClusterPolicy's spec.driver, or, with nvidiaDriverCRD.enabled, to
// the NVIDIADriver named default the chart deploys.
func fromValues(fsys *repofs.FS, path string) (*Profile, error) {
	data, err := fsys.ReadGiven(path)
	if err != nil {
		return nil, fmt.Errorf("--operator-values %w", err)
	}
	var v values
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("--operator-values %s: not a values file: %v", path, err)
	}
	s := v.Driver.DriverSpec
	d := Driver{Object: object.Ref{Kind: "Values", Name: path}, Enabled: s.Enabled == nil || *s.Enabled,
		Precompiled: isTrue(s.UsePrecompiled), Repository: s.Repository, Image: s.Image, Version: s.Version}
	if u := s.UpgradePolicy; u != nil && u.PodDeletion == nil {
		u.PodDeletion = u.GPUPodDeletion // the chart's name, which it maps to podDeletion
	}
	d.Upgrade = ChartPolicy(s.UpgradePolicy, "--operator-values "+path+" driver.upgradePolicy")
	if d.Repository == "" {
		d.Repository = chartRepository
	}
	if d.Image == "" {
		d.Image = chartImage
	}
	p := &Profile{Mode: ModeClusterPolicy, From: fromAll(d.Owner()), valuesVersion: v.Operator.Version}
	if crd := v.Driver.NvidiaDriverCRD; isTrue(crd.Enabled) {
		p.Mode = ModeNVIDIADriver
		d.Default = crd.DeployDefaultCR == nil || *crd.DeployDefaultCR
		d.NodeSelector = crd.NodeSelector
	}
	p.Drivers = []Driver{d}
	return p, nil
}
