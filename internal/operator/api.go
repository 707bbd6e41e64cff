package operator

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The GPU Operator's kinds drvcheck reads, with the fields the image needs
// (api/nvidia/v1/clusterpolicy_types.go, api/nvidia/v1alpha1/nvidiadriver_types.go).
const (
	Group                = "nvidia.com"
	ClusterPolicyVersion = "v1"
	NVIDIADriverVersion  = "v1alpha1"
	GPUClusterVersion    = "v1alpha1"
)

// GPUCluster is nvidia.com/v1alpha1 GPUCluster, the DRA stack's
// configuration (api/nvidia/v1alpha1/gpucluster_types.go at v26.7.0). Only
// its being there matters: it may not exist beside a ClusterPolicy.
type GPUCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// ClusterPolicy is nvidia.com/v1 ClusterPolicy, its driver part.
type ClusterPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Driver  DriverSpec `json:"driver"`
		GDS     *AuxSpec   `json:"gds,omitempty"`
		GDRCopy *AuxSpec   `json:"gdrcopy,omitempty"`
	} `json:"spec"`
	// Raw is the whole spec as read: what a change to it does to the
	// driver DaemonSet is judged field by field (internal/operator/change).
	Raw map[string]any `json:"-"`
}

// DriverSpec is ClusterPolicy spec.driver and the chart's driver values.
type DriverSpec struct {
	Enabled            *bool              `json:"enabled,omitempty"`
	UseNvidiaDriverCRD *bool              `json:"useNvidiaDriverCRD,omitempty"`
	UsePrecompiled     *bool              `json:"usePrecompiled,omitempty"`
	Repository         string             `json:"repository,omitempty"`
	Image              string             `json:"image,omitempty"`
	Version            string             `json:"version,omitempty"`
	UpgradePolicy      *UpgradePolicySpec `json:"upgradePolicy,omitempty"`
	KernelModuleType   string             `json:"kernelModuleType,omitempty"`
	// UseOpenKernelModules chose the open modules before v25.3, which
	// replaced it with kernelModuleType (clusterpolicy_types.go:574-579).
	UseOpenKernelModules *bool     `json:"useOpenKernelModules,omitempty"`
	Manager              AuxSpec   `json:"manager"`
	RDMA                 *RDMASpec `json:"rdma,omitempty"`
}

// AuxSpec is an image of the driver pod besides the driver: spec.driver.manager
// (the k8s-driver-manager init container), spec.gds (nvidia-fs) and
// spec.gdrcopy (gdrdrv) (clusterpolicy_types.go:502-529, 1489ff, 1536ff;
// nvidiadriver_types.go:246-272, 314-358, 375-419).
type AuxSpec struct {
	Enabled    *bool  `json:"enabled,omitempty"`
	Repository string `json:"repository,omitempty"`
	Image      string `json:"image,omitempty"`
	Version    string `json:"version,omitempty"`
}

// RDMASpec is spec.driver.rdma: GPUDirect RDMA adds the nvidia-peermem
// container, which runs the driver image itself (object_controls.go:2977-3022).
type RDMASpec struct {
	Enabled      *bool `json:"enabled,omitempty"`
	UseHostMofed *bool `json:"useHostMofed,omitempty"`
}

// NVIDIADriver is nvidia.com/v1alpha1 NVIDIADriver, its image and scope.
type NVIDIADriver struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		DriverType           string             `json:"driverType,omitempty"`
		UsePrecompiled       *bool              `json:"usePrecompiled,omitempty"`
		Repository           string             `json:"repository,omitempty"`
		Image                string             `json:"image,omitempty"`
		Version              string             `json:"version,omitempty"`
		NodeSelector         map[string]string  `json:"nodeSelector,omitempty"`
		Default              bool               `json:"default,omitempty"`
		UpgradePolicy        *UpgradePolicySpec `json:"upgradePolicy,omitempty"`
		KernelModuleType     string             `json:"kernelModuleType,omitempty"`
		UseOpenKernelModules *bool              `json:"useOpenKernelModules,omitempty"`
		Manager              AuxSpec            `json:"manager"`
		GDS                  *AuxSpec           `json:"gds,omitempty"`
		GDRCopy              *AuxSpec           `json:"gdrcopy,omitempty"`
		RDMA                 *RDMASpec          `json:"rdma,omitempty"`
	} `json:"spec"`
	Raw map[string]any `json:"-"`
}

// KeepSpec keeps the whole spec as read (internal/inventory).
func (c *ClusterPolicy) KeepSpec(spec map[string]any) { c.Raw = spec }

// DevicePluginConfig is spec.devicePlugin.config: the ConfigMap of the
// device plugin's configs, and the key of the nodes without a
// nvidia.com/device-plugin.config label (clusterpolicy_types.go's
// DevicePluginConfig). A field that is not a string is an error naming
// the ClusterPolicy: the API server would refuse it.
func (c *ClusterPolicy) DevicePluginConfig() (name, def string, err error) {
	if name, err = c.configField("devicePlugin", "name"); err != nil {
		return "", "", err
	}
	def, err = c.configField("devicePlugin", "default")
	return name, def, err
}

// MIGManagerConfig is spec.migManager.config.name: the custom mig-parted
// ConfigMap the MIG manager applies instead of the operator's default
// (clusterpolicy_types.go's MIGPartedConfigSpec, object_controls.go:
// 2070-2091 at a22dbf671); "" for the default.
func (c *ClusterPolicy) MIGManagerConfig() (string, error) {
	return c.configField("migManager", "name")
}

// configField is spec.<component>.config.<field>, "" when unset.
func (c *ClusterPolicy) configField(component, field string) (string, error) {
	comp, _ := c.Raw[component].(map[string]any)
	cfg, _ := comp["config"].(map[string]any)
	v, ok := cfg[field]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("ClusterPolicy/%s: spec.%s.config.%s must be a string, not %v", c.Name, component, field, v)
	}
	return s, nil
}

// KeepSpec keeps the whole spec as read (internal/inventory).
func (d *NVIDIADriver) KeepSpec(spec map[string]any) { d.Raw = spec }
