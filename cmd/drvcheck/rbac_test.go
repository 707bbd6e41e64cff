package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// TestRBAC runs drvcheck as ServiceAccounts: the one of deploy/rbac.yaml
// sees exactly what an admin sees; one without rights is refused, and
// drvcheck exits 2 naming the resource and the verb.
func TestRBAC(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	labCluster(t, c)
	matrix := filepath.Join("..", "..", "testdata", "lab", "support-matrix.csv")
	policyDir := writePolicy(t)
	scanAs := func(kubeconfig string) result {
		return drv(t, "scan", "--kubeconfig="+kubeconfig, "--matrix="+matrix, "--policy="+policyDir, "-o", "json")
	}

	t.Run("reader-sees-what-admin-sees", func(t *testing.T) {
		kubectl(t, c, "apply", "-f", filepath.Join("..", "..", "deploy", "rbac.yaml"))
		reader, err := c.ServiceAccountKubeconfig(ctx, "drvcheck", "drvcheck")
		if err != nil {
			t.Fatal(err)
		}
		// The authorizer sees a new binding within moments; the cluster's
		// state is settled (labCluster waited), so two scans agree.
		var got, want result
		err = testcluster.Poll(ctx, "the reader's scan to equal the admin's", func(context.Context) (bool, error) {
			got, want = scanAs(reader), scanAs(c.Kubeconfig)
			return got.code != exitError && got == want, nil
		})
		if err != nil {
			t.Fatalf("%v\nreader: exit %d\n%s%s\nadmin: exit %d\n%s%s", err, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
		}
		rep := drvJSON(t, "scan", "--kubeconfig="+reader, "--matrix="+matrix, "--policy="+policyDir)
		if len(rep.byRule("DRV001")) != 1 || len(rep.byRule("LIVE900")) < 5 {
			t.Errorf("the comparison should cover real findings and live facts: %+v", rep.Findings)
		}
	})

	t.Run("cronjob-report", func(t *testing.T) { cronJobReport(t, c, matrix) })

	t.Run("no-rights-exits-2", func(t *testing.T) {
		none, err := c.ServiceAccountKubeconfig(ctx, "norights", "drvcheck")
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"scan", "--matrix=" + matrix}, "forbidden to list nodes"},
			{[]string{"audit", "--matrix=" + matrix}, "forbidden to list nodes"},
			{[]string{"tag", "lab-node-0"}, "forbidden to get nodes"},
			{[]string{"check", labFile("k8s/trainer.yaml"), "--nodes-from-cluster", "--matrix=" + matrix}, "forbidden to list nodes"},
		} {
			r := drv(t, append(tc.args, "--kubeconfig="+none)...)
			if r.code != exitError || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, c.Host) ||
				strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
				t.Errorf("%s as a ServiceAccount without rights: exit %d, stdout %q, stderr %q; want exit 2 and %q",
					tc.args[0], r.code, r.stdout, r.stderr, tc.want)
			}
		}
	})
}

// cronJobReport runs the container of deploy/cronjob-report.yaml as its
// ServiceAccount, bound by deploy/rbac.yaml and deploy/report-rbac.yaml,
// with the lab's matrix for the registry and a Prometheus textfile beside:
// the report lands in the one ConfigMap, a failed scan lands there too, and
// any other ConfigMap is refused.
func cronJobReport(t *testing.T, c *testcluster.Cluster, matrix string) {
	ctx := context.Background()
	kubectl(t, c, "apply", "-f", filepath.Join("..", "..", "deploy", "rbac.yaml"), "-f", filepath.Join("..", "..", "deploy", "report-rbac.yaml"))
	sa, err := c.ServiceAccountKubeconfig(ctx, "drvcheck", "drvcheck")
	if err != nil {
		t.Fatal(err)
	}
	args := cronJobArgs(t, "cronjob-report.yaml")
	if i := slices.Index(args, "--registry"); i >= 0 {
		args = slices.Replace(args, i, i+2, "--matrix="+matrix)
	}
	textfile := filepath.Join(t.TempDir(), "drvcheck.prom")
	args = append(args, "--kubeconfig="+sa, "--report", "prometheus="+textfile)
	var r result
	err = testcluster.Poll(ctx, "the report's Role to be in force", func(context.Context) (bool, error) {
		r = drv(t, args...)
		return r.code != exitError, nil
	})
	if err != nil || r.code != exitFindings {
		t.Fatalf("%v: drvcheck %v: exit %d %s", err, args, r.code, r.stderr)
	}
	data := reportData(t, c)
	var rep jsonReport
	if err := json.Unmarshal([]byte(data["report.json"]), &rep); err != nil || len(rep.byRule("DRV001")) != 1 {
		t.Errorf("report.json: %v %+v", err, rep.Findings)
	}
	prom, _ := os.ReadFile(textfile)
	for _, m := range []string{data["metrics.prom"], string(prom)} {
		if !strings.Contains(m, "drvcheck_scan_success 1\n") || !strings.Contains(m, `drvcheck_findings{rule="DRV001",severity="error"} 1`) {
			t.Errorf("metrics:\n%s", m)
		}
	}
	if data["exit-code"] != "1" || !strings.Contains(data["summary.md"], "DRV001") || data["error"] != "" {
		t.Errorf("ConfigMap data: %v", data)
	}

	// A scan that cannot run still says so in the ConfigMap.
	failing := append(slices.Clone(args), "--matrix=no-such-matrix.csv")
	if r := drv(t, failing...); r.code != exitError {
		t.Fatalf("scan with a missing matrix: exit %d", r.code)
	}
	data = reportData(t, c)
	if data["exit-code"] != "2" || !strings.Contains(data["error"], "no-such-matrix.csv") || data["report.json"] != "" ||
		!strings.Contains(data["metrics.prom"], "drvcheck_scan_success 0\n") {
		t.Errorf("ConfigMap after a failed scan: %v", data)
	}

	for _, other := range []string{"drvcheck/other-report", "default/drvcheck-report"} {
		r := drv(t, "scan", "--matrix="+matrix, "--kubeconfig="+sa, "--report", "configmap="+other)
		if r.code != exitError || !strings.Contains(r.stderr, "--report configmap="+other+": cluster "+c.Host+": forbidden to get the ConfigMap") {
			t.Errorf("report to %s: exit %d %s", other, r.code, r.stderr)
		}
	}
}

