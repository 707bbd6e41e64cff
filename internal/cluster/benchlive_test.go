package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/drvcheck/drvcheck/internal/fleetgen"
	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// TestBenchLive is `make bench-live`: a fleet of fake nodes and pods, then
// `drvcheck scan` timed against fetching the same lists raw with
// `kubectl get --raw`, one after another. It prints the ratio (the goal is
// at most 1.5). It runs only when DRVCHECK_BENCH_LIVE is set, with the
// drvcheck binary in DRVCHECK_BIN; DRVCHECK_BENCH_NODES and
// DRVCHECK_BENCH_PODS change the fleet (default 5000 and 20000).
func TestBenchLive(t *testing.T) {
	if os.Getenv("DRVCHECK_BENCH_LIVE") == "" {
		t.Skip("benchmark: run make bench-live")
	}
	bin := os.Getenv("DRVCHECK_BIN")
	if bin == "" {
		t.Fatal("DRVCHECK_BIN must name the drvcheck binary")
	}
	nodes, pods := envInt(t, "DRVCHECK_BENCH_NODES", 5000), envInt(t, "DRVCHECK_BENCH_PODS", 20000)
	c := testcluster.Start(t, testcluster.Options{Quiet: true})
	kubectl := c.KubectlPath()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()

	start := time.Now()
	createFleet(t, ctx, c, nodes, pods)
	t.Logf("created %d nodes and %d pods in %s", nodes, pods, time.Since(start).Round(time.Second))
	waitRunning(t, ctx, c, pods)
	t.Logf("kwok ran them after %s", time.Since(start).Round(time.Second))
	c.StopKwok() // nothing else runs while we measure

	matrix := filepath.Join(t.TempDir(), "matrix.csv")
	if err := os.WriteFile(matrix, []byte("driver_branch,kernel,os_tag\n550,5.15.0-119-generic,ubuntu22.04\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scan := func() error {
		cmd := exec.Command(bin, "scan", "--kubeconfig="+c.Kubeconfig, "--matrix="+matrix, "-o", "json")
		cmd.Stdout = nil
		err := cmd.Run()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 1 {
			return nil // findings are expected
		}
		return err
	}
	core, _, err := (&Client{}).split(AllKinds) // the fleet has no custom resources
	if err != nil {
		t.Fatal(err)
	}
	raw := func() error {
		for _, k := range core {
			cmd := exec.Command(kubectl, "--kubeconfig="+c.Kubeconfig, "get", "--raw", listPath(k))
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("kubectl get --raw %s: %v", listPath(k), err)
			}
		}
		return nil
	}
	const runs = 5
	scanTime, rawTime := best(t, runs, scan), best(t, runs, raw)
	ratio := scanTime.Seconds() / rawTime.Seconds()
	verdict := "goal met"
	if ratio > 1.5 {
		verdict = "goal MISSED"
	}
	fmt.Printf("bench-live: %d nodes, %d pods: drvcheck scan %.2fs, raw lists %.2fs (%d x kubectl get --raw, one after another); ratio %.2f (goal <= 1.5: %s); best of %d\n",
		nodes, pods, scanTime.Seconds(), rawTime.Seconds(), len(core), ratio, verdict, runs)
}

// best runs f n times and returns the shortest time: the run least
// disturbed by the rest of a shared machine.
func best(t *testing.T, n int, f func() error) time.Duration {
	t.Helper()
	d, err := fleetgen.Best(n, f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func listPath(k Kind) string {
	if k.Group == "" {
		return "/api/" + k.Version + "/" + k.Resource
	}
	return "/apis/" + k.Group + "/" + k.Version + "/" + k.Resource
}

// createFleet creates GPU nodes with the labels gpu-feature-discovery and
// nfd put on them, and pods bound to them (spread over namespaces, with a
// budget per namespace), in parallel through client-go.
func createFleet(t *testing.T, ctx context.Context, c *testcluster.Cluster, nodes, pods int) {
	kernels := []string{"5.15.0-119-generic", "5.15.0-107-generic", "6.8.0-45-generic"}
	parallel(t, nodes, func(i int) error {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name:        fmt.Sprintf("gpu-%05d", i),
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": fmt.Sprintf("gpu-%05d", i), "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				"type": "kwok", "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
				"nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": "8", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
				"nvidia.com/cuda.driver.major": "550", "nvidia.com/cuda.driver.minor": "90", "nvidia.com/cuda.driver.rev": "07",
				"nvidia.com/cuda.driver-version.major": "550", "nvidia.com/cuda.driver-version.minor": "90", "nvidia.com/cuda.driver-version.revision": "07",
				"feature.node.kubernetes.io/kernel-version.full":          kernels[i%len(kernels)],
				"feature.node.kubernetes.io/system-os_release.ID":         "ubuntu",
				"feature.node.kubernetes.io/system-os_release.VERSION_ID": "22.04",
				"nvidia.com/gpu-driver-upgrade-state":                     "upgrade-done",
			},
		}}
		_, err := c.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		return err
	})
	const namespaces = 20
	for i := range namespaces {
		ns := fmt.Sprintf("bench-%02d", i)
		mustNamespace(t, ctx, c, ns)
		one := intstr.FromInt32(1)
		_, err := c.Client.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "trainer-pdb", Namespace: ns},
			Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "trainer"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	parallel(t, pods, func(i int) error {
		ns := fmt.Sprintf("bench-%02d", i%namespaces)
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("trainer-%05d", i), Namespace: ns, Labels: map[string]string{"app": "trainer", "shard": strconv.Itoa(i % 100)}},
			Spec: corev1.PodSpec{
				NodeName: fmt.Sprintf("gpu-%05d", i%nodes),
				Containers: []corev1.Container{{
					Name: "trainer", Image: "nvcr.io/nvidia/pytorch:24.07-py3",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("32Gi")}},
				}},
				Tolerations: []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			},
		}
		_, err := c.Client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
}

// waitRunning waits until kwok has run every pod, so that the lists hold
// pods with a status, as on a real cluster.
func waitRunning(t *testing.T, ctx context.Context, c *testcluster.Cluster, want int) {
	t.Helper()
	client, err := NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	err = testcluster.Poll(ctx, fmt.Sprintf("%d pods Running", want), func(ctx context.Context) (bool, error) {
		time.Sleep(5 * time.Second)
		inv, err := client.Read(ctx, []Kind{Pods}, false)
		if err != nil {
			return false, err
		}
		running := 0
		for _, p := range inv.Pods {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return running == want, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
