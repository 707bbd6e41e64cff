package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// labCopy copies testdata/lab into a temporary folder, so that tests can
// edit it; edit(name, content) rewrites one of its files.
func labCopy(t *testing.T) (dir string, edit func(name, old, new string)) {
	t.Helper()
	dir = t.TempDir()
	src := filepath.Join("..", "..", "testdata", "lab")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, func(name, old, new string) {
		t.Helper()
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s does not contain %q", name, old)
		}
		if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const row107 = "550,5.15.0-107-generic,ubuntu22.04\n"

// The acceptance: on the lab, with a matrix lacking 550-5.15.0-107,
// the plan of lab-node-1 exits 1 and lists the missing tag, then the budget
// "from 4 to 3", then drain and uncordon; with the budget at 3 and the row
// added it exits 0.
func TestPlanLabNode1(t *testing.T) {
	dir, edit := labCopy(t)
	k8s, matrix := filepath.Join(dir, "k8s"), filepath.Join(dir, "support-matrix.csv")
	out, errs, code := drvcheck(t, "", "plan", "lab-node-1", "--driver", "550.90.07", k8s, "--matrix", matrix)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	order := []string{"550-5.15.0-107-generic-ubuntu22.04", "from 4 to 3", "kubectl drain lab-node-1", "kubectl uncordon lab-node-1"}
	last := -1
	for _, s := range order {
		i := strings.Index(out, s)
		if i <= last {
			t.Fatalf("%q at %d, not after the previous item (%d):\n%s", s, i, last, out)
		}
		last = i
	}
	if !strings.Contains(out, "1. image present?  BLOCKED") || !strings.Contains(out, "2. budget room     BLOCKED") {
		t.Fatalf("the image and budget steps are not both blocked:\n%s", out)
	}

	edit("k8s/pdb.yaml", "minAvailable: 4", "minAvailable: 3")
	out, _, code = drvcheck(t, "", "plan", "lab-node-1", "--driver", "550.90.07", k8s, "--matrix", matrix)
	if code != 1 || !strings.Contains(out, "budget room     ok") {
		t.Fatalf("budget at 3, row missing: exit %d, want 1 with the budget step ok\n%s", code, out)
	}
	edit("support-matrix.csv", "550,5.15.0-119-generic,ubuntu22.04\n", "550,5.15.0-119-generic,ubuntu22.04\n"+row107)
	out, errs, code = drvcheck(t, "", "plan", "lab-node-1", "--driver", "550.90.07", k8s, "--matrix", matrix)
	if code != 0 || !strings.Contains(out, "Every step can run.") {
		t.Fatalf("budget at 3 and the row added: exit %d, want 0\n%s%s", code, out, errs)
	}
}

func TestPlanJSON(t *testing.T) {
	dir, _ := labCopy(t)
	out, _, code := drvcheck(t, "", "plan", "lab-node-1", "--driver", "550.90.07", dir, "--matrix", filepath.Join(dir, "support-matrix.csv"), "-o", "json")
	var p struct {
		CanRun bool `json:"can_run"`
		Tag    string
		Steps  []struct {
			Name, Status string
			Blockers     []struct{ What, Fix string }
		}
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != 1 || p.CanRun || p.Tag != "550-5.15.0-107-generic-ubuntu22.04" || len(p.Steps) != 6 {
		t.Fatalf("exit %d %+v", code, p)
	}
	var names []string
	for _, s := range p.Steps {
		names = append(names, s.Name+"="+s.Status)
	}
	if got := strings.Join(names, " "); got != "image=blocked budget=blocked drain=waiting reload=waiting uncordon=waiting audit=waiting" {
		t.Fatalf("steps %s", got)
	}
	if p.Steps[1].Blockers[0].Fix != "lower trainer-pdb minAvailable from 4 to 3" {
		t.Fatalf("budget fix %+v", p.Steps[1].Blockers)
	}
}

func TestPlanUsageErrors(t *testing.T) {
	lab := filepath.Join("..", "..", "testdata", "lab")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "lab-node-9", "--driver", "550.90.07", lab}, "plan: node lab-node-9 not found in"},
		{[]string{"plan", "lab-node-1", "--driver", "550.x", lab}, `plan: --driver "550.x" is not a driver version such as 550.90.07`},
		{[]string{"plan", "lab-node-1", lab}, "plan: --driver VERSION is required"},
		{[]string{"plan", "--all", "--driver", "550.90.07", "--max-parallel-upgrades", "-1", lab}, "plan: --max-parallel-upgrades -1"},
		{[]string{"plan", "--all", "--driver", "550.90.07", "--force", lab}, "plan: --force is kubectl drain's flag for one NODE; with --all use --drain-force"},
		{[]string{"plan", "lab-node-1", "--driver", "550.90.07", "--drain", lab}, "plan: --drain is an upgrade policy flag: it needs --all"},
		{[]string{"plan", "--all", "--driver", "550.90.07", "--max-unavailable", "lots", lab}, `maxUnavailable "lots": want a number or a percentage`},
		{[]string{"plan", "--all", "--driver", "550.90.07", "--drain-timeout", "-5s", lab}, "plan: --drain-timeout -5s: must not be negative"},
	} {
		_, errs, code := drvcheck(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// The rolling simulation of the lab (the manual procedure: no operator
// configuration) leaves lab-node-1 stuck on the budget, and says why.
func TestPlanAllNamesTheStuckNode(t *testing.T) {
	dir, edit := labCopy(t)
	matrix := filepath.Join(dir, "support-matrix.csv")
	edit("support-matrix.csv", "550,5.15.0-119-generic,ubuntu22.04\n", "550,5.15.0-119-generic,ubuntu22.04\n"+row107)
	out, _, code := drvcheck(t, "", "plan", "--all", "--driver", "550.90.07", dir, "--matrix", matrix)
	if code != 1 || !regexp.MustCompile(`1  lab-node-1 +STUCK +waits in drain-required`).MatchString(out) ||
		!strings.Contains(out, "lower trainer-pdb minAvailable from 4 to 3") || !strings.Contains(out, "the manual procedure") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// Under the operator's flow only GPU pods go, and the lab's trainer
	// requests none: nothing stalls.
	out, _, code = drvcheck(t, "", "plan", "--all", "--driver", "550.90.07", dir, "--matrix", matrix, "--max-unavailable", "25%")
	if code != 0 || !strings.Contains(out, "no node stalls") || !strings.Contains(out, "GPU-pod deletion (timeout 300s), drain fallback off") {
		t.Fatalf("operator flow: exit %d\n%s", code, out)
	}
	edit("k8s/pdb.yaml", "minAvailable: 4", "minAvailable: 3")
	out, _, code = drvcheck(t, "", "plan", "--all", "--driver", "550.90.07", dir, "--matrix", matrix)
	if code != 0 || !strings.Contains(out, "no node stalls") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// A rollout under way (testdata/operator/midrollout), from files. The
// upgrade library's code (k8s-operator-libs@7d667fbaa7ac
// pkg/upgrade/upgrade_state.go) gives: g0 stays upgrade-failed (its driver
// pod is out of date, ProcessUpgradeFailedNodes); g1's drain is refused by
// trainer-pdb, so it fails after drain.timeoutSeconds; g2's driver pod
// restarts and it is done; g0 and g1 then hold both slots of
// maxParallelUpgrades 2, so g3 never starts. check's DRV030 reports the
// three nodes under way, and the two commands agree. The text is held
// whole in testdata/plan-midrollout.txt.
func TestPlanAllFromAMidRollout(t *testing.T) {
	repo := operatorRegistry(t, "570.86.15-ubuntu22.04")
	args := []string{opFile("midrollout"), "--driver-repository", repo, "--cache-dir=" + t.TempDir()}
	r := drv(t, append([]string{"plan", "--all", "--driver", "570.86.15", "-o", "json"}, args...)...)
	var plan struct{ Nodes []predictedNode }
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil || r.code != 1 {
		t.Fatalf("exit %d, %v: %s%s", r.code, err, r.stdout, r.stderr)
	}
	var got []string
	for _, n := range plan.Nodes {
		got = append(got, n.Node+":"+n.State)
	}
	if want := "g0:upgrade-failed g1:upgrade-failed g2:upgrade-done g3:upgrade-required"; strings.Join(got, " ") != want {
		t.Errorf("states %s, want %s", strings.Join(got, " "), want)
	}
	checked := drvJSON(t, append([]string{"check"}, args...)...)
	if len(checked.byRule("DRV030")) != 3 {
		t.Errorf("DRV030: %+v", checked.byRule("DRV030"))
	}
	if diff := compareWithCheck(plan.Nodes, checked.byRule("DRV030")); diff != "" {
		t.Errorf("check and plan --all differ:\n%s", diff)
	}
	text := drv(t, append([]string{"plan", "--all", "--driver", "570.86.15"}, args...)...)
	goldenText(t, filepath.Join("testdata", "plan-midrollout.txt"), strings.ReplaceAll(text.stdout, repo, "REGISTRY/nvidia/driver"))
}

// goldenText compares out with the file at path, or rewrites it with
// -update.
func goldenText(t *testing.T, path, out string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/drvcheck -update writes it)", err)
	}
	if out != string(want) {
		t.Errorf("%s differs (go test ./cmd/drvcheck -run %s -update, then review the diff):\n--- got\n%s--- want\n%s", path, t.Name(), out, want)
	}
}
