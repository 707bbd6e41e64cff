package inventory

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/internal/operator"
)

// Inventory is every object of one run.
type Inventory struct {
	Nodes                  []*corev1.Node
	Pods                   []*corev1.Pod
	Deployments            []*appsv1.Deployment
	ReplicaSets            []*appsv1.ReplicaSet
	StatefulSets           []*appsv1.StatefulSet
	DaemonSets             []*appsv1.DaemonSet
	Jobs                   []*batchv1.Job
	CronJobs               []*batchv1.CronJob
	ReplicationControllers []*corev1.ReplicationController
	PDBs                   []*policyv1.PodDisruptionBudget
	Namespaces             []*corev1.Namespace
	// The GPU Operator's configuration, when among the inputs.
	ClusterPolicies []*operator.ClusterPolicy
	NVIDIADrivers   []*operator.NVIDIADriver
	GPUClusters     []*operator.GPUCluster
	// ResourceClaims are the DRA claims pods hold: a pod with an allocated
	// gpu.nvidia.com device is a GPU pod to the GPU Operator.
	ResourceClaims []*resourcev1.ResourceClaim
	// The rest of DRA, for DRV015: claim templates and device classes
	// (from files or a cluster) and the devices nodes publish (a
	// cluster's ResourceSlices).
	ResourceClaimTemplates []*resourcev1.ResourceClaimTemplate
	DeviceClasses          []*resourcev1.DeviceClass
	ResourceSlices         []*resourcev1.ResourceSlice
	// Custom are custom resources with pod templates (GPU workload kinds).
	Custom []*customObject
	// ConfigMaps are a repository's ConfigMaps (configmap.go), or live
	// the ones a ClusterPolicy names, got by name (cluster): the device
	// plugin's sharing config and the custom mig-parted config.
	ConfigMaps []*corev1.ConfigMap

	// Objects counts every object read, including kinds no rule uses.
	Objects int
	// Live is true when the objects came from a cluster: pods and budget
	// status are then the cluster's, not a model of them.
	Live bool
	// Unread are objects that look like kinds drvcheck reads but are not
	// read (a removed apiVersion, a misspelt kind), by kind and version.
	Unread []Unread
	// Notes are what a live read could not get and the run goes on
	// without, each one line (runner.WarnUnread prints them).
	Notes []string
	// SkippedFiles hold no Kubernetes object (Helm values, workflows,
	// templates): they were skipped, not read.
	SkippedFiles []SkippedFile
	// OperatorInstalls are the GitOps objects that install the
	// gpu-operator chart from a chart repository (load.OperatorInstall).
	OperatorInstalls []load.OperatorInstall

	origins  map[object.Ref]*load.Object
	raw      []map[string]any
	extended *extended
}

// SkippedFile is a file read and skipped, and why.
type SkippedFile struct{ Path, Reason string }

// Raw returns every object as read, when the inventory kept them.
func (inv *Inventory) Raw() []map[string]any { return inv.raw }

// AddRaw records an object as read (live mode).
func (inv *Inventory) AddRaw(m map[string]any) { inv.raw = append(inv.raw, m) }

// Origin returns the manifest an object was read from, or nil (live objects).
func (inv *Inventory) Origin(ref object.Ref) *load.Object {
	return inv.origins[ref]
}

// SetOrigin records where an object was read from.
func (inv *Inventory) SetOrigin(o *load.Object) {
	if inv.origins == nil {
		inv.origins = map[object.Ref]*load.Object{}
	}
	inv.origins[o.Ref()] = o
}
