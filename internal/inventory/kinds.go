package inventory

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/drvcheck/drvcheck/internal/operator"
)

// Kind is one kind drvcheck reads, and everything the rest of drvcheck
// needs to know about it: how files name it, how the API serves it, where
// its pod templates sit and how many pods each makes. Kinds is the one
// list of them: file decoding, live listing, deploy/rbac.yaml (a test
// keeps it in step) and the kinds table of docs/input.md (generated) all
// read it, so that a kind is added in one place.
type Kind struct {
	Group, Version string // Version "" is the version the API prefers (custom resources)
	Name           string // the object's kind, e.g. "Deployment"
	Resource       string // as RBAC and the API name it, e.g. "deployments"
	Namespaced     bool
	// Custom kinds are custom resources: listed only when the API serves
	// them (discovery), as plain objects decoded like a file's.
	Custom bool
	// Optional kinds are Kubernetes' own that a cluster may not serve
	// (resource.k8s.io/v1 is GA from 1.34): listed, typed, only when
	// discovery says they are served, and never read from files (what
	// they tell is in their status).
	Optional bool
	// Files marks an optional kind a repository may hold too (a claim
	// template, a device class): read from files as well.
	Files bool
	// Templates and Pods say, for people, where the kind's pod templates
	// sit and how many pods each makes; both empty for kinds that make no
	// pods.
	Templates, Pods string
	// Budgets is true when the file model holds the kind's pods, so that
	// PodDisruptionBudgets and drains count them.
	Budgets bool

	typed     *typed                                 // decoded into an API type
	templates func(spec map[string]any) []templateAt // a custom resource's pod templates
}

