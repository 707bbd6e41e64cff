package exceptions

import (
	"strings"
	"testing"
	"time"

	"github.com/drvcheck/drvcheck/internal/config"
	"github.com/drvcheck/drvcheck/internal/inventory"
	"github.com/drvcheck/drvcheck/internal/object"
	"github.com/drvcheck/drvcheck/policy"
)

const manifests = `
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  annotations:
    drvcheck.io/ignore: "DRV001, drv002"
    drvcheck.io/ignore-reason: "node is being retired"
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-2
  annotations:
    drvcheck.io/ignore: DRV001
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-3
  annotations:
    drvcheck.io/ignore: DRV001
    drvcheck.io/ignore-reason: "waiting for the image"
    drvcheck.io/ignore-expires: "2025-01-31"
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-4
  annotations:
    drvcheck.io/ignore: DRV001
    drvcheck.io/ignore-reason: "x"
    drvcheck.io/ignore-expires: "next week"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml
  annotations:
    drvcheck.io/ignore: DRV023
    drvcheck.io/ignore-reason: "checkpoints to S3; force drain is fine"
spec:
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: trainer-abc
  namespace: ml
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: trainer, uid: "1", controller: true}
spec:
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer-abc-1
  namespace: ml
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: trainer-abc, uid: "2", controller: true}
spec: {containers: [{name: c, image: x}]}
`

func inv(t *testing.T) *inventory.Inventory {
	t.Helper()
	i, err := inventory.Parse("k8s.yaml", []byte(manifests), false)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func finding(rule, kind, ns, name string) policy.Finding {
	return policy.Finding{Rule: rule, Severity: policy.Error, Message: "m",
		Object: object.Ref{Kind: kind, Namespace: ns, Name: name}}
}

var today = time.Date(2025, 3, 1, 15, 0, 0, 0, time.UTC)

func TestAnnotations(t *testing.T) {
	set, err := New(nil, "", inv(t), today)
	if err != nil {
		t.Fatal(err)
	}
	out := set.Apply([]policy.Finding{
		finding("DRV001", "Node", "", "gpu-1"),               // suppressed
		finding("DRV002", "Node", "", "gpu-1"),               // suppressed: ids compare without case
		finding("DRV010", "Node", "", "gpu-1"),               // not listed
		finding("DRV001", "Node", "", "gpu-2"),               // no reason
		finding("DRV001", "Node", "", "gpu-3"),               // expired
		finding("DRV001", "Node", "", "gpu-4"),               // malformed date
		finding("DRV023", "Pod", "ml", "trainer-abc-1"),      // via ReplicaSet -> Deployment
		finding("DRV023", "ReplicaSet", "ml", "trainer-abc"), // via Deployment
		finding("DRV020", "Pod", "ml", "trainer-abc-1"),      // Deployment does not list it
	})
	var suppressed []string
	for _, s := range out.Suppressed {
		suppressed = append(suppressed, s.Rule+" "+s.Object.Name+": "+s.Reason)
		if s.Source != SourceAnnotation {
			t.Errorf("source = %q", s.Source)
		}
	}
	want := []string{
		"DRV001 gpu-1: node is being retired",
		"DRV002 gpu-1: node is being retired",
		"DRV023 trainer-abc-1: checkpoints to S3; force drain is fine",
		"DRV023 trainer-abc: checkpoints to S3; force drain is fine",
	}
	if strings.Join(suppressed, "\n") != strings.Join(want, "\n") {
		t.Errorf("suppressed:\n%s\nwant:\n%s", strings.Join(suppressed, "\n"), strings.Join(want, "\n"))
	}
	notes := map[string]string{}
	for _, f := range out.Findings {
		notes[f.Rule+" "+f.Object.Name] = f.Message
	}
	if len(out.Findings) != 5 {
		t.Fatalf("reported %d findings, want 5: %v", len(out.Findings), notes)
	}
	for key, want := range map[string]string{
		"DRV010 gpu-1":         "m",
		"DRV001 gpu-2":         "m (drvcheck.io/ignore on Node/gpu-2 has no drvcheck.io/ignore-reason, so it does not suppress)",
		"DRV001 gpu-3":         "m (drvcheck.io/ignore on Node/gpu-3 expired on 2025-01-31: waiting for the image)",
		"DRV001 gpu-4":         `m (drvcheck.io/ignore-expires "next week" on Node/gpu-4 is not a YYYY-MM-DD date, so drvcheck.io/ignore does not suppress)`,
		"DRV020 trainer-abc-1": "m",
	} {
		if notes[key] != want {
			t.Errorf("%s message = %q, want %q", key, notes[key], want)
		}
	}
	if len(out.Expired) != 1 || out.Expired[0].Object != "Node/gpu-3" || out.Expired[0].Source != SourceAnnotation {
		t.Errorf("expired = %+v", out.Expired)
	}
}

func TestConfigExceptions(t *testing.T) {
	list := []config.Exception{
		{Rule: "DRV02*", Object: "Deployment/ml/*", Reason: "drain handled by hand", Expires: "2025-03-01"},
		{Rule: "DRV001", Object: "Node/gpu-9", Reason: "old", Expires: "2025-02-28"},
		{Rule: "DRV001", Object: "Node/gpu-8", Reason: "never matched", Expires: "2024-01-01"},
	}
	set, err := New(list, "repo/.drvcheck.yaml", nil, today)
	if err != nil {
		t.Fatal(err)
	}
	out := set.Apply([]policy.Finding{
		finding("DRV020", "Deployment", "ml", "trainer"),  // suppressed on its last day
		finding("DRV010", "Deployment", "ml", "trainer"),  // rule does not match
		finding("DRV020", "Deployment", "ml2", "trainer"), // namespace does not match
		finding("DRV001", "Node", "", "gpu-9"),            // expired yesterday
	})
	if len(out.Suppressed) != 1 || out.Suppressed[0].Source != "repo/.drvcheck.yaml" ||
		out.Suppressed[0].Expires != "2025-03-01" || out.Suppressed[0].Reason != "drain handled by hand" {
		t.Errorf("suppressed = %+v", out.Suppressed)
	}
	if len(out.Findings) != 3 {
		t.Fatalf("findings = %+v", out.Findings)
	}
	if got := out.Findings[2].Message; got != "m (exception in repo/.drvcheck.yaml expired on 2025-02-28: old)" {
		t.Errorf("expired note = %q", got)
	}
	// Both expired entries are listed, matched or not, so stale ones get cleaned up.
	if len(out.Expired) != 2 || out.Expired[0].Object != "Node/gpu-9" || out.Expired[1].Object != "Node/gpu-8" {
		t.Errorf("expired = %+v", out.Expired)
	}
	if s := out.Expired[0].String(); !strings.Contains(s, "expired on 2025-02-28 and no longer suppresses") {
		t.Errorf("expired text = %q", s)
	}
}

func TestConfigExceptionErrors(t *testing.T) {
	for _, tc := range []struct {
		x    config.Exception
		want string
	}{
		{config.Exception{Object: "Node/a", Reason: "r"}, "exceptions[0]: no rule"},
		{config.Exception{Rule: "DRV001", Reason: "r"}, "exceptions[0]: no object"},
		{config.Exception{Rule: "DRV001", Object: "Node/a"}, "exceptions[0]: no reason"},
		{config.Exception{Rule: "DRV001", Object: "a", Reason: "r"}, `object "a" is not Kind/namespace/name or Kind/name`},
		{config.Exception{Rule: "DRV001", Object: "Pod/a/b/c", Reason: "r"}, `object "Pod/a/b/c" is not`},
		{config.Exception{Rule: "DRV[", Object: "Node/a", Reason: "r"}, `pattern "DRV["`},
		{config.Exception{Rule: "DRV001", Object: "Node/a", Reason: "r", Expires: "31/01/2025"}, `expires "31/01/2025" is not a YYYY-MM-DD date`},
	} {
		_, err := New([]config.Exception{tc.x}, ".drvcheck.yaml", nil, today)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), ".drvcheck.yaml: ") {
			t.Errorf("%+v: err = %v, want %q", tc.x, err, tc.want)
		}
	}
}

