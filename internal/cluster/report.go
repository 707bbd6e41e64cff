package cluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxReport is what a ConfigMap may hold (the API server refuses more than
// 1 MiB of object), less room for its metadata.
const MaxReport = 1<<20 - 16<<10

// WriteReport puts data into the ConfigMap ns/name, in place of what it
// held: drvcheck's one write to a cluster, made only when asked (--report
// configmap=NS/NAME). RBAC cannot limit create to one name, so
// deploy/report-rbac.yaml ships the ConfigMap with a Role that may get and update
// it alone; creating it is tried only when it does not exist.
func (c *Client) WriteReport(ctx context.Context, ns, name string, data map[string]string) error {
	cms := c.cs.CoreV1().ConfigMaps(ns)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "drvcheck"}}, Data: data}
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: "drvcheck"})
		return c.explainReport(err, "create", ns, name)
	case err != nil:
		return c.explainReport(err, "get", ns, name)
	}
	cm.Data, cm.BinaryData = data, nil
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "drvcheck"})
	return c.explainReport(err, "update", ns, name)
}

func (c *Client) explainReport(err error, verb, ns, name string) error {
	if err == nil {
		return nil
	}
	what := fmt.Sprintf("--report configmap=%s/%s", ns, name)
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("%s: cluster %s: forbidden to %s the ConfigMap (deploy/report-rbac.yaml creates drvcheck/drvcheck-report and grants get and update on it alone): %s",
			what, c.host, verb, apiMessage(err))
	}
	return fmt.Errorf("%s: %w", what, c.explain(err, verb, Kind{Resource: "configmaps", Version: "v1", ObjectKind: "ConfigMap"}))
}

// ReadReport is the data of the ConfigMap ns/name a run wrote with
// --report configmap=NS/NAME: report merge gathers a fleet's nightly
// reports from the clusters that keep them. deploy/report-rbac.yaml's
// drvcheck-report-reader Role grants get on that one ConfigMap.
func (c *Client) ReadReport(ctx context.Context, ns, name string) (map[string]string, error) {
	cm, err := c.cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, fmt.Errorf("cluster %s: no ConfigMap %s/%s: no run has written its report there (--report configmap=%s/%s)", c.host, ns, name, ns, name)
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("cluster %s: forbidden to get the ConfigMap %s/%s (deploy/report-rbac.yaml's drvcheck-report-reader Role grants it): %s", c.host, ns, name, apiMessage(err))
	case err != nil:
		return nil, c.explain(err, "get", Kind{Resource: "configmaps", Version: "v1", ObjectKind: "ConfigMap"})
	}
	return cm.Data, nil
}
