// Package cluster reads a live Kubernetes cluster, read-only, into the same
// inventory that file mode builds: Nodes, Pods, workload controllers,
// PodDisruptionBudgets and Namespaces. It finds the cluster as kubectl does
// (--kubeconfig, $KUBECONFIG, ~/.kube/config, --context, in-cluster config),
// lists every kind in parallel, in pages of 500 with continue tokens, in
// protobuf, each request bounded by a timeout. It only ever sends GET
// requests, but for the one write a user must ask for: WriteReport, which
// puts a scan's report into one ConfigMap (--report configmap=NS/NAME). Errors name the host, and for a refused list the resource and
// verb; credentials never appear in them.
package cluster