// Kinds is every kind drvcheck reads. Workloads are listed in this order.
var Kinds = []*Kind{
	{Name: "Node", Version: "v1", Resource: "nodes", typed: nodeKind},
	{Name: "Pod", Version: "v1", Resource: "pods", Namespaced: true, Budgets: true,
		Templates: "the pod itself", Pods: "1", typed: podKind},
	{Name: "Deployment", Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true, Budgets: true,
		Templates: "spec.template", Pods: "spec.replicas (1 when unset)", typed: deploymentKind},
	{Name: "ReplicaSet", Group: "apps", Version: "v1", Resource: "replicasets", Namespaced: true, Budgets: true,
		Templates: "spec.template", Pods: "spec.replicas (1 when unset)", typed: replicaSetKind},
	{Name: "StatefulSet", Group: "apps", Version: "v1", Resource: "statefulsets", Namespaced: true, Budgets: true,
		Templates: "spec.template", Pods: "spec.replicas (1 when unset)", typed: statefulSetKind},
	{Name: "DaemonSet", Group: "apps", Version: "v1", Resource: "daemonsets", Namespaced: true,
		Templates: "spec.template", Pods: "one per node it may run on", typed: daemonSetKind},
	{Name: "Job", Group: "batch", Version: "v1", Resource: "jobs", Namespaced: true,
		Templates: "spec.template", Pods: "spec.parallelism (1 when unset)", typed: jobKind},
	{Name: "CronJob", Group: "batch", Version: "v1", Resource: "cronjobs", Namespaced: true,
		Templates: "spec.jobTemplate.spec.template", Pods: "spec.jobTemplate.spec.parallelism (1 when unset)", typed: cronJobKind},
	{Name: "ReplicationController", Version: "v1", Resource: "replicationcontrollers", Namespaced: true, Budgets: true,
		Templates: "spec.template", Pods: "spec.replicas (1 when unset)", typed: rcKind},
	{Name: "PodDisruptionBudget", Group: "policy", Version: "v1", Resource: "poddisruptionbudgets", Namespaced: true, typed: pdbKind},
	{Name: "Namespace", Version: "v1", Resource: "namespaces", typed: namespaceKind},
	// DRA claims: which pods hold a GPU through a claim (internal/drain).
	{Name: "ResourceClaim", Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaims", Namespaced: true,
		Optional: true, typed: claimKind},
	// DRA's requests and devices (DRV015): claim templates and device
	// classes are a repository's too; ResourceSlices only a cluster's.
	{Name: "ResourceClaimTemplate", Group: "resource.k8s.io", Version: "v1", Resource: "resourceclaimtemplates", Namespaced: true,
		Optional: true, Files: true, typed: claimTemplateKind},
	{Name: "DeviceClass", Group: "resource.k8s.io", Version: "v1", Resource: "deviceclasses",
		Optional: true, Files: true, typed: deviceClassKind},
	{Name: "ResourceSlice", Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices",
		Optional: true, typed: resourceSliceKind},

	// The GPU Operator's configuration (internal/operator).
	{Name: "ClusterPolicy", Group: operator.Group, Version: operator.ClusterPolicyVersion, Resource: "clusterpolicies",
		Custom: true, typed: clusterPolicyKind},
	{Name: "NVIDIADriver", Group: operator.Group, Version: operator.NVIDIADriverVersion, Resource: "nvidiadrivers",
		Custom: true, typed: nvidiaDriverKind},
	{Name: "GPUCluster", Group: operator.Group, Version: operator.GPUClusterVersion, Resource: "gpuclusters",
		Custom: true, typed: gpuClusterKind},

	// GPU workloads: their templates are checked for scheduling as any
	// pod template is; their pods are not modelled for budgets.
	gpuKind("ray.io", "RayCluster", "rayclusters", "spec.headGroupSpec.template; spec.workerGroupSpecs[].template",
		"1 head; a worker group's replicas (else minReplicas, else 1)", rayTemplates("spec")),
	gpuKind("ray.io", "RayJob", "rayjobs", "spec.rayClusterSpec: as RayCluster",
		"as RayCluster", rayTemplates("spec", "rayClusterSpec")),
	gpuKind("ray.io", "RayService", "rayservices", "spec.rayClusterConfig: as RayCluster",
		"as RayCluster", rayTemplates("spec", "rayClusterConfig")),
	gpuKind("kubeflow.org", "PyTorchJob", "pytorchjobs", "spec.pytorchReplicaSpecs.<role>.template",
		"the role's replicas (1 when unset)", replicaSpecs("pytorchReplicaSpecs")),
	gpuKind("trainer.kubeflow.org", "TrainJob", "trainjobs", "spec.podTemplateOverrides[].spec (the scheduling fields only; the runtime's template is not joined)",
		"spec.trainer.numNodes for the node job, else 1", trainJobTemplates),
	gpuKind("jobset.x-k8s.io", "JobSet", "jobsets", "spec.replicatedJobs[].template.spec.template",
		"replicas × the Job's parallelism", jobSetTemplates),
	gpuKind("leaderworkerset.x-k8s.io", "LeaderWorkerSet", "leaderworkersets",
		"spec.leaderWorkerTemplate.leaderTemplate; spec.leaderWorkerTemplate.workerTemplate",
		"replicas leaders; replicas × (size − 1) workers (× size without a leader template)", lwsTemplates),
	gpuKind("batch.volcano.sh", "Job", "jobs", "spec.tasks[].template", "the task's replicas (1 when unset)", volcanoTemplates),
	gpuKind("serving.kserve.io", "InferenceService", "inferenceservices", "spec.predictor (a pod spec inline)",
		"spec.predictor.minReplicas (1 when unset)", kserveTemplates),
}

// templateOnly are custom resources that hold pod templates but make no
// pods themselves (a TrainJob's runtime): the generic fallback leaves them.
var templateOnly = map[string]bool{
	"trainer.kubeflow.org/TrainingRuntime":        true,
	"trainer.kubeflow.org/ClusterTrainingRuntime": true,
}

func gpuKind(group, name, resource, templates, pods string, at func(map[string]any) []templateAt) *Kind {
	return &Kind{Group: group, Name: name, Resource: resource, Namespaced: true, Custom: true,
		Templates: templates, Pods: pods, templates: at}
}

// Lookup returns the kind of group and name, or nil.
func Lookup(group, name string) *Kind {
	for _, k := range Kinds {
		if k.Group == group && k.Name == name {
			return k
		}
	}
	return nil
}

// byName returns the first kind called name in any group: Kubernetes' own
// come first in Kinds, so a Job is batch's.
func byName(name string) *Kind {
	for _, k := range Kinds {
		if k.Name == name {
			return k
		}
	}
	return nil
}

// String names the resource as kubectl and RBAC errors do, e.g.
// "poddisruptionbudgets.policy".
func (k *Kind) String() string {
	if k.Group == "" {
		return k.Resource
	}
	return k.Resource + "." + k.Group
}

// APIVersion is the kind's group/version as manifests write it.
func (k *Kind) APIVersion() string { return joinAPIVersion(k.Group, k.Version) }

