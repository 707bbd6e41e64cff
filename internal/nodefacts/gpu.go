package nodefacts

// The GPU Operator decides which nodes are GPU nodes from the PCI labels
// node-feature-discovery sets, and only then labels them
// nvidia.com/gpu.present=true (NVIDIA/gpu-operator
// controllers/state_manager.go: gpuNodeLabels, hasGPULabels,
// labelGPUNodes). A node that has just joined carries the PCI label and
// not yet gpu.present: it is the node drvcheck exists for, so it is a GPU
// node here too.
var nfdGPULabels = []string{
	"feature.node.kubernetes.io/pci-10de.present",      // NVIDIA's PCI vendor id, any class (NFD before v0.16's class labels)
	"feature.node.kubernetes.io/pci-0302_10de.present", // class 0302, 3D controller: data-center GPUs
	"feature.node.kubernetes.io/pci-0300_10de.present", // class 0300, VGA controller: workstation GPUs
}

// Labels the GPU Operator reads to decide whether a node gets a driver
// pod: the driver DaemonSet selects gpu.deploy.driver=true
// (assets/state-driver/0500_daemonset.yaml), which the operator sets on
// GPU nodes without it and k8s-driver-manager sets to pre-installed on a
// host with its own driver; a node for VMs runs no container driver.
const (
	DeployDriver   = "nvidia.com/gpu.deploy.driver"
	WorkloadConfig = "nvidia.com/gpu.workload.config"
	// DeployOperands=false makes the operator remove every gpu.deploy
	// label, the driver's included (state_manager.go, hasOperandsDisabled
	// and removeAllGPUStateLabels).
	DeployOperands = "nvidia.com/gpu.deploy.operands"
)

// GPUBy says why the node with labels l is a GPU node: the label that
// makes it one (gpu.present, else the first of the NFD PCI labels it
// carries as "true"), or "" when none does.
func GPUBy(l map[string]string) string {
	if l[GPUPresent] == "true" {
		return GPUPresent
	}
	for _, k := range nfdGPULabels {
		if l[k] == "true" {
			return k
		}
	}
	return ""
}

// GPULabels are the labels GPUBy reads, for the classes of alike nodes.
func GPULabels() []string { return append([]string{GPUPresent}, nfdGPULabels...) }

// Unmanaged says why the GPU Operator deploys no driver on the node with
// labels l, whatever its configuration: "" when it does.
func Unmanaged(l map[string]string) string {
	if l[DeployOperands] == "false" {
		return DeployOperands + "=false"
	}
	if v, ok := l[DeployDriver]; ok && v != "true" {
		return DeployDriver + "=" + v
	}
	if w := l[WorkloadConfig]; w == "vm-passthrough" || w == "vm-vgpu" {
		return WorkloadConfig + "=" + w
	}
	return ""
}

// DriverPodLabels says whether a pod (or pod template) with labels l is
// the GPU Operator's driver pod, by the labels the upgrade library selects
// them with (gpu-operator controllers/upgrade_controller.go: app for a
// ClusterPolicy's DaemonSet, app.kubernetes.io/component for an
// NVIDIADriver's).
func DriverPodLabels(l map[string]string) bool {
	return l["app"] == "nvidia-driver-daemonset" || l["app.kubernetes.io/component"] == "nvidia-driver"
}
