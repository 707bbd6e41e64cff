package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxBody bounds an answer kept in memory. A page of 1000 tags is tens of
// kilobytes; anything near this is not a tag list.
const maxBody = 32 << 20

// retryTransport gives every request its own deadline (headers and body)
// and retries what may pass: 429, 5xx, timeouts and dropped connections.
// It reads each answer in full inside the deadline, so a stalled body is
// retried like a stalled header.
type retryTransport struct {
	inner   http.RoundTripper
	timeout time.Duration
	backoff Backoff
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
}

func newRetry(inner http.RoundTripper, timeout time.Duration, b Backoff) *retryTransport {
	return &retryTransport{inner: inner, timeout: timeout, backoff: b, now: time.Now, sleep: sleepCtx}
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := t.try(req, attempt)
		wait, again := t.verdict(req, resp, err, attempt)
		if !again {
			return t.final(req, resp, err, attempt)
		}
		if resp != nil {
			resp.Body.Close()
		}
		if err := t.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// try sends req once under its own deadline and reads the whole answer.
func (t *retryTransport) try(req *http.Request, attempt int) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	defer cancel()
	r := req.Clone(ctx)
	if attempt > 1 && req.Body != nil && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	resp, err := t.inner.RoundTrip(r)
	if err == nil {
		err = readAll(resp)
	}
	if err == nil {
		return resp, nil
	}
	if ctx.Err() == context.DeadlineExceeded && req.Context().Err() == nil {
		return nil, &timeoutError{Timeout: t.timeout, Attempts: attempt}
	}
	return nil, err
}

// readAll replaces resp.Body by its content, read now.
func readAll(resp *http.Response) error {
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return err
	}
	if len(data) > maxBody {
		return fmt.Errorf("answer larger than %d MiB", maxBody>>20)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return nil
}

// verdict says whether to try again and after how long.
func (t *retryTransport) verdict(req *http.Request, resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if attempt >= t.backoff.Attempts || req.Context().Err() != nil {
		return 0, false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return 0, false // the body cannot be sent again
	}
	if err != nil {
		return t.wait(attempt), transient(err)
	}
	if !retryStatus(resp.StatusCode) {
		return 0, false
	}
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), t.now()); ok {
		return d, d <= t.backoff.Max
	}
	return t.wait(attempt), true
}

// final turns the last answer into what the caller sees: a status that
// was retried in vain becomes a statusError that says how often it was tried.
func (t *retryTransport) final(req *http.Request, resp *http.Response, err error, attempt int) (*http.Response, error) {
	if err != nil || !retryStatus(resp.StatusCode) {
		return resp, err
	}
	resp.Body.Close()
	se := &statusError{Code: resp.StatusCode, Attempts: attempt}
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), t.now()); ok && d > t.backoff.Max {
		se.RetryAfter, se.MaxWait = d, t.backoff.Max
	}
	return nil, se
}

// wait is the backoff before try attempt+1: Base doubled each time, ±10%.
func (t *retryTransport) wait(attempt int) time.Duration {
	d := t.backoff.Base << (attempt - 1)
	if d > t.backoff.Max || d <= 0 {
		d = t.backoff.Max
	}
	jitter := 0.9 + 0.2*rand.Float64()
	return time.Duration(float64(d) * jitter)
}

// retryStatus reports the answers worth asking again: rate limits and
// server-side failures.
func retryStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusRequestTimeout,
		http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// transient reports errors that a new attempt may not meet: timeouts and
// connections dropped mid-way. A refused connection, an unknown host or a
// TLS failure will not change within seconds, so they fail at once.
func transient(err error) bool {
	var te *timeoutError
	var ne net.Error
	switch {
	case errors.As(err, &te):
		return true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	return false
}

// retryAfter parses a Retry-After header: seconds, or an HTTP date.
func retryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(h); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(h); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// timeoutError is a request that got no full answer within --registry-timeout.
type timeoutError struct {
	Timeout  time.Duration
	Attempts int
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("no answer within %s (--registry-timeout) after %s", e.Timeout, tries(e.Attempts))
}

// statusError is a 429 or 5xx answer that retrying did not cure.
type statusError struct {
	Code       int
	Attempts   int
	RetryAfter time.Duration // set when the registry asked to wait longer than MaxWait
	MaxWait    time.Duration
}

func (e *statusError) Error() string {
	what := "server error"
	if e.Code == http.StatusTooManyRequests {
		what = "rate limited"
	}
	s := fmt.Sprintf("%s (%d %s)", what, e.Code, http.StatusText(e.Code))
	if e.RetryAfter > 0 {
		return fmt.Sprintf("%s; it asks to retry after %s, longer than drvcheck waits (%s)", s, e.RetryAfter, e.MaxWait)
	}
	return s + " after " + tries(e.Attempts)
}

func tries(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
