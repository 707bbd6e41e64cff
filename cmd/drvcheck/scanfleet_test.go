package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// fleetKubeconfig writes one kubeconfig whose contexts name the clusters
// given, each as its admin kubeconfig reaches it, and down, a server
// that refuses every connection.
func fleetKubeconfig(t *testing.T, clusters map[string]*testcluster.Cluster) string {
	t.Helper()
	out := clientcmdapi.NewConfig()
	var last *clientcmdapi.Cluster
	for name, c := range clusters {
		cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		ctx := cfg.Contexts[cfg.CurrentContext]
		out.Clusters[name], out.AuthInfos[name] = cfg.Clusters[ctx.Cluster], cfg.AuthInfos[ctx.AuthInfo]
		out.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
		last = cfg.Clusters[ctx.Cluster]
	}
	down := *last
	down.Server = "https://127.0.0.1:1"
	out.Clusters["down"], out.AuthInfos["down"] = &down, &clientcmdapi.AuthInfo{Token: "none"}
	out.Contexts["down"] = &clientcmdapi.Context{Cluster: "down", AuthInfo: "down"}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*out, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// startClusters starts n control planes at once.
func startClusters(t *testing.T, n int) []*testcluster.Cluster {
	t.Helper()
	testcluster.Require(t)
	out := make([]*testcluster.Cluster, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i], errs[i] = testcluster.New(testcluster.Options{}) })
	}
	wg.Wait()
	for i := range n {
		if out[i] != nil {
			t.Cleanup(out[i].Stop)
		}
		if testcluster.Skipped(errs[i]) {
			t.Skip(errs[i])
		}
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	return out
}