// Index is the kind's place in Kinds, the order workloads are listed in.
func (k *Kind) Index() int { return slices.Index(Kinds, k) }

// MakesPods tells workload kinds from the others.
func (k *Kind) MakesPods() bool { return k.Pods != "" }

// The API types of Kubernetes' own kinds and the operator's.
var (
	nodeKind          = typedOf(func(inv *Inventory) *[]*corev1.Node { return &inv.Nodes }, nil)
	namespaceKind     = typedOf(func(inv *Inventory) *[]*corev1.Namespace { return &inv.Namespaces }, nil)
	pdbKind           = typedOf(func(inv *Inventory) *[]*policyv1.PodDisruptionBudget { return &inv.PDBs }, nil)
	claimKind         = typedOf(func(inv *Inventory) *[]*resourcev1.ResourceClaim { return &inv.ResourceClaims }, nil)
	claimTemplateKind = typedOf(func(inv *Inventory) *[]*resourcev1.ResourceClaimTemplate { return &inv.ResourceClaimTemplates }, nil)
	deviceClassKind   = typedOf(func(inv *Inventory) *[]*resourcev1.DeviceClass { return &inv.DeviceClasses }, nil)
	resourceSliceKind = typedOf(func(inv *Inventory) *[]*resourcev1.ResourceSlice { return &inv.ResourceSlices }, nil)
	podKind           = typedOf(func(inv *Inventory) *[]*corev1.Pod { return &inv.Pods }, func(p *corev1.Pod) []podTemplate {
		return []podTemplate{{template: &corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}, path: podSpecPath}}
	})
	deploymentKind = typedOf(func(inv *Inventory) *[]*appsv1.Deployment { return &inv.Deployments }, func(d *appsv1.Deployment) []podTemplate {
		return []podTemplate{{template: &d.Spec.Template, path: templateSpecPath, count: d.Spec.Replicas, countPath: replicasPath}}
	})
	replicaSetKind = typedOf(func(inv *Inventory) *[]*appsv1.ReplicaSet { return &inv.ReplicaSets }, func(r *appsv1.ReplicaSet) []podTemplate {
		return []podTemplate{{template: &r.Spec.Template, path: templateSpecPath, count: r.Spec.Replicas, countPath: replicasPath}}
	})
	statefulSetKind = typedOf(func(inv *Inventory) *[]*appsv1.StatefulSet { return &inv.StatefulSets }, func(s *appsv1.StatefulSet) []podTemplate {
		return []podTemplate{{template: &s.Spec.Template, path: templateSpecPath, count: s.Spec.Replicas, countPath: replicasPath}}
	})
	daemonSetKind = typedOf(func(inv *Inventory) *[]*appsv1.DaemonSet { return &inv.DaemonSets }, func(d *appsv1.DaemonSet) []podTemplate {
		return []podTemplate{{template: &d.Spec.Template, path: templateSpecPath, daemon: true}}
	})
	jobKind = typedOf(func(inv *Inventory) *[]*batchv1.Job { return &inv.Jobs }, func(j *batchv1.Job) []podTemplate {
		return []podTemplate{{template: &j.Spec.Template, path: templateSpecPath, count: j.Spec.Parallelism, countPath: parallelismPath}}
	})
	cronJobKind = typedOf(func(inv *Inventory) *[]*batchv1.CronJob { return &inv.CronJobs }, func(c *batchv1.CronJob) []podTemplate {
		job := &c.Spec.JobTemplate.Spec
		return []podTemplate{{template: &job.Template, path: cronSpecPath, count: job.Parallelism, countPath: cronParallelismPath}}
	})
	rcKind = typedOf(func(inv *Inventory) *[]*corev1.ReplicationController { return &inv.ReplicationControllers },
		func(r *corev1.ReplicationController) []podTemplate {
			if r.Spec.Template == nil {
				return nil // no template, no pods
			}
			return []podTemplate{{template: r.Spec.Template, path: templateSpecPath, count: r.Spec.Replicas, countPath: replicasPath}}
		})
	clusterPolicyKind = typedOf(func(inv *Inventory) *[]*operator.ClusterPolicy { return &inv.ClusterPolicies }, nil)
	nvidiaDriverKind  = typedOf(func(inv *Inventory) *[]*operator.NVIDIADriver { return &inv.NVIDIADrivers }, nil)
	gpuClusterKind    = typedOf(func(inv *Inventory) *[]*operator.GPUCluster { return &inv.GPUClusters }, nil)
)
