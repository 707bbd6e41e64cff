package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// explain turns a failed request into one line that names the host, and
// for a refusal the verb and the resource. API server messages name users
// and resources, never credentials; transport errors are stripped of the
// request URL.
func (c *Client) explain(err error, verb string, k Kind) error {
	var status apierrors.APIStatus
	var paging *pagingError
	switch {
	case errors.As(err, &paging):
		return fmt.Errorf("cluster %s: %s %s: %s", c.host, verb, k, paging.msg)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("cluster %s: forbidden to %s %s (deploy/rbac.yaml grants get and list on it): %s",
			c.host, verb, k, apiMessage(err))
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("cluster %s: unauthorized to %s %s: the credentials were refused (expired token or certificate?)",
			c.host, verb, k)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("cluster %s: %s %s: interrupted", c.host, verb, k)
	case isTimeout(err):
		return fmt.Errorf("cluster %s: %s %s: no answer in time (--request-timeout)", c.host, verb, k)
	case errors.As(err, &status):
		return fmt.Errorf("cluster %s: %s %s: %s", c.host, verb, k, apiMessage(err))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("cluster %s unreachable: %v", c.host, err)
}

func apiMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
