package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/drvcheck/drvcheck/internal/testcluster"
)

// TestForbidden reads as ServiceAccounts that lack rights and expects the
// refused resource and verb in the error.
func TestForbidden(t *testing.T) {
	c := shared.Get(t)
	ctx := testContext(t)

	none, err := c.ServiceAccountKubeconfig(ctx, "norights", "drvcheck")
	if err != nil {
		t.Fatal(err)
	}
	_, err = read(ctx, Options{Kubeconfig: none})
	wantErr(t, err, "cluster "+c.Host+": forbidden to list nodes ", `cannot list resource "nodes"`)

	// Every right but one: the error names the one.
	partial, err := c.ServiceAccountKubeconfig(ctx, "partial", "drvcheck")
	if err != nil {
		t.Fatal(err)
	}
	role := readerRole(t)
	role.Name = "all-but-budgets"
	role.Rules = slices.DeleteFunc(role.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.APIGroups, "policy") })
	bind(t, ctx, c, role, "partial", "drvcheck")
	_, err = read(ctx, Options{Kubeconfig: partial})
	wantErr(t, err, "forbidden to list poddisruptionbudgets.policy", c.Host)
}

// TestRBACFile applies deploy/rbac.yaml and reads everything as its
// ServiceAccount: the same objects as the admin reads.
func TestRBACFile(t *testing.T) {
	c := shared.Get(t)
	ctx := testContext(t)
	if _, stderr, err := c.Kubectl(ctx, "apply", "-f", rbacFile); err != nil {
		t.Fatalf("kubectl apply -f %s: %v: %s", rbacFile, err, stderr)
	}
	kc, err := c.ServiceAccountKubeconfig(ctx, "drvcheck", "drvcheck")
	if err != nil {
		t.Fatal(err)
	}
	// RBAC caches take a moment to see a new binding.
	var got, want int
	err = testcluster.Poll(ctx, "reading as drvcheck/drvcheck", func(ctx context.Context) (bool, error) {
		inv, err := read(ctx, Options{Kubeconfig: kc})
		if err != nil {
			return false, err
		}
		admin, err := read(ctx, Options{Kubeconfig: c.Kubeconfig})
		if err != nil {
			return false, err
		}
		got, want = inv.Objects, admin.Objects
		return got == want, nil
	})
	if err != nil {
		t.Fatalf("%v (read %d objects, admin %d)", err, got, want)
	}
}

// TestRBACFileGrantsExactlyWhatIsRead keeps deploy/rbac.yaml and AllKinds in
// step: get and list on each kind read, nothing else.
func TestRBACFileGrantsExactlyWhatIsRead(t *testing.T) {
	role := readerRole(t)
	var granted []string
	for _, r := range role.Rules {
		if !slices.Equal(r.Verbs, []string{"get", "list"}) {
			t.Errorf("rule %v: verbs %v, want [get list]", r.Resources, r.Verbs)
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				granted = append(granted, Kind{Resource: res, Group: g}.String())
			}
		}
	}
	var read []string
	for _, k := range AllKinds {
		read = append(read, k.String())
	}
	slices.Sort(granted)
	slices.Sort(read)
	if !slices.Equal(granted, read) {
		t.Errorf("deploy/rbac.yaml grants %v, drvcheck reads %v", granted, read)
	}
}

// TestUnreachable names the host that does not answer.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	kc := writeKubeconfig(t, map[string]string{"gone": "https://" + addr}, "gone")
	_, err = read(context.Background(), Options{Kubeconfig: kc, Timeout: 5 * time.Second})
	wantErr(t, err, "cluster https://"+addr+" unreachable: ", "connection refused")
	if strings.Contains(err.Error(), "secret-token") {
		t.Errorf("error shows the token: %v", err)
	}
}

