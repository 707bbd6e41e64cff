package testcluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const poll = 200 * time.Millisecond

// waitHTTP polls url until it answers 200, failing early when p exits.
func waitHTTP(ctx context.Context, p *proc, client *http.Client, url, token string) error {
	var last string
	for {
		if err := p.exited(); err != nil {
			return err
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, body)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not ready at %s: %s; log:\n%s", p.name, url, last, p.tail())
		case <-time.After(poll):
		}
	}
}

// Poll calls cond until it returns true or an error, or ctx ends.
func Poll(ctx context.Context, what string, cond func(context.Context) (bool, error)) error {
	var last error
	for {
		ok, err := cond(ctx)
		if ok && err == nil {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("waiting for %s: %v (last: %v)", what, ctx.Err(), last)
			}
			return fmt.Errorf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// WaitServiceAccount waits for the default ServiceAccount of ns, which the
// controller manager creates and without which Pods are refused.
func (c *Cluster) WaitServiceAccount(ctx context.Context, ns string) error {
	return Poll(ctx, "ServiceAccount "+ns+"/default", func(ctx context.Context) (bool, error) {
		return c.hasDefaultServiceAccount(ctx, ns)
	})
}

func (c *Cluster) hasDefaultServiceAccount(ctx context.Context, ns string) (bool, error) {
	_, err := c.Client.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// WaitNodesReady waits until each named node is Ready, has lost the
// not-ready taint (the node lifecycle controller's doing) and advertises
// room for pods, so the scheduler will place pods on it. A node applied
// with a Ready condition already (the lab's node3.yaml) gets its capacity
// from kwok only once the node lifecycle controller has found it silent,
// after the grace period of about 50 s, as on a kwok cluster of the lab.
func (c *Cluster) WaitNodesReady(ctx context.Context, names ...string) error {
	for _, name := range names {
		err := Poll(ctx, "node "+name+" ready and untainted", func(ctx context.Context) (bool, error) {
			n, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return nodeReady(n), nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func nodeReady(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
			return false
		}
	}
	if n.Status.Allocatable.Pods().IsZero() {
		return false
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}
