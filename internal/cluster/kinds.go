package cluster

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Kind is a resource drvcheck reads, named as RBAC names it.
type Kind struct {
	Resource   string // e.g. "poddisruptionbudgets"
	Group      string // API group; "" for the core group
	Version    string
	ObjectKind string // e.g. "PodDisruptionBudget"
}

// String names the resource as kubectl and RBAC errors do,
// e.g. "poddisruptionbudgets.policy".
func (k Kind) String() string {
	if k.Group == "" {
		return k.Resource
	}
	return k.Resource + "." + k.Group
}

// APIVersion is the kind's group/version, as manifests write it.
func (k Kind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// The kinds drvcheck reads. deploy/rbac.yaml grants get and list on exactly
// these; a test keeps the two in step.
var (
	Nodes        = Kind{"nodes", "", "v1", "Node"}
	Pods         = Kind{"pods", "", "v1", "Pod"}
	Namespaces   = Kind{"namespaces", "", "v1", "Namespace"}
	PDBs         = Kind{"poddisruptionbudgets", "policy", "v1", "PodDisruptionBudget"}
	Deployments  = Kind{"deployments", "apps", "v1", "Deployment"}
	ReplicaSets  = Kind{"replicasets", "apps", "v1", "ReplicaSet"}
	StatefulSets = Kind{"statefulsets", "apps", "v1", "StatefulSet"}
	DaemonSets   = Kind{"daemonsets", "apps", "v1", "DaemonSet"}
	Jobs         = Kind{"jobs", "batch", "v1", "Job"}
	CronJobs     = Kind{"cronjobs", "batch", "v1", "CronJob"}
)

// AllKinds is every kind drvcheck reads, in the order errors are reported.
var AllKinds = []Kind{Nodes, Pods, PDBs, Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, Namespaces,
	ClusterPolicies, NVIDIADrivers}

// batch holds the objects of one read, one field per kind, so that the
// kinds are listed in parallel without sharing anything.
type batch struct {
	nodes        []*corev1.Node
	pods         []*corev1.Pod
	namespaces   []*corev1.Namespace
	pdbs         []*policyv1.PodDisruptionBudget
	deployments  []*appsv1.Deployment
	replicaSets  []*appsv1.ReplicaSet
	statefulSets []*appsv1.StatefulSet
	daemonSets   []*appsv1.DaemonSet
	jobs         []*batchv1.Job
	cronJobs     []*batchv1.CronJob

	clusterPolicies, nvidiaDrivers []*unstructured.Unstructured
}

// listers returns, per kind, the function that lists all of it into b.
func listers(cs kubernetes.Interface, dyn dynamic.Interface, b *batch) map[Kind]func(context.Context) error {
	core, apps, bat, pol := cs.CoreV1(), cs.AppsV1(), cs.BatchV1(), cs.PolicyV1()
	return map[Kind]func(context.Context) error{
		Nodes:      lister(core.Nodes().List, func(l *corev1.NodeList) []corev1.Node { return l.Items }, &b.nodes),
		Pods:       lister(core.Pods("").List, func(l *corev1.PodList) []corev1.Pod { return l.Items }, &b.pods),
		Namespaces: lister(core.Namespaces().List, func(l *corev1.NamespaceList) []corev1.Namespace { return l.Items }, &b.namespaces),
		PDBs: lister(pol.PodDisruptionBudgets("").List,
			func(l *policyv1.PodDisruptionBudgetList) []policyv1.PodDisruptionBudget { return l.Items }, &b.pdbs),
		Deployments:  lister(apps.Deployments("").List, func(l *appsv1.DeploymentList) []appsv1.Deployment { return l.Items }, &b.deployments),
		ReplicaSets:  lister(apps.ReplicaSets("").List, func(l *appsv1.ReplicaSetList) []appsv1.ReplicaSet { return l.Items }, &b.replicaSets),
		StatefulSets: lister(apps.StatefulSets("").List, func(l *appsv1.StatefulSetList) []appsv1.StatefulSet { return l.Items }, &b.statefulSets),
		DaemonSets:   lister(apps.DaemonSets("").List, func(l *appsv1.DaemonSetList) []appsv1.DaemonSet { return l.Items }, &b.daemonSets),
		Jobs:         lister(bat.Jobs("").List, func(l *batchv1.JobList) []batchv1.Job { return l.Items }, &b.jobs),
		CronJobs:     lister(bat.CronJobs("").List, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items }, &b.cronJobs),

		ClusterPolicies: customLister(dyn, ClusterPolicies, &b.clusterPolicies),
		NVIDIADrivers:   customLister(dyn, NVIDIADrivers, &b.nvidiaDrivers),
	}
}