// TestKubeconfigRules follows kubectl: --kubeconfig, else $KUBECONFIG, else
// ~/.kube/config; --context picks a context.
func TestKubeconfigRules(t *testing.T) {
	c := shared.Get(t)
	ctx := testContext(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "https://" + l.Addr().String()
	l.Close()
	two := copyWithContext(t, c, gone)

	// client-go reads $HOME once per process, so ~/.kube/config is tried
	// in a child process with its own HOME.
	home := t.TempDir()
	if got := readInChild(t, home, ""); !strings.Contains(got, "no configuration found") {
		t.Errorf("no kubeconfig anywhere: %s", got)
	}
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(two)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".kube", "config"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readInChild(t, home, ""); got != "OK" {
		t.Errorf("~/.kube/config: %s", got)
	}
	if got := readInChild(t, home, "other"); !strings.Contains(got, gone+" unreachable") {
		t.Errorf("~/.kube/config --context other should read %s: %s", gone, got)
	}

	t.Setenv("KUBECONFIG", two)
	if _, err := read(ctx, Options{}); err != nil {
		t.Errorf("$KUBECONFIG: %v", err)
	}
	if _, err := read(ctx, Options{Context: "other", Timeout: 5 * time.Second}); err == nil || !strings.Contains(err.Error(), gone) {
		t.Errorf("--context other should read %s: %v", gone, err)
	}
	if _, err := read(ctx, Options{Context: "nope"}); err == nil || !strings.Contains(err.Error(), `context "nope" does not exist`) {
		t.Errorf("--context nope: %v", err)
	}
	t.Setenv("KUBECONFIG", writeKubeconfig(t, map[string]string{"only": gone}, "only"))
	if _, err := read(ctx, Options{Kubeconfig: c.Kubeconfig}); err != nil {
		t.Errorf("--kubeconfig should win over $KUBECONFIG: %v", err)
	}
}

// readInChild runs TestChildRead in a new process with HOME set and
// KUBECONFIG unset, and returns what it printed: OK or the error.
func readInChild(t *testing.T, home, context string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRead$", "-test.count=1")
	cmd.Env = []string{"HOME=" + home, "DRVCHECK_CHILD_READ=1", "DRVCHECK_CHILD_CONTEXT=" + context, "PATH=" + os.Getenv("PATH")}
	out, _ := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(line, "child-read: "); ok {
			return r
		}
	}
	t.Fatalf("child printed no result:\n%s", out)
	return ""
}

// TestChildRead is readInChild's other half; it does nothing in a normal run.
func TestChildRead(t *testing.T) {
	if os.Getenv("DRVCHECK_CHILD_READ") == "" {
		return
	}
	_, err := read(context.Background(), Options{Context: os.Getenv("DRVCHECK_CHILD_CONTEXT"), Timeout: 5 * time.Second})
	if err != nil {
		fmt.Printf("child-read: %v\n", err)
		return
	}
	fmt.Println("child-read: OK")
}

func read(ctx context.Context, opt Options) (*struct{ Objects int }, error) {
	client, err := Connect(opt)
	if err != nil {
		return nil, err
	}
	inv, err := client.Read(ctx, nil, false)
	if err != nil {
		return nil, err
	}
	return &struct{ Objects int }{inv.Objects}, nil
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one with %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q lacks %q", err, p)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error spans lines: %q", err)
	}
}

var rbacFile = filepath.Join("..", "..", "deploy", "rbac.yaml")

// readerRole returns the ClusterRole of deploy/rbac.yaml.
func readerRole(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(rbacFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal([]byte(doc), &role); err != nil {
			t.Fatal(err)
		}
		if role.Kind == "ClusterRole" {
			return &role
		}
	}
	t.Fatal("no ClusterRole in deploy/rbac.yaml")
	return nil
}

// bind creates role and binds it to the ServiceAccount ns/name.
func bind(t *testing.T, ctx context.Context, c *testcluster.Cluster, role *rbacv1.ClusterRole, ns, name string) {
	t.Helper()
	role.ResourceVersion = ""
	if _, err := c.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Wait until the authorizer sees the binding.
	err := testcluster.Poll(ctx, "binding "+role.Name, func(ctx context.Context) (bool, error) {
		kc, err := c.ServiceAccountKubeconfig(ctx, ns, name)
		if err != nil {
			return false, err
		}
		client, err := Connect(Options{Kubeconfig: kc})
		if err != nil {
			return false, err
		}
		_, err = client.Read(ctx, []Kind{Nodes}, false)
		return err == nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeKubeconfig writes a kubeconfig with one context per server (no
// TLS verification: nothing answers there) and a token that must never be
// printed.
func writeKubeconfig(t *testing.T, servers map[string]string, current string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	for name, server := range servers {
		cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: "secret-token"}
		cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	}
	cfg.CurrentContext = current
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// copyWithContext copies the admin kubeconfig and adds a context "other"
// pointing at server.
func copyWithContext(t *testing.T, c *testcluster.Cluster, server string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Clusters["other"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["other"] = &clientcmdapi.AuthInfo{Token: "secret-token"}
	cfg.Contexts["other"] = &clientcmdapi.Context{Cluster: "other", AuthInfo: "other"}
	path := filepath.Join(t.TempDir(), "two")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}
