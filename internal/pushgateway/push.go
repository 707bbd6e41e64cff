package pushgateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/drvcheck/drvcheck/internal/redact"
)

// Timeout bounds one push: a Pushgateway answers in milliseconds, and a
// nightly Job must not hang on one that does not.
const Timeout = 30 * time.Second

// contentType is the text exposition format render.Prometheus writes.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// GroupURL is where the metrics of base go: base itself when it already
// names a group (…/metrics/job/NAME…), else base/metrics/job/drvcheck.
func GroupURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--pushgateway %q: want an http or https URL, e.g. http://pushgateway:9091", redact.URL(base))
	}
	if !strings.Contains(u.Path, "/metrics/job/") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/metrics/job/drvcheck"
	}
	return u.String(), nil
}

// Push replaces the metrics of the group at base with body (PUT).
func Push(ctx context.Context, base string, body []byte) error {
	target, err := GroupURL(base)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	host := req.URL.Host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("pushgateway %s unreachable: %v", host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("pushgateway %s refused the metrics: %s: %s", host, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
