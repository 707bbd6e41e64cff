package cluster

import (
	"io"
	"os"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// Once drvcheck talks to a cluster, client-go's klog lines (retries,
// throttling, a stalled answer) do not reach stderr: drvcheck's own error
// is the one line.
func TestClientGoDoesNotLog(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	klog.SetOutput(w)
	defer func() { os.Stderr = stderr }()
	if _, err := NewForConfig(&rest.Config{Host: "https://127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	klog.ErrorS(nil, "a client-go error line")
	klog.Warning("a client-go warning line")
	klog.Flush()
	w.Close()
	out, _ := io.ReadAll(r)
	if len(out) > 0 {
		t.Fatalf("klog wrote %q", out)
	}
}
