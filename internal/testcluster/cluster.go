package testcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options shape a cluster.
type Options struct {
	// Quiet leaves out what keeps a large fake fleet busy for nothing:
	// kwok's node heartbeats and the node lifecycle controller. For
	// benchmarks with thousands of nodes; tests leave it false, so that
	// nodes lose the not-ready taint as on a real cluster.
	Quiet bool
	// FeatureGates are given to the API server, the controller manager and
	// the scheduler alike (--feature-gates), as Name=true; APIs are the API
	// server's --runtime-config: group/version=true for APIs a release
	// serves only on request (beta ones since 1.24).
	FeatureGates []string
	APIs         []string
}

// Cluster is a running control plane.
type Cluster struct {
	// Kubeconfig is the path of an admin kubeconfig (token of a member of
	// system:masters).
	Kubeconfig string
	// Host is the API server's URL.
	Host string
	// Config and Client are the admin's.
	Config *rest.Config
	Client kubernetes.Interface
	// Dir holds the cluster's files and the logs of its processes.
	Dir string

	bin     string
	secrets *secrets
	procs   []*proc
}

// startTimeout bounds how long the whole control plane may take to become
// ready on a loaded two-core machine.
const startTimeout = 4 * time.Minute

// Start starts a cluster for one test and stops it when the test ends. It
// skips the test when the binaries are absent and not required.
func Start(tb testing.TB, opt Options) *Cluster {
	tb.Helper()
	c, err := New(opt)
	if errors.Is(err, errSkip) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

// Require skips tb, as Start would, when the binaries are absent and not
// required, without starting anything: for tests that prepare costly
// parts of their own first.
func Require(tb testing.TB) {
	tb.Helper()
	if _, err := binDir(); errors.Is(err, errSkip) {
		tb.Skip(err)
	} else if err != nil {
		tb.Fatal(err)
	}
}

// New starts a cluster; the caller stops it. It returns an error wrapping
// errSkip when the binaries are absent and not required (see Skipped).
func New(opt Options) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		c, err := newCluster(bin, opt)
		if err == nil || attempt == 3 {
			return c, err
		}
		// A free port can be taken by another test process between our
		// asking for it and the component binding it: try again. Any other
		// failure to start (once in CI, a controller manager that never made
		// the default ServiceAccount in four minutes on a loaded machine)
		// gets one more cluster, and its message is kept on stderr.
		if !strings.Contains(err.Error(), "address already in use") {
			if attempt == 2 {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "testcluster: starting again after: %v\n", err)
		}
	}
}

func newCluster(bin string, opt Options) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "drvcheck-cluster-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := c.start(ctx, opt); err != nil {
		c.Stop()
		return nil, fmt.Errorf("test cluster: %w", err)
	}
	return c, nil
}

// Skipped reports whether err means the binaries are absent and a test
// may skip.
func Skipped(err error) bool { return errors.Is(err, errSkip) }

func (c *Cluster) start(ctx context.Context, opt Options) error {
	var err error
	if c.secrets, err = makeSecrets(c.Dir); err != nil {
		return err
	}
	ports, err := freePorts(6)
	if err != nil {
		return err
	}
	etcdURL, peerURL := "http://127.0.0.1:"+ports[0], "http://127.0.0.1:"+ports[1]
	c.Host = "https://127.0.0.1:" + ports[2]
	if err := c.writeAdminKubeconfig(); err != nil {
		return err
	}
	steps := []func(context.Context) error{
		func(ctx context.Context) error { return c.startEtcd(ctx, etcdURL, peerURL) },
		func(ctx context.Context) error { return c.startAPIServer(ctx, etcdURL, ports[2], opt) },
		func(ctx context.Context) error { return c.startControllerManager(ctx, ports[3], opt) },
		func(ctx context.Context) error { return c.startScheduler(ctx, ports[4], opt) },
		func(ctx context.Context) error { return c.startKwok(ctx, ports[5], opt) },
		c.waitStarted,
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// waitStarted waits for the default ServiceAccount, the controller
// manager's first work, failing early when a process has exited and
// naming the controller manager's last log lines when it never comes.
func (c *Cluster) waitStarted(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var gone error
	err := Poll(ctx, "ServiceAccount default/default", func(ctx context.Context) (bool, error) {
		for _, p := range c.procs {
			if gone = p.exited(); gone != nil {
				cancel()
				return false, gone
			}
		}
		return c.hasDefaultServiceAccount(ctx, "default")
	})
	switch {
	case gone != nil:
		return gone
	case err != nil:
		return fmt.Errorf("%w; kube-controller-manager log:\n%s", err, c.proc("kube-controller-manager").tail())
	}
	return nil
}

func (c *Cluster) proc(name string) *proc {
	for _, p := range c.procs {
		if p.name == name {
			return p
		}
	}
	return nil
}

// Stop ends every process, last started first, and removes the cluster's
// folder unless DRVCHECK_KEEP_CLUSTER is set (to read the logs).
func (c *Cluster) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		c.procs[i].stop()
	}
	c.procs = nil
	if os.Getenv("DRVCHECK_KEEP_CLUSTER") != "" {
		fmt.Fprintf(os.Stderr, "testcluster: kept %s\n", c.Dir)
		return
	}
	_ = os.RemoveAll(c.Dir)
}

// StopKwok ends kwok alone: the fake kubelets stop, the objects stay. A
// benchmark does this once its fleet is up, so that nothing else runs
// while it measures.
func (c *Cluster) StopKwok() {
	for _, p := range c.procs {
		if p.name == "kwok" {
			p.stop()
		}
	}
}

func (c *Cluster) env() []string {
	env := []string{"HOME=" + c.Dir} // kwok reads ~/.kwok; keep the user's out
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}
	return env
}

func (c *Cluster) run(name string, args ...string) (*proc, error) {
	p, err := startProc(c.Dir, c.bin, name, c.env(), args...)
	if err != nil {
		return nil, err
	}
	c.procs = append(c.procs, p)
	return p, nil
}

func (c *Cluster) writeAdminKubeconfig() error {
	c.Kubeconfig = filepath.Join(c.Dir, "admin.kubeconfig")
	if err := c.WriteKubeconfig(c.Kubeconfig, "admin", c.secrets.adminToken); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 500, 1000
	c.Config = cfg
	c.Client, err = kubernetes.NewForConfig(cfg)
	return err
}

// WriteKubeconfig writes a kubeconfig for this cluster that authenticates
// with token, under a context named name.
func (c *Cluster) WriteKubeconfig(path, name, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.secrets.caPEM}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "test", AuthInfo: name}
	cfg.CurrentContext = name
	return clientcmd.WriteToFile(*cfg, path)
}

// freePorts asks the kernel for n free loopback ports.
func freePorts(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]string, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports[i] = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
