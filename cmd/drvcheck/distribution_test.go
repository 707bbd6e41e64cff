package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"golang.org/x/crypto/bcrypt"

	"github.com/drvcheck/drvcheck/internal/registry"
)

// The integration test runs Debian's docker-registry package, the CNCF
// distribution server, on a loopback port: once plain, once behind TLS with
// a self-signed CA and htpasswd basic auth. CI sets DRVCHECK_REQUIRE_REGISTRY
// so a missing binary fails there instead of skipping.
func TestDistributionRegistry(t *testing.T) {
	bin := distributionBinary(t)
	t.Run("plain", func(t *testing.T) { labScenario(t, startDistribution(t, bin, false)) })
	t.Run("tls-basic-auth", func(t *testing.T) {
		d := startDistribution(t, bin, true)
		// Without credentials the registry refuses, and drvcheck says so.
		isolateDockerConfig(t, "{}")
		r := drv(t, "audit", labDir, "--registry", d.repo("nvidia/driver"), "--registry-ca", d.caFile, "--cache-dir", t.TempDir())
		if r.code != 2 || !strings.Contains(r.stderr, "registry "+d.host+": repository nvidia/driver: authentication failed (401 Unauthorized") {
			t.Errorf("no credentials: exit %d, stderr %q", r.code, r.stderr)
		}
		// A wrong password is refused, and named nowhere.
		wrong := "wrong-" + d.password
		isolateDockerConfig(t, fmt.Sprintf(`{"auths": {%q: {"auth": %q}}}`, d.host,
			base64.StdEncoding.EncodeToString([]byte(d.user+":"+wrong))))
		r = drv(t, "audit", labDir, "--registry", d.repo("nvidia/driver"), "--registry-ca", d.caFile, "--cache-dir", t.TempDir())
		if r.code != 2 || !strings.Contains(r.stderr, "authentication failed (401 Unauthorized") || strings.Contains(r.stderr, wrong) {
			t.Errorf("wrong password: exit %d, stderr %q", r.code, r.stderr)
		}
		// Without the CA the certificate is not trusted.
		d.useDockerConfig(t)
		r = drv(t, "audit", labDir, "--registry", d.repo("nvidia/driver"), "--cache-dir", t.TempDir())
		if r.code != 2 || !strings.Contains(r.stderr, "TLS certificate not trusted") {
			t.Errorf("no CA: exit %d, stderr %q", r.code, r.stderr)
		}
		labScenario(t, d)
	})
}

// distributionBinary is Debian's docker-registry, or the test is skipped
// (failed where CI sets DRVCHECK_REQUIRE_REGISTRY).
func distributionBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("docker-registry")
	if err != nil {
		if os.Getenv("DRVCHECK_REQUIRE_REGISTRY") != "" {
			t.Fatalf("docker-registry not found and DRVCHECK_REQUIRE_REGISTRY is set (apt-get install docker-registry): %v", err)
		}
		t.Skip("docker-registry not installed (apt-get install docker-registry); set DRVCHECK_REQUIRE_REGISTRY=1 to fail instead")
	}
	return bin
}

