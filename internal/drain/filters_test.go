package drain

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func owned(kind, apiVersion string) []metav1.OwnerReference {
	yes := true
	return []metav1.OwnerReference{{Kind: kind, APIVersion: apiVersion, Name: "x", Controller: &yes}}
}

// Each case states what kubectl drain --ignore-daemonsets does (kubectl pkg/drain/filters.go).
func TestFilterAsKubectlDrain(t *testing.T) {
	emptyDir := []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	cases := []struct {
		name  string
		pod   corev1.Pod
		want  Verdict
		plain bool // refused without --force and --delete-emptydir-data
	}{
		{"ReplicaSet pod: evicted", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("ReplicaSet", "apps/v1")}}, Verdict{}, false},
		{"DaemonSet pod: ignored", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet", "apps/v1")}}, Verdict{Stays: "daemonset"}, false},
		{"DaemonSet pod with emptyDir: still ignored", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet", "apps/v1")}, Spec: corev1.PodSpec{Volumes: emptyDir}}, Verdict{Stays: "daemonset"}, false},
		{"a DaemonSet of another group is a controller like any", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("DaemonSet", "acme.io/v1")}}, Verdict{}, false},
		{"mirror pod: skipped", corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}}, Verdict{Stays: "mirror"}, false},
		{"bare pod: needs --force", corev1.Pod{}, Verdict{NeedsForce: true}, true},
		{"emptyDir: needs --delete-emptydir-data", corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: owned("StatefulSet", "apps/v1")}, Spec: corev1.PodSpec{Volumes: emptyDir}}, Verdict{NeedsDeleteEmptyDir: true}, true},
		{"bare pod with emptyDir: needs both", corev1.Pod{Spec: corev1.PodSpec{Volumes: emptyDir}}, Verdict{NeedsForce: true, NeedsDeleteEmptyDir: true}, true},
		{"finished bare pod with emptyDir: deleted freely", corev1.Pod{Spec: corev1.PodSpec{Volumes: emptyDir}, Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, Verdict{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Filter(&c.pod)
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			if got.Refused(Flags{}) != c.plain {
				t.Fatalf("refused without flags = %v, want %v", got.Refused(Flags{}), c.plain)
			}
			if got.Refused(Flags{Force: true, DeleteEmptyDir: true}) {
				t.Fatal("refused even with --force --delete-emptydir-data")
			}
		})
	}
}
