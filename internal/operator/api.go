package operator

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// The GPU Operator's kinds drvcheck reads, with the fields the image needs
// (api/nvidia/v1/clusterpolicy_types.go, api/nvidia/v1alpha1/nvidiadriver_types.go).
const (
	Group                = "nvidia.com"
	ClusterPolicyVersion = "v1"
	NVIDIADriverVersion  = "v1alpha1"
)

// ClusterPolicy is nvidia.com/v1 ClusterPolicy, its driver part.
type ClusterPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Driver DriverSpec `json:"driver"`
	} `json:"spec"`
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
}

// NVIDIADriver is nvidia.com/v1alpha1 NVIDIADriver, its image and scope.
type NVIDIADriver struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		DriverType     string             `json:"driverType,omitempty"`
		UsePrecompiled *bool              `json:"usePrecompiled,omitempty"`
		Repository     string             `json:"repository,omitempty"`
		Image          string             `json:"image,omitempty"`
		Version        string             `json:"version,omitempty"`
		NodeSelector   map[string]string  `json:"nodeSelector,omitempty"`
		Default        bool               `json:"default,omitempty"`
		UpgradePolicy  *UpgradePolicySpec `json:"upgradePolicy,omitempty"`
	} `json:"spec"`
}
