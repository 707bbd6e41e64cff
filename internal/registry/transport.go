package registry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/drvcheck/drvcheck/internal/repofs"
)

// newTransport builds the HTTP stack every listing goes through, innermost
// first: the network (with the extra CAs), a guard against plain HTTP to
// hosts not allowed it, and the per-request timeout with retries.
// go-containerregistry adds authentication on top.
func newTransport(o Options) (http.RoundTripper, error) {
	pool, err := certPool(o.FS, o.CAFiles)
	if err != nil {
		return nil, err
	}
	base := remote.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	guard := &plainHTTPGuard{inner: redirectLimit{base}, insecure: o.Insecure}
	return newRetry(guard, o.Timeout, o.Retry), nil
}

// certPool is the system's pool plus the certificates of files.
func certPool(fsys *repofs.FS, files []string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	for _, f := range files {
		data, err := fsys.ReadGiven(f)
		if err != nil {
			return nil, fmt.Errorf("--registry-ca %w", err)
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("--registry-ca %s: no PEM certificate in it", f)
		}
	}
	return pool, nil
}

// plainHTTPGuard refuses plain HTTP to any host that is neither loopback
// nor named by --insecure-registry. go-containerregistry would otherwise
// fall back to HTTP for private (RFC 1918) addresses on its own, and a
// token realm could send credentials in the clear.
type plainHTTPGuard struct {
	inner    http.RoundTripper
	insecure []string
}

func (g *plainHTTPGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme == "http" && !plainAllowed(req.URL.Host, g.insecure) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &plainHTTPError{Host: req.URL.Host}
	}
	return g.inner.RoundTrip(req)
}

// plainAllowed reports whether hostport may be reached over plain HTTP.
func plainAllowed(hostport string, insecure []string) bool {
	host := hostOnly(hostport)
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	return insecureHost(hostport, insecure)
}

// insecureHost reports whether --insecure-registry names hostport, either
// exactly or by its host alone (any port).
func insecureHost(hostport string, insecure []string) bool {
	host := hostOnly(hostport)
	for _, h := range insecure {
		if strings.EqualFold(h, hostport) || strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// hostOnly drops the port of host:port (and the brackets of an IPv6 address).
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// redirectLimit refuses a request that is the MaxRedirects+1st redirect
// of a chain. go-containerregistry sets its own CheckRedirect (against
// redirects to private hosts) and so drops net/http's limit: a registry
// that redirects to itself would be followed forever.
type redirectLimit struct{ inner http.RoundTripper }

func (r redirectLimit) RoundTrip(req *http.Request) (*http.Response, error) {
	n := 0
	for prev := req.Response; prev != nil && prev.Request != nil; prev = prev.Request.Response {
		n++
	}
	if n > MaxRedirects {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &limitError{fmt.Sprintf("more than %d redirects, the last to %s", MaxRedirects, req.URL.Redacted())}
	}
	return r.inner.RoundTrip(req)
}

// limitError is a bound drvcheck put on a registry that would not stop.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// plainHTTPError is a plain-HTTP request the guard refused.
type plainHTTPError struct{ Host string }

func (e *plainHTTPError) Error() string {
	return fmt.Sprintf("plain HTTP to %s refused; pass --insecure-registry %s to allow it", e.Host, e.Host)
}
