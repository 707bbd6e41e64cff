// Command reconcile runs the GPU Operator's driver upgrade, as NVIDIA's
// upgrade library (k8s-operator-libs pkg/upgrade) does it, against a
// cluster until the nodes' upgrade states stop changing, and prints them.
// drvcheck's fidelity test (cmd/drvcheck/fidelity_test.go) compares them
// with what drvcheck plan --all predicted from the same objects. It is
// its own module so that the library's Kubernetes release (v0.32, or
// v0.36 for go.v26.mod) does not meet drvcheck's (v0.37).
//
// It builds against two releases of the library from these sources:
// go.mod (7d667fbaa7ac, GPU Operator v25.3) with lib_v25.go, and
// go.v26.mod (d720f2557494, GPU Operator v26.7) with lib_v26.go:
//
//	go build .
//	go build -modfile=go.v26.mod -tags libv26 .
//
// The upgrade policy is the ClusterPolicy's spec.driver.upgradePolicy, as
// the GPU Operator passes it; GPU-pod deletion uses the operator's GPU
// filter and validation its validator pods (gpu-operator main.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"

	v1alpha1 "github.com/NVIDIA/k8s-operator-libs/api/upgrade/v1alpha1"
	"github.com/NVIDIA/k8s-operator-libs/pkg/upgrade"
)

func main() {
	var (
		kubeconfig = flag.String("kubeconfig", "", "admin kubeconfig")
		namespace  = flag.String("namespace", "gpu-operator", "namespace of the driver DaemonSet")
		policyName = flag.String("clusterpolicy", "cluster-policy", "the ClusterPolicy whose upgradePolicy applies")
		quiet      = flag.Duration("settle", 4*time.Second, "how long the states must stay put, every node at rest, to stop")
		idle       = flag.Duration("idle", 40*time.Second, "how long the states may stay put with a node mid-phase before stopping anyway")
		deadline   = flag.Duration("timeout", 4*time.Minute, "give up after this long")
		verbose    = flag.Bool("v", false, "log the library's decisions on stderr")
	)
	flag.Parse()
	// kubectl's drain helper, inside the library, prints each eviction on
	// os.Stdout: keep stdout for the result.
	stdout := os.Stdout
	os.Stdout = os.Stderr
	if err := run(stdout, *kubeconfig, *namespace, *policyName, *quiet, *idle, *deadline, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "reconcile:", err)
		os.Exit(2)
	}
}

func run(stdout *os.File, kubeconfig, namespace, policyName string, quiet, idle, deadline time.Duration, verbose bool) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	policy, err := readPolicy(ctx, dynamic.NewForConfigOrDie(cfg), policyName)
	if err != nil {
		return err
	}
	log := logr.Discard()
	if verbose {
		log = funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1})
	}
	recorder := record.NewFakeRecorder(1 << 16)
	go func() {
		for range recorder.Events {
		}
	}()
	upgrade.SetDriverName("gpu")
	// The constructor and its options differ between the library's
	// releases: lib_v25.go (go.mod) and lib_v26.go (go.v26.mod, -tags libv26).
	mgr, err := newStateManager(log, cfg, recorder)
	if err != nil {
		return err
	}
	kube := kubernetes.NewForConfigOrDie(cfg)
	states, lastErr, err := settle(ctx, kube, func() error {
		state, err := mgr.BuildState(ctx, namespace, map[string]string{"app": "nvidia-driver-daemonset"})
		if err != nil {
			return err
		}
		return mgr.ApplyState(ctx, state, policy)
	}, quiet, idle)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"nodes": states, "error": lastErr, "library": libraryVersion()})
}

// validatorSelector selects the operator's validator pods, whose readiness
// ends the validation state (gpu-operator cmd/gpu-operator/main.go).
const validatorSelector = "app=nvidia-operator-validator"

// libraryVersion is the k8s-operator-libs release built in, as go.mod or
// go.v26.mod resolved it.
func libraryVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == "github.com/NVIDIA/k8s-operator-libs" {
			return d.Version
		}
	}
	return ""
}

// readPolicy is the ClusterPolicy's spec.driver.upgradePolicy.
func readPolicy(ctx context.Context, dyn dynamic.Interface, name string) (*v1alpha1.DriverUpgradePolicySpec, error) {
	gvr := schema.GroupVersionResource{Group: "nvidia.com", Version: "v1", Resource: "clusterpolicies"}
	cp, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	spec, _, _ := unstructuredField(cp.Object, "spec", "driver", "upgradePolicy")
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	var p v1alpha1.DriverUpgradePolicySpec
	return &p, json.Unmarshal(raw, &p)
}

func unstructuredField(obj map[string]any, path ...string) (any, bool, error) {
	var cur any = obj
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		cur = m[k]
	}
	return cur, cur != nil, nil
}

// gpuPodSpecFilter is the GPU Operator's (controllers/upgrade_controller.go):
// a container, not an init container, that requests or limits
// nvidia.com/gpu* or nvidia.com/mig-*.
func gpuPodSpecFilter(pod corev1.Pod) bool {
	gpuInResources := func(r corev1.ResourceRequirements) bool {
		for _, rl := range []corev1.ResourceList{r.Requests, r.Limits} {
			for name := range rl {
				n := string(name)
				if strings.HasPrefix(n, "nvidia.com/gpu") || strings.HasPrefix(n, "nvidia.com/mig-") {
					return true
				}
			}
		}
		return false
	}
	for _, c := range pod.Spec.Containers {
		if gpuInResources(c.Resources) {
			return true
		}
	}
	return false
}

// atRest are the states the library leaves a node in until something
// outside it changes: the others are passed through or timed out. No
// state ("") is one with autoUpgrade off, when ApplyState does nothing;
// with it on, the first reconcile moves such a node on.
var atRest = map[string]bool{"": true, "upgrade-required": true, "upgrade-done": true, "upgrade-failed": true}

// settle reconciles every second, as the operator's requeue would, until
// the nodes' states have not changed for quiet with every node at rest,
// or for idle whatever their states. A reconcile that fails is retried,
// as the operator retries it; the last failure is returned with the
// states.
func settle(ctx context.Context, kube kubernetes.Interface, reconcile func() error, quiet, idle time.Duration) (map[string]string, string, error) {
	var last map[string]string
	lastErr := ""
	changed := time.Now()
	for {
		if err := reconcile(); err != nil {
			lastErr = err.Error()
		}
		now, err := nodeStates(ctx, kube)
		if err != nil {
			return nil, "", err
		}
		if !same(now, last) {
			last, changed = now, time.Now()
		}
		still := time.Since(changed)
		if still >= idle || still >= quiet && allAtRest(now) {
			return now, lastErr, nil
		}
		select {
		case <-ctx.Done():
			return nil, "", fmt.Errorf("the states still change after the timeout: %v (last reconcile error: %s)", now, lastErr)
		case <-time.After(time.Second):
		}
	}
}

func nodeStates(ctx context.Context, kube kubernetes.Interface) (map[string]string, error) {
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range nodes.Items {
		out[n.Name] = n.Labels[upgrade.GetUpgradeStateLabelKey()]
	}
	return out, nil
}

func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func allAtRest(states map[string]string) bool {
	for _, s := range states {
		if !atRest[s] {
			return false
		}
	}
	return true
}
