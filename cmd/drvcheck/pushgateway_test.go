package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// pushgateway is one prometheus-pushgateway process (Debian's package), on
// loopback, without persistence.
type pushgatewayServer struct{ url string }

func startPushgateway(t *testing.T) pushgatewayServer {
	t.Helper()
	bin, err := exec.LookPath("prometheus-pushgateway")
	if err != nil {
		if os.Getenv("DRVCHECK_REQUIRE_PUSHGATEWAY") != "" {
			t.Fatalf("prometheus-pushgateway not found and DRVCHECK_REQUIRE_PUSHGATEWAY is set (apt-get install prometheus-pushgateway): %v", err)
		}
		t.Skip("prometheus-pushgateway not installed (apt-get install prometheus-pushgateway); set DRVCHECK_REQUIRE_PUSHGATEWAY=1 to fail instead")
	}
	host := freeLoopbackPort(t)
	log := &syncBuffer{}
	cmd := exec.Command(bin, "--web.listen-address="+host, "--persistence.file=")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := pushgatewayServer{url: "http://" + host}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(s.url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pushgateway on %s not ready in 20s: %s", host, log.String())
	return s
}

// metrics returns the samples the pushgateway serves for job drvcheck.
func (s pushgatewayServer) metrics(t *testing.T) []string {
	t.Helper()
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var out []string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "drvcheck_") && strings.Contains(l, `job="drvcheck"`) {
			out = append(out, l)
		}
	}
	return out
}

func hasSample(samples []string, prefix string, labels []string, value string) bool {
	for _, s := range samples {
		if !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, " "+value) {
			continue
		}
		all := true
		for _, l := range labels {
			all = all && strings.Contains(s, l)
		}
		if all {
			return true
		}
	}
	return false
}

// The lab's findings reach a real Pushgateway, which parses what drvcheck
// sends (a malformed exposition would be refused); a run that cannot
// judge replaces them with scan_success 0, so no stale count stays.
func TestPushgateway(t *testing.T) {
	pg := startPushgateway(t)
	if r := drv(t, "check", lab, "--matrix", matrix, "--pushgateway", pg.url, "-o", "json"); r.code != exitFindings {
		t.Fatalf("check: exit %d %s", r.code, r.stderr)
	}
	got := pg.metrics(t)
	if !hasSample(got, "drvcheck_findings{", []string{`rule="DRV001"`, `severity="error"`}, "1") ||
		!hasSample(got, "drvcheck_findings{", []string{`rule="DRV011"`}, "0") ||
		!hasSample(got, "drvcheck_scan_success{", nil, "1") ||
		!hasSample(got, "drvcheck_gpu_nodes{", []string{`upgrade_state=""`}, "4") {
		t.Errorf("pushed metrics:\n%s", strings.Join(got, "\n"))
	}
	if r := drv(t, "check", "no-such-dir", "--pushgateway", pg.url+"/metrics/job/drvcheck"); r.code != exitError {
		t.Fatalf("check of a missing folder: exit %d", r.code)
	}
	got = pg.metrics(t)
	if !hasSample(got, "drvcheck_scan_success{", nil, "0") || hasSample(got, "drvcheck_findings{", nil, "1") {
		t.Errorf("after a failed run:\n%s", strings.Join(got, "\n"))
	}
}

func TestPushgatewayRefused(t *testing.T) {
	cases := []struct{ url, want string }{
		{"http://" + freeLoopbackPort(t), "pushgateway 127.0.0.1:"},
		{"ftp://pushgateway:9091", `--pushgateway "ftp://pushgateway:9091": want an http or https URL`},
		{"http://user:s3cret@" + freeLoopbackPort(t), "unreachable"},
	}
	for _, c := range cases {
		r := drv(t, "check", lab, "--matrix", matrix, "--pushgateway", c.url)
		if r.code != exitError || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "s3cret") {
			t.Errorf("--pushgateway %s: exit %d %q; want exit 2 and %q", c.url, r.code, r.stderr, c.want)
		}
	}
}

// A Pushgateway's error body reaches the error line, but not its control
// characters: an escape sequence would drive the terminal, a newline forge
// a line of the CI log. A password in a URL that does not parse is masked
// whole, however it is written.
func TestPushgatewayAnswerIsEscaped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "bad\x1b[31m request\n::error::forged")
	}))
	defer srv.Close()
	r := drv(t, "check", lab, "--matrix", matrix, "--pushgateway", srv.URL)
	if r.code != exitError || strings.Contains(r.stderr, "\x1b") || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, `\x1b[31m`) {
		t.Errorf("exit %d %q", r.code, r.stderr)
	}
	for _, url := range []string{"http://user:s3 cret@host/", "http://user:s3/cret@[::1", `http://user:s3"cret@host:bad`} {
		if r := drv(t, "check", lab, "--pushgateway", url); r.code != exitError || strings.Contains(r.stderr, "cret") {
			t.Errorf("--pushgateway %q: exit %d %q", url, r.code, r.stderr)
		}
	}
}
