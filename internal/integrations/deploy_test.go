package integrations

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/load"
)

// The CronJob decodes as the API server would take it, runs drvcheck scan
// with JSON on stdout as the read-only ServiceAccount, and runs as the
// non-root user the image declares.
func TestDeployCronJob(t *testing.T) {
	inv, err := inventory.Read(context.Background(), []string{filepath.Join(repo, "deploy", "cronjob.yaml")}, load.Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.CronJobs) != 1 {
		t.Fatalf("%d CronJobs", len(inv.CronJobs))
	}
	cj := inv.CronJobs[0]
	pod := cj.Spec.JobTemplate.Spec.Template.Spec
	if cj.Namespace != "drvcheck" || pod.ServiceAccountName != "drvcheck" {
		t.Errorf("namespace %q, serviceAccountName %q; want drvcheck and drvcheck (deploy/rbac.yaml)", cj.Namespace, pod.ServiceAccountName)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Args) < 3 || c.Args[0] != "scan" || !slices.Contains(c.Args, "json") {
		t.Errorf("args %v: want drvcheck scan -o json", c.Args)
	}
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65532 {
		t.Errorf("pod security context %+v: want runAsNonRoot and user 65532", sc)
	}
	if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem ||
		!slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/tmp" }) {
		t.Errorf("container must have a read-only root with a writable /tmp: %+v %+v", c.SecurityContext, c.VolumeMounts)
	}
}

// The Dockerfile's final image is distroless, non-root, with the same
// entrypoint as make image's.
func TestDeployDockerfile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repo, "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := strings.Split(string(data), "\nFROM ")
	final := stages[len(stages)-1]
	for _, re := range []string{`^gcr\.io/distroless/static[^\s]*:nonroot`, `(?m)^USER 65532:65532$`, `(?m)^ENTRYPOINT \["/drvcheck"\]$`} {
		if !regexp.MustCompile(re).MatchString(final) {
			t.Errorf("the Dockerfile's final stage does not match %s", re)
		}
	}
	if !strings.Contains(string(data), "CGO_ENABLED=0 go build") {
		t.Errorf("the binary is not built static (CGO_ENABLED=0)")
	}
}

// The names the CronJob uses must exist in deploy/rbac.yaml, and the role
// must only read.
func TestDeployRBAC(t *testing.T) {
	path := filepath.Join(repo, "deploy", "rbac.yaml")
	objs, err := load.Load(context.Background(), []string{path}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]*load.Object{}
	for _, o := range objs {
		have[o.Kind+"/"+o.Namespace+"/"+o.Name] = o
	}
	if have["ServiceAccount/drvcheck/drvcheck"] == nil || have["ClusterRole//drvcheck-reader"] == nil {
		t.Fatalf("rbac.yaml lacks ServiceAccount drvcheck/drvcheck or ClusterRole drvcheck-reader: %v", have)
	}
	rules, _ := have["ClusterRole//drvcheck-reader"].Raw["rules"].([]any)
	for _, r := range rules {
		for _, v := range r.(map[string]any)["verbs"].([]any) {
			if !slices.Contains([]any{"get", "list", "watch"}, v) {
				t.Errorf("drvcheck-reader may %v", v)
			}
		}
	}
}

// The report's one write is scoped to the one ConfigMap the report CronJob
// names: the Role may get and update it, by name, and nothing else.
func TestDeployReportRBAC(t *testing.T) {
	objs, err := load.Load(context.Background(), []string{filepath.Join(repo, "deploy", "report-rbac.yaml")}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]*load.Object{}
	for _, o := range objs {
		have[o.Kind+"/"+o.Namespace+"/"+o.Name] = o
	}
	role := have["Role/drvcheck/drvcheck-report-writer"]
	if have["ConfigMap/drvcheck/drvcheck-report"] == nil || role == nil || have["RoleBinding/drvcheck/drvcheck-report-writer"] == nil {
		t.Fatalf("report-rbac.yaml holds %v", have)
	}
	rules, _ := role.Raw["rules"].([]any)
	if len(rules) != 1 {
		t.Fatalf("%d rules, want 1", len(rules))
	}
	r := rules[0].(map[string]any)
	if fmt.Sprint(r["resources"]) != "[configmaps]" || fmt.Sprint(r["resourceNames"]) != "[drvcheck-report]" ||
		fmt.Sprint(r["verbs"]) != "[get update]" {
		t.Errorf("rule %v: want get and update on configmaps/drvcheck-report only", r)
	}
	// report merge's reader gets that ConfigMap alone.
	reader := have["Role/drvcheck/drvcheck-report-reader"]
	if reader == nil || fmt.Sprint(reader.Raw["rules"]) != "[map[apiGroups:[] resourceNames:[drvcheck-report] resources:[configmaps] verbs:[get]]]" {
		t.Errorf("drvcheck-report-reader: %v", reader)
	}
	inv, err := inventory.Read(context.Background(), []string{filepath.Join(repo, "deploy", "cronjob-report.yaml")}, load.Options{}, false)
	if err != nil || len(inv.CronJobs) != 1 {
		t.Fatalf("cronjob-report.yaml: %v", err)
	}
	args := inv.CronJobs[0].Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "configmap=drvcheck/drvcheck-report") {
		t.Errorf("cronjob-report.yaml args %v do not write the ConfigMap", args)
	}
}