// Config entries are tried before annotations; a live one wins over an
// expired one whatever their order.
func TestFirstLiveExceptionWins(t *testing.T) {
	list := []config.Exception{
		{Rule: "DRV001", Object: "Node/gpu-3", Reason: "expired", Expires: "2020-01-01"},
		{Rule: "DRV001", Object: "Node/*", Reason: "all nodes"},
	}
	set, err := New(list, "c.yaml", inv(t), today)
	if err != nil {
		t.Fatal(err)
	}
	out := set.Apply([]policy.Finding{finding("DRV001", "Node", "", "gpu-3")})
	if len(out.Suppressed) != 1 || out.Suppressed[0].Reason != "all nodes" {
		t.Errorf("suppressed = %+v, findings = %+v", out.Suppressed, out.Findings)
	}
}

// Objects of kinds only custom rules read are found among the objects as
// read, when the inventory kept them.
func TestAnnotationOnCustomKind(t *testing.T) {
	src := `apiVersion: v1
kind: ConfigMap
metadata:
  name: gpu-settings
  namespace: ops
  annotations: {drvcheck.io/ignore: ACME001, drvcheck.io/ignore-reason: reviewed}
`
	i, err := inventory.Parse("cm.yaml", []byte(src), true)
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(nil, "", i, today)
	if err != nil {
		t.Fatal(err)
	}
	out := set.Apply([]policy.Finding{finding("ACME001", "ConfigMap", "ops", "gpu-settings")})
	if len(out.Suppressed) != 1 {
		t.Errorf("not suppressed: %+v", out.Findings)
	}
}

// Many pods made from one template carry the same expired annotation: one
// warning names the first and counts the rest.
func TestExpiredAnnotationsDeduplicated(t *testing.T) {
	var src strings.Builder
	for _, name := range []string{"p1", "p2", "p3"} {
		src.WriteString("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
			"\n  namespace: ml\n  annotations: {drvcheck.io/ignore: DRV023, drvcheck.io/ignore-reason: r, drvcheck.io/ignore-expires: \"2020-01-01\"}\n" +
			"spec: {containers: [{name: c, image: x}]}\n")
	}
	i, err := inventory.Parse("pods.yaml", []byte(src.String()), false)
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(nil, "", i, today)
	if err != nil {
		t.Fatal(err)
	}
	out := set.Apply(nil)
	if len(out.Expired) != 1 || out.Expired[0].Object != "Pod/ml/p1" || out.Expired[0].More != 2 ||
		!strings.Contains(out.Expired[0].String(), "on Pod/ml/p1 and 2 more (annotation)") {
		t.Errorf("expired = %+v", out.Expired)
	}
}
