package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Error is a repository that could not be listed. Its message names the
// registry host, the repository and the reason, and never a credential:
// the reason is written here, not copied from a library.
type Error struct {
	Registry   string // host[:port]
	Repository string // path inside the registry, e.g. nvidia/driver
	Reason     string
	Err        error
}

func (e *Error) Error() string {
	return fmt.Sprintf("registry %s: repository %s: %s", e.Registry, e.Repository, e.Reason)
}

func (e *Error) Unwrap() error { return e.Err }

// Errors are the failures of several repositories, on one line.
type Errors []error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

func (es Errors) Unwrap() []error { return es }

// reason says in words why a listing failed. The checks go from the most
// telling to the least: when go-containerregistry tried HTTPS and HTTP and
// both failed, the certificate or the refused connection explains more
// than the other scheme's answer.
func reason(err error) string {
	var (
		unknownCA  x509.UnknownAuthorityError
		verify     *tls.CertificateVerificationError
		hostname   x509.HostnameError
		dns        *net.DNSError
		timeout    *timeoutError
		limit      *limitError
		status     *statusError
		plain      *plainHTTPError
		terr       *transport.Error
		recordHdr  tls.RecordHeaderError
		invalidCrt x509.CertificateInvalidError
	)
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.As(err, &limit):
		return limit.Error()
	case errors.As(err, &hostname):
		return "TLS certificate does not match the host (" + hostname.Error() + ")"
	case errors.As(err, &unknownCA), errors.As(err, &verify):
		return "TLS certificate not trusted (signed by an unknown authority); pass --registry-ca FILE with the CA that signed it"
	case errors.As(err, &invalidCrt):
		return "TLS certificate invalid (" + invalidCrt.Error() + ")"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "unreachable: connection refused"
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "unreachable: host not found"
		}
		return "unreachable: DNS lookup failed"
	case errors.As(err, &timeout), errors.As(err, &status), errors.As(err, &plain):
		return firstOf(timeout, status, plain)
	case errors.As(err, &terr):
		return statusReason(terr)
	case errors.As(err, &recordHdr):
		return "the registry answers plain HTTP, not HTTPS; pass --insecure-registry HOST if that is intended"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	}
	return "failed: " + redact(err.Error())
}

// firstOf is the message of the one non-nil error among typed pointers.
func firstOf(te *timeoutError, se *statusError, pe *plainHTTPError) string {
	switch {
	case te != nil:
		return te.Error()
	case se != nil:
		return se.Error()
	}
	return pe.Error()
}

// statusReason explains a registry's error answer by its status and code.
func statusReason(e *transport.Error) string {
	code := ""
	if len(e.Errors) > 0 {
		code = " " + string(e.Errors[0].Code)
	}
	status := fmt.Sprintf("%d %s%s", e.StatusCode, http.StatusText(e.StatusCode), code)
	switch e.StatusCode {
	case http.StatusUnauthorized:
		return "authentication failed (" + status + "): no or wrong credentials for this registry in the docker config or credential helpers"
	case http.StatusForbidden:
		return "access denied (" + status + ")"
	case http.StatusNotFound:
		return "repository not found (" + status + ")"
	}
	return "unexpected answer (" + status + ")"
}

// redact drops what a URL may carry besides its host and path (user info,
// query) from a library's message, which is shown only as a last resort.
func redact(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		trimmed := strings.Trim(f, `"'():;,`)
		u, err := url.Parse(trimmed)
		if err != nil || u.Scheme == "" || u.Host == "" {
			continue
		}
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		fields[i] = strings.Replace(f, trimmed, u.String(), 1)
	}
	return strings.Join(fields, " ")
}
