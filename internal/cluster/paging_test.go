package cluster

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/rest"
)

// An API server (or a proxy before it) whose continue tokens never end is
// not paged forever: a token seen before stops the list at once, and new
// tokens for ever stop it at MaxPages. A remainingItemCount of billions
// reserves nothing.
func TestListsWhosePagesNeverEndStop(t *testing.T) {
	defer func(n int) { maxPages = n }(maxPages)
	maxPages = 20
	cases := map[string]struct {
		token func(n int64) string
		want  string
	}{
		"repeated token": {func(int64) string { return "same" }, "page 2 repeats an earlier continue token"},
		"endless tokens": {func(n int64) string { return fmt.Sprint(n) }, "more than 20 pages"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := requests.Add(1)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"kind":"NodeList","apiVersion":"v1","metadata":{"continue":%q,"remainingItemCount":9000000000000},"items":[{"metadata":{"name":"n%d"}}]}`, c.token(n), n)
			}))
			defer srv.Close()
			cl, err := NewForConfig(&rest.Config{Host: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.Read(context.Background(), []Kind{Nodes}, false)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "cluster "+srv.URL+": list nodes:") {
				t.Fatalf("error %v, want the host, the list and %q", err, c.want)
			}
			if n := requests.Load(); n > 21 {
				t.Fatalf("%d requests", n)
			}
		})
	}
}