// Three clusters in one scan, one of them unreachable: the two read are
// one fleet result, their findings tagged; the third is one error line
// and the run exits 2; the skew rule sees eu-1's 535 and 550 against
// us-1's 570. The same two clusters scanned apart and merged give the
// same findings.
func TestScanSeveralClusters(t *testing.T) {
	cs := startClusters(t, 2)
	lab := filepath.Join("..", "..", "testdata", "lab", "k8s")
	kubectl(t, cs[0], "apply", "-f", filepath.Join(lab, "nodes.yaml"), "-f", filepath.Join(lab, "node3.yaml"))
	nodes, err := os.ReadFile(filepath.Join(lab, "nodes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.NewReplacer(`cuda.driver.major: "550"`, `cuda.driver.major: "570"`, `cuda.driver.major: "535"`, `cuda.driver.major: "570"`).Replace(string(nodes))
	us := filepath.Join(t.TempDir(), "nodes.yaml")
	writeFile(t, us, moved)
	kubectl(t, cs[1], "apply", "-f", us)
	kc := fleetKubeconfig(t, map[string]*testcluster.Cluster{"eu-1": cs[0], "us-1": cs[1]})
	flags := []string{"--kubeconfig", kc, "--request-timeout", "5s", "-o", "json"}

	r := drv(t, append([]string{"scan", "--context", "eu-1", "--context", "down", "--context", "us-1"}, flags...)...)
	if r.code != exitError || !strings.Contains(r.stderr, "drvcheck: warning: cluster eu-1: no --matrix or --registry given; DRV001 (missing-driver-image) is skipped\ndrvcheck: cluster down: ") ||
		!strings.Contains(r.stderr, "drvcheck: scan: 1 of 3 clusters could not be read (down)\n") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	m := decodeMerged(t, r.stdout)
	var names []string
	for _, c := range m.Clusters {
		names = append(names, c.Name+"="+strings.Join(c.DriverBranches, "+"))
	}
	if strings.Join(names, " ") != "eu-1=535+550 us-1=570" {
		t.Errorf("clusters %s", names)
	}
	together := fleetFindingKeys(m)
	if !slices.Contains(together, " DRV050 Fleet/fleet the fleet's clusters run 2 driver branches: 535+550 (eu-1); 570 (us-1)") {
		t.Errorf("no skew: %s", strings.Join(together, "\n"))
	}

	// Every context of the kubeconfig: the same fleet.
	all := drv(t, append([]string{"scan", "--all-contexts"}, flags...)...)
	if all.code != exitError || !slices.Equal(fleetFindingKeys(decodeMerged(t, all.stdout)), together) {
		t.Errorf("--all-contexts: exit %d: %s\n%s", all.code, all.stderr, all.stdout)
	}

	dir := t.TempDir()
	var files []string
	for _, name := range []string{"eu-1", "us-1"} {
		one := drv(t, append([]string{"scan", "--context", name}, flags...)...)
		if one.code == exitError {
			t.Fatalf("%s: %s", name, one.stderr)
		}
		files = append(files, filepath.Join(dir, name+".json"))
		writeFile(t, files[len(files)-1], one.stdout)
	}
	merged := drv(t, append([]string{"report", "merge", "-o", "json"}, files...)...)
	if apart := fleetFindingKeys(decodeMerged(t, merged.stdout)); !slices.Equal(apart, together) {
		t.Errorf("scanned apart and merged:\n%s\nscanned together:\n%s", strings.Join(apart, "\n"), strings.Join(together, "\n"))
	}

	// What names one cluster is refused with several.
	for _, extra := range [][]string{{"--report", "configmap=drvcheck/report"}, {"--cluster-name", "x"}, {"--context", "eu-1"}, {"--all-contexts"}} {
		r := drv(t, append(append([]string{"scan", "--context", "eu-1", "--context", "us-1"}, flags...), extra...)...)
		if r.code != exitError || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d: %s", extra, r.code, r.stderr)
		}
	}
	if r := drv(t, "status", "--context", "eu-1", "--context", "us-1", "--kubeconfig", kc); r.code != exitError || !strings.Contains(r.stderr, "status: --context given 2 times: only scan, audit, plan --all and report merge read several clusters") {
		t.Errorf("status: exit %d: %s", r.code, r.stderr)
	}

	// audit of the fleet: a line per node whose image the lab's matrix
	// lacks, each naming its cluster (us-1's nodes moved to 570, which
	// the matrix has no tag of); down is one error line and exit 2.
	audit := drv(t, "audit", "--matrix", filepath.Join("..", "..", "testdata", "lab", "support-matrix.csv"), "--kubeconfig", kc, "--request-timeout", "5s",
		"--context", "us-1", "--context", "down", "--context", "eu-1")
	want := "eu-1: lab-node-3 MISSING 550-6.8.0-52-generic-ubuntu24.04\n" +
		"us-1: lab-node-0 MISSING 570-5.15.0-119-generic-ubuntu22.04\n" +
		"us-1: lab-node-1 MISSING 570-5.15.0-107-generic-ubuntu22.04\n" +
		"us-1: lab-node-2 MISSING 570-6.8.0-45-generic-ubuntu24.04\n"
	if audit.code != exitError || audit.stdout != want || !strings.Contains(audit.stderr, "drvcheck: cluster down: ") ||
		!strings.HasSuffix(audit.stderr, "drvcheck: audit: 1 of 3 clusters could not be read (down)\n") {
		t.Errorf("audit: exit %d\n%s\n%s", audit.code, audit.stdout, audit.stderr)
	}
	// plan --all of the fleet: each cluster's rollout under its name, in
	// the order given; down is one error line and exit 2.
	roll := drv(t, "plan", "--all", "--driver", "550.90.07", "--kubeconfig", kc, "--request-timeout", "5s", "--context", "us-1", "--context", "down", "--context", "eu-1", "-o", "json")
	var plans struct {
		Rollouts []struct {
			Cluster, Driver string
			Nodes           []struct{ Node, Outcome string }
		}
	}
	if err := json.Unmarshal([]byte(roll.stdout), &plans); err != nil || roll.code != exitError || len(plans.Rollouts) != 2 ||
		plans.Rollouts[0].Cluster != "us-1" || plans.Rollouts[1].Cluster != "eu-1" || len(plans.Rollouts[0].Nodes) != 3 || len(plans.Rollouts[1].Nodes) != 4 ||
		!strings.HasSuffix(roll.stderr, "drvcheck: plan: 1 of 3 clusters could not be read (down)\n") {
		t.Errorf("plan --all: exit %d %v\n%s\n%s", roll.code, err, roll.stdout, roll.stderr)
	}
	page := drv(t, "plan", "--all", "--driver", "550.90.07", "--kubeconfig", kc, "--context", "us-1", "--context", "eu-1", "-o", "html")
	if page.code == exitError || !strings.Contains(page.stdout, `<div class="cluster" data-cluster="us-1">`) || !strings.Contains(page.stdout, `<div class="cluster" data-cluster="eu-1">`) ||
		strings.Contains(page.stdout, `id="verdict"`) {
		t.Errorf("plan --all -o html: exit %d %s", page.code, page.stderr)
	}
	if r := drv(t, "plan", "lab-node-1", "--driver", "550.90.07", "--kubeconfig", kc, "--context", "us-1", "--context", "eu-1"); r.code != exitError || !strings.Contains(r.stderr, "give --all and no PATH") {
		t.Errorf("plan NODE of two clusters: exit %d %s", r.code, r.stderr)
	}

	// Nothing read is no OK.
	if none := drv(t, "audit", "--matrix", filepath.Join("..", "..", "testdata", "lab", "support-matrix.csv"), "--kubeconfig", kc, "--context", "down", "--all-contexts"); none.code != exitError || none.stdout != "" {
		t.Errorf("audit: exit %d %q", none.code, none.stdout)
	}
	if down := drv(t, "audit", "--matrix", filepath.Join("..", "..", "testdata", "lab", "support-matrix.csv"), "--kubeconfig", kc, "--request-timeout", "5s", "--context", "down", "--context", "down2"); down.code != exitError || down.stdout != "" {
		t.Errorf("audit of unreachable clusters: exit %d %q %s", down.code, down.stdout, down.stderr)
	}
	mergeKeptReports(t, cs, kc, together)
}

// Each cluster's own nightly run keeps its report in a ConfigMap
// (deploy/cronjob-report.yaml); report merge reads them from every
// context: the same fleet as one scan of all, the unreachable cluster
// one error line, a report gone stale named, and --group-by judging
// each environment's clusters apart.
func mergeKeptReports(t *testing.T, cs []*testcluster.Cluster, kc string, together []string) {
	const kept = "configmap=drvcheck/drvcheck-report"
	for i, env := range []string{"env=prod", "env=staging"} {
		kubectl(t, cs[i], "create", "namespace", "drvcheck")
		name := []string{"eu-1", "us-1"}[i]
		r := drv(t, "scan", "--kubeconfig", kc, "--context", name, "--report", kept, "--cluster-label", env, "-o", "json")
		if r.code == exitError {
			t.Fatalf("%s: %s", name, r.stderr)
		}
	}
	flags := []string{"--kubeconfig", kc, "--request-timeout", "5s", "-o", "json"}
	r := drv(t, append([]string{"report", "merge", kept, "--context", "eu-1", "--context", "down", "--context", "us-1"}, flags...)...)
	if r.code != exitError || !strings.Contains(r.stderr, "drvcheck: cluster down: ") || !strings.Contains(r.stderr, "drvcheck: report merge: 1 of 3 clusters could not be read (down)\n") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := fleetFindingKeys(decodeMerged(t, r.stdout)); !slices.Equal(got, together) {
		t.Errorf("merged from the ConfigMaps:\n%s\nscanned together:\n%s", strings.Join(got, "\n"), strings.Join(together, "\n"))
	}

	// us-1's report is from a week ago: named, and still merged.
	old := time.Now().Add(-7 * 24 * time.Hour).UTC().Format(time.RFC3339)
	kubectl(t, cs[1], "-n", "drvcheck", "patch", "configmap", "drvcheck-report", "--type", "merge", "-p", `{"data":{"finished":"`+old+`"}}`)
	grouped := drv(t, append([]string{"report", "merge", kept, "--all-contexts", "--group-by", "env"}, flags...)...)
	m := decodeMerged(t, grouped.stdout)
	if grouped.code != exitError || !strings.Contains(grouped.stderr, "drvcheck: warning: cluster us-1: its report in ConfigMap drvcheck/drvcheck-report is from "+old+", 7 days old") || len(m.Clusters) != 2 {
		t.Errorf("exit %d\n%s", grouped.code, grouped.stderr)
	}
	for _, k := range fleetFindingKeys(m) {
		if strings.Contains(k, "DRV050") {
			t.Errorf("prod and staging judged as one fleet: %s", k)
		}
	}
}

func fleetFindingKeys(m mergedReport) []string {
	var out []string
	for _, f := range m.Findings {
		out = append(out, f.Cluster+" "+f.Rule+" "+f.Object.Kind+"/"+f.Object.Name+" "+f.Message)
	}
	slices.Sort(out)
	return out
}