// labScenario walks the acceptance steps against d: the lab's three
// tags, then the fourth, a union with the matrix, an unknown repository,
// real pagination, and the registry stopped.
func labScenario(t *testing.T, d *distribution) {
	d.useDockerConfig(t)
	repo := d.repo("nvidia/driver")
	var outputs []string
	record := func(t *testing.T, args ...string) result {
		t.Helper()
		r := drv(t, args...)
		outputs = append(outputs, r.stdout+r.stderr)
		return r
	}
	defer func() {
		for _, out := range outputs {
			for _, secret := range d.secrets() {
				if strings.Contains(out, secret) {
					t.Errorf("output holds a credential: %q", out)
				}
			}
		}
	}()
	audit := func(extra ...string) result {
		args := append([]string{"audit", labDir, "--registry", repo, "--registry-timeout", "5s"}, d.flags()...)
		return record(t, append(args, extra...)...)
	}

	d.push(t, "nvidia/driver", registryLabTags...)
	audit("--cache-dir", t.TempDir()).want(t, 1, "lab-node-3 MISSING "+labNode3Tag+"\n")

	warm := t.TempDir()
	d.push(t, "nvidia/driver", labNode3Tag)
	audit("--cache-dir", warm).want(t, 0, "OK\n")

	// Matrix and registry are one union: neither alone has every tag.
	d.push(t, "mirror/driver", labNode3Tag)
	mirror := append([]string{"audit", labDir, "--registry", d.repo("mirror/driver"), "--cache-dir", t.TempDir()}, d.flags()...)
	record(t, mirror...).want(t, 1, "lab-node-0 MISSING 550-5.15.0-119-generic-ubuntu22.04\n"+
		"lab-node-1 MISSING 535-5.15.0-107-generic-ubuntu22.04\nlab-node-2 MISSING 550-6.8.0-45-generic-ubuntu24.04\n")
	record(t, append(mirror, "--matrix", labMatrixPath)...).want(t, 0, "OK\n")

	r := record(t, append([]string{"audit", labDir, "--registry", d.repo("nvidia/nothing"), "--cache-dir", t.TempDir()}, d.flags()...)...)
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "registry "+d.host+": repository nvidia/nothing: repository not found (404 Not Found NAME_UNKNOWN)") {
		t.Errorf("unknown repository: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// The distribution server's own Link headers, one tag a page.
	lister, err := registry.New(registry.Options{PageSize: 1, CAFiles: d.caFiles(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	got, err := lister.List(context.Background(), []string{repo})
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(registryLabTags), labNode3Tag)
	slices.Sort(want)
	if !slices.Equal(got[0].Tags, want) {
		t.Errorf("paginated listing (n=1) = %v, want %v", got[0].Tags, want)
	}

	d.stop(t)
	r = audit("--cache-dir", t.TempDir())
	wantErr := "drvcheck: registry " + d.host + ": repository nvidia/driver: unreachable: connection refused\n"
	if r.code != 2 || r.stdout != "" || r.stderr != wantErr {
		t.Errorf("stopped registry: exit %d, stdout %q, stderr %q; want exit 2 and %q", r.code, r.stdout, r.stderr, wantErr)
	}
	// Inside the TTL a run sends no request, so a warm cache still answers.
	audit("--cache-dir", warm).want(t, 0, "OK\n")
}

// distribution is one docker-registry process.
type distribution struct {
	host     string // 127.0.0.1:PORT
	dir      string
	caFile   string // set when serving TLS
	user     string // set when htpasswd auth is on
	password string
	cmd      *exec.Cmd
	done     chan struct{}
	log      *syncBuffer
}

func startDistribution(t *testing.T, bin string, secure bool) *distribution {
	t.Helper()
	d := &distribution{dir: t.TempDir(), host: freeLoopbackPort(t), done: make(chan struct{}), log: &syncBuffer{}}
	config := fmt.Sprintf(`version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
  secret: %s
`, filepath.Join(d.dir, "data"), d.host, randomHex(t, 16))
	if secure {
		d.user, d.password = "ci-bot", randomHex(t, 12)
		d.caFile = writeCertificates(t, d.dir)
		hash, err := bcrypt.GenerateFromPassword([]byte(d.password), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d.dir, "htpasswd"), d.user+":"+string(hash)+"\n")
		config += fmt.Sprintf(`  tls:
    certificate: %s
    key: %s
auth:
  htpasswd:
    realm: drvcheck-test
    path: %s
`, filepath.Join(d.dir, "cert.pem"), filepath.Join(d.dir, "key.pem"), filepath.Join(d.dir, "htpasswd"))
	}
	cfgPath := filepath.Join(d.dir, "config.yml")
	writeFile(t, cfgPath, config)

	d.cmd = exec.Command(bin, "serve", cfgPath)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = d.cmd.Wait(); close(d.done) }() // killed at cleanup: its exit status says nothing
	t.Cleanup(func() { d.stop(t) })
	d.waitReady(t)
	return d
}

// waitReady polls /v2/ until the server answers (200, or 401 with auth).
func (d *distribution) waitReady(t *testing.T) {
	t.Helper()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: d.tlsConfig(t)}}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-d.done:
			t.Fatalf("docker-registry exited: %s", d.log.String())
		default:
		}
		resp, err := client.Get(d.scheme() + "://" + d.host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusUnauthorized {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("docker-registry on %s not ready in 20s: %s", d.host, d.log.String())
}

func (d *distribution) stop(t *testing.T) {
	select {
	case <-d.done:
		return
	default:
	}
	_ = d.cmd.Process.Kill() // it may have exited already; done tells
	<-d.done
}

func (d *distribution) repo(path string) string { return d.host + "/" + path }

func (d *distribution) scheme() string {
	if d.caFile != "" {
		return "https"
	}
	return "http"
}

func (d *distribution) caFiles() []string {
	if d.caFile == "" {
		return nil
	}
	return []string{d.caFile}
}

// flags are the drvcheck flags this server needs beyond --registry.
func (d *distribution) flags() []string {
	if d.caFile == "" {
		return nil
	}
	return []string{"--registry-ca", d.caFile}
}

// useDockerConfig gives drvcheck the credentials the way users do: a
// docker config file (auths.HOST.auth), read by the default keychain.
func (d *distribution) useDockerConfig(t *testing.T) {
	if d.user == "" {
		isolateDockerConfig(t, "{}")
		return
	}
	isolateDockerConfig(t, fmt.Sprintf(`{"auths": {%q: {"auth": %q}}}`, d.host, d.basicAuth()))
}

func (d *distribution) basicAuth() string {
	return base64.StdEncoding.EncodeToString([]byte(d.user + ":" + d.password))
}

// secrets are the strings no output may hold.
func (d *distribution) secrets() []string {
	if d.user == "" {
		return nil
	}
	return []string{d.password, d.basicAuth()}
}

func (d *distribution) tlsConfig(t *testing.T) *tls.Config {
	pool := x509.NewCertPool()
	if d.caFile != "" {
		data, err := os.ReadFile(d.caFile)
		if err != nil {
			t.Fatal(err)
		}
		pool.AppendCertsFromPEM(data)
	}
	return &tls.Config{RootCAs: pool}
}

// push writes a tiny random image to repo under every tag, with
// go-containerregistry, as a CI job pushing its driver builds would.
func (d *distribution) push(t *testing.T, repo string, tags ...string) {
	t.Helper()
	img, err := random.Image(256, 1)
	if err != nil {
		t.Fatal(err)
	}
	opts := []remote.Option{remote.WithTransport(&http.Transport{TLSClientConfig: d.tlsConfig(t)})}
	if d.user != "" {
		opts = append(opts, remote.WithAuth(&authn.Basic{Username: d.user, Password: d.password}))
	}
	for _, tag := range tags {
		ref, err := name.NewTag(d.repo(repo) + ":" + tag)
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Write(ref, img, opts...); err != nil {
			t.Fatalf("push %s: %v", ref, err)
		}
	}
}

// freeLoopbackPort returns 127.0.0.1:PORT with a port free a moment ago.
func freeLoopbackPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// writeCertificates makes a self-signed CA and a server certificate for
// 127.0.0.1 signed by it, in dir; it returns the CA file.
func writeCertificates(t *testing.T, dir string) string {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "drvcheck test CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	writeFile(t, caFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})))
	writeFile(t, filepath.Join(dir, "cert.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER})))
	writeFile(t, filepath.Join(dir, "key.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})))
	return caFile
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// syncBuffer collects the server's output from its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