func reportData(t *testing.T, c *testcluster.Cluster) map[string]string {
	t.Helper()
	cm, err := c.Client.CoreV1().ConfigMaps("drvcheck").Get(context.Background(), "drvcheck-report", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data
}

// cronJobArgs are the container args of the CronJob in deploy/NAME.
func cronJobArgs(t *testing.T, name string) []string {
	t.Helper()
	inv, err := inventory.Read(context.Background(), []string{filepath.Join("..", "..", "deploy", name)}, load.Options{}, false)
	if err != nil || len(inv.CronJobs) != 1 {
		t.Fatalf("deploy/%s: %v", name, err)
	}
	return slices.Clone(inv.CronJobs[0].Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args)
}

// labCluster builds the lab's cluster as it stands after step 6: four GPU
// nodes, the cuda pods, trainer and its budget, all settled.
func labCluster(t *testing.T, c *testcluster.Cluster) {
	t.Helper()
	for node, labels := range labLabels {
		createFakeNode(t, c, node)
		kubectl(t, c, append([]string{"label", "node", node, "nvidia.com/gpu.present=true"}, strings.Fields(labels)...)...)
	}
	createFakeNode(t, c, "lab-node-3")
	kubectl(t, c, "label", "node", "lab-node-3", "nvidia.com/gpu.present=true", "nvidia.com/cuda.driver.major=550",
		"nvidia.com/cuda.driver.minor=90", "nvidia.com/cuda.driver.rev=07", "feature.node.kubernetes.io/kernel-version.full=6.8.0-52-generic",
		"feature.node.kubernetes.io/system-os_release.ID=ubuntu", "feature.node.kubernetes.io/system-os_release.VERSION_ID=24.04")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.WaitNodesReady(ctx, "lab-node-0", "lab-node-1", "lab-node-2", "lab-node-3"); err != nil {
		t.Fatal(err)
	}
	kubectl(t, c, "apply", "-f", labFile("k8s/namespace.yaml"))
	if err := c.WaitServiceAccount(ctx, "gpu-drv"); err != nil {
		t.Fatal(err)
	}
	kubectl(t, c, "apply", "-f", labFile("k8s/cuda12-job.yaml"), "-f", labFile("k8s/cuda13-job.yaml"), "-f", labFile("k8s/trainer.yaml"), "-f", labFile("k8s/pdb.yaml"))
	waitTrainers(t, c, 4)
	waitBudget(t, c, 0)
}

// TestClusterErrors: an unreachable cluster and bad cluster flags exit 2
// with one line naming the host or the flag, and never the credentials.
func TestClusterErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "https://" + l.Addr().String()
	l.Close()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["gone"] = &clientcmdapi.Cluster{Server: gone, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["gone"] = &clientcmdapi.AuthInfo{Token: "s3cr3t-t0ken"}
	cfg.Contexts["gone"] = &clientcmdapi.Context{Cluster: "gone", AuthInfo: "gone"}
	cfg.CurrentContext = "gone"
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	m := "--matrix=" + filepath.Join("..", "..", "testdata", "lab", "support-matrix.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scan", m, "--kubeconfig=" + kc}, "cluster " + gone + " unreachable"},
		{[]string{"audit", m, "--kubeconfig=" + kc}, "cluster " + gone + " unreachable"},
		{[]string{"tag", "n", "--kubeconfig=" + kc}, "cluster " + gone + " unreachable"},
		{[]string{"check", labFile("k8s/pdb.yaml"), m, "--nodes-from-cluster", "--kubeconfig=" + kc}, "cluster " + gone + " unreachable"},
		{[]string{"scan", m, "--kubeconfig=" + kc, "--context=nope"}, `context "nope" does not exist`},
		{[]string{"scan", m, "--kubeconfig=" + filepath.Join(t.TempDir(), "missing")}, "cluster: kubeconfig:"},
		{[]string{"scan", m, "--kubeconfig=" + kc, "--request-timeout=-1s"}, "--request-timeout -1s"},
		{[]string{"scan", m, "somewhere/"}, "takes no PATH"},
	} {
		r := drv(t, tc.args...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("drvcheck %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.want)
		}
		if strings.Contains(r.stdout+r.stderr, "s3cr3t-t0ken") {
			t.Errorf("drvcheck %s printed the token", strings.Join(tc.args, " "))
		}
	}
}
