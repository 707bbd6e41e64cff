package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secret = "s3cr3t-t0ken"

// echoAuth is a misbehaving API server (or proxy) that refuses every
// request and quotes the request's Authorization header in its answer.
func echoAuth(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 500, "reason": "InternalError",
			"message": "upstream refused: Authorization: " + r.Header.Get("Authorization"),
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// No credential reaches the output, wherever it came from: the server's
// echo of the token, userinfo and query in a --registry value.
func TestCredentialsNeverPrinted(t *testing.T) {
	srv := echoAuth(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: %q}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, srv.URL, secret)
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"scan", "--kubeconfig", kc, "--request-timeout", "5s"},
		{"audit", "--kubeconfig", kc, "--matrix", matrix},
		{"audit", lab, "--registry", "user:" + secret + "@127.0.0.1:1/nvidia/driver"},
		{"audit", lab, "--registry", "127.0.0.1:1/nvidia/driver?token=" + secret},
		{"audit", lab, "--registry", "https://user:" + secret + "@127.0.0.1:1/nvidia/driver"},
	} {
		r := drv(t, args...)
		if r.code != 2 || strings.Contains(r.stdout+r.stderr, secret) || strings.Contains(r.stderr, "s3cr3t") {
			t.Errorf("%v: exit %d, a credential in the output:\n%s%s", args[:3], r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "[redacted]") {
			t.Errorf("%v: %q says nothing was taken out", args[:3], r.stderr)
		}
	}
}
