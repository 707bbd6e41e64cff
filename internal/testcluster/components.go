package testcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"path/filepath"
	"strings"
)

func (c *Cluster) startEtcd(ctx context.Context, clientURL, peerURL string) error {
	p, err := c.run("etcd",
		"--name=default", "--data-dir="+filepath.Join(c.Dir, "etcd"),
		"--listen-client-urls="+clientURL, "--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync", // a test cluster survives no crash; fsync only slows it
		"--log-level=warn")
	if err != nil {
		return err
	}
	return waitHTTP(ctx, p, http.DefaultClient, clientURL+"/health", "")
}

func (c *Cluster) startAPIServer(ctx context.Context, etcdURL, port string, opt Options) error {
	s := c.secrets
	flags := opt.gates()
	if len(opt.APIs) > 0 {
		flags = append(flags, "--runtime-config="+strings.Join(opt.APIs, ","))
	}
	p, err := c.run("kube-apiserver", append(flags,
		"--etcd-servers="+etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port="+port,
		"--tls-cert-file="+s.certFile, "--tls-private-key-file="+s.keyFile,
		"--token-auth-file="+s.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+s.saPub, "--service-account-signing-key-file="+s.saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none", // a loopback address may not be an endpoint
		"--allow-privileged=true", "--profiling=false")...)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.caPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	return waitHTTP(ctx, p, client, c.Host+"/readyz", s.adminToken)
}

func (c *Cluster) startControllerManager(ctx context.Context, port string, opt Options) error {
	controllers := "*"
	if opt.Quiet {
		controllers = "*,-node-lifecycle-controller"
	}
	p, err := c.run("kube-controller-manager", append(opt.gates(),
		"--kubeconfig="+c.Kubeconfig,
		"--authentication-kubeconfig="+c.Kubeconfig, "--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port="+port,
		"--leader-elect=false",
		"--controllers="+controllers,
		"--service-account-private-key-file="+c.secrets.saKey,
		"--root-ca-file="+c.secrets.caFile,
		"--use-service-account-credentials=false",
		"--profiling=false")...)
	if err != nil {
		return err
	}
	return waitHTTP(ctx, p, insecureClient, "https://127.0.0.1:"+port+"/healthz", "")
}

func (c *Cluster) startScheduler(ctx context.Context, port string, opt Options) error {
	p, err := c.run("kube-scheduler", append(opt.gates(),
		"--kubeconfig="+c.Kubeconfig,
		"--authentication-kubeconfig="+c.Kubeconfig, "--authorization-kubeconfig="+c.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port="+port,
		"--leader-elect=false", "--profiling=false")...)
	if err != nil {
		return err
	}
	return waitHTTP(ctx, p, insecureClient, "https://127.0.0.1:"+port+"/healthz", "")
}

// gates are the --feature-gates every component takes alike.
func (o Options) gates() []string {
	if len(o.FeatureGates) == 0 {
		return nil
	}
	return []string{"--feature-gates=" + strings.Join(o.FeatureGates, ",")}
}

// startKwok runs kwok on the nodes annotated kwok.x-k8s.io/node=fake, as the
// lab's nodes are, with kwok's stages: node/fast makes a node Ready,
// node/heartbeat keeps it so, pod/fast runs, completes and deletes pods.
func (c *Cluster) startKwok(ctx context.Context, port string, opt Options) error {
	stages := []string{"node/fast/node-initialize.yaml", "pod/fast/pod-ready.yaml", "pod/fast/pod-complete.yaml", "pod/fast/pod-delete.yaml"}
	if !opt.Quiet {
		stages = append(stages, "node/heartbeat/node-heartbeat.yaml")
	}
	args := []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--cidr=10.128.0.0/14", "--node-ip=127.0.0.1",
		"--server-address=127.0.0.1:" + port,
	}
	for _, s := range stages {
		args = append(args, "--config="+filepath.Join(c.bin, "stage", s))
	}
	p, err := c.run("kwok", args...)
	if err != nil {
		return err
	}
	return waitHTTP(ctx, p, http.DefaultClient, "http://127.0.0.1:"+port+"/healthz", "")
}

// insecureClient probes the health of the controller manager and the
// scheduler, which serve on certificates they make themselves.
var insecureClient = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
