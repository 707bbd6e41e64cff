// Package draintest writes the manifests the tests of the drain model
// (internal/drain) and of its simulations (internal/placement) read: nodes,
// Deployments and budgets as files hold them, and a cluster's pods with
// their controllers and a budget's status.
package draintest

import (
	"fmt"
	"strings"
)

// Nodes is n nodes n0, n1, ..., each its own hostname.
func Nodes(n int) string {
	var docs []string
	for i := range n {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Node\nmetadata: {name: n%d, labels: {kubernetes.io/hostname: n%d}}", i, i))
	}
	return strings.Join(docs, "\n---\n")
}

// Deployment is a Deployment of replicas pods labelled labels; extra is
// more of its pod spec.
func Deployment(name string, replicas int, labels, extra string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %s}
spec:
  replicas: %d
  selector: {matchLabels: {%s}}
  template:
    metadata: {labels: {%s}}
    spec:
      containers: [{name: c, image: x}]
%s`, name, replicas, labels, labels, extra)
}

// HostnameAnti keeps the pods of app web one to a node (Deployment's extra).
const HostnameAnti = `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: web}}`

// PDB is a budget of rule (e.g. "minAvailable: 1") over the pods match
// selects in ns.
func PDB(name, ns, rule, match string) string {
	return fmt.Sprintf(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: %s, namespace: %s}
spec:
  %s
  selector:
    matchLabels: {%s}`, name, ns, rule, match)
}

// LivePod is a cluster's Running pod of app web on node, owned by owner
// (Kind/name, "" for none), Ready or not.
func LivePod(name, node, owner string, ready bool) string {
	own := ""
	if owner != "" {
		kind, oname, _ := strings.Cut(owner, "/")
		own = fmt.Sprintf("  ownerReferences: [{apiVersion: apps/v1, kind: %s, name: %s, uid: u-%s, controller: true}]\n", kind, oname, oname)
	}
	status := "False"
	if ready {
		status = "True"
	}
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: %s
  labels: {app: web}
%sspec:
  nodeName: %s
  containers: [{name: c, image: x}]
status:
  phase: Running
  conditions: [{type: Ready, status: "%s"}]`, name, own, node, status)
}

// LiveControllers are Deployment web of 3 replicas and its ReplicaSet
// web-5d8f, as a cluster lists them.
const LiveControllers = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, uid: u-web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-5d8f
  uid: u-web-5d8f
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: u-web, controller: true}]
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: x}]}}`

// LivePDB is budget web-pdb (maxUnavailable 1 of app web) at generation,
// with the disruption controller's status as of observed.
func LivePDB(generation, observed, allowed int) string {
	return fmt.Sprintf(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb, generation: %d}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app: web}}
status:
  observedGeneration: %d
  expectedPods: 3
  desiredHealthy: 2
  currentHealthy: 3
  disruptionsAllowed: %d`, generation, observed, allowed)
}
