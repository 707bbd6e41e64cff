// Package testcluster runs a real Kubernetes control plane for tests, on
// loopback: etcd, kube-apiserver (token authentication, RBAC, a serving
// certificate and service-account keys made in a temporary folder),
// kube-controller-manager (node lifecycle and disruption controllers on),
// kube-scheduler, and kwok as the kubelet of fake nodes, with kwok's own
// stage files; and the kubectl of the same release for tests to drive it
// with. The binaries come from hack/controlplane/build.sh, which
// caches them outside the repository. A test skips only when the binaries
// are absent and DRVCHECK_REQUIRE_CLUSTER is unset; with it set, the test
// builds them or fails, so CI never passes by skipping.
package testcluster
