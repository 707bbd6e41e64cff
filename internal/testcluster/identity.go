package testcluster

import (
	"context"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceAccountKubeconfig creates the ServiceAccount ns/name when missing
// (and ns with it), asks the API server for a token of it, and writes a
// kubeconfig that authenticates as it. Roles are the caller's to bind.
func (c *Cluster) ServiceAccountKubeconfig(ctx context.Context, ns, name string) (string, error) {
	_, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	_, err = c.Client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	tr, err := c.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, ns+"-"+name+".kubeconfig")
	return path, c.WriteKubeconfig(path, ns+"-"+name, tr.Status.Token)
}
