// Package registrytest runs go-containerregistry's in-process registry
// (pkg/registry, a real implementation of the distribution API) on a
// loopback port for tests, wrapped so a test can count the requests drvcheck
// sends, inject 429, 5xx and slow answers, and require anonymous bearer
// tokens or basic auth. Tag lists are paginated with Link headers as the
// distribution server does. It is test support, never used by drvcheck.
package registrytest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Server is an in-process registry on 127.0.0.1.
type Server struct {
	// Host is "127.0.0.1:PORT", the registry part of a repository name.
	Host string

	srv    *httptest.Server
	direct *httptest.Server // the same storage, unwrapped: pushes are not counted
	inner  http.Handler

	mu       sync.Mutex
	log      []*http.Request
	faults   []*Fault
	inFlight int
	maxIn    int
	token    string // required bearer token, when anonymous token auth is on
	user     string // required basic auth, when on
	password string
}

// Fault changes the answer to matching requests.
type Fault struct {
	// Match is a substring of the request path, e.g. "/tags/list"; empty
	// matches every request.
	Match string
	// Status, when set, is answered instead of the registry's answer.
	Status int
	// RetryAfter is sent as the Retry-After header with Status.
	RetryAfter string
	// Delay is waited before answering (or until the client gives up).
	Delay time.Duration
	// Times is how many requests the fault hits; 0 means every one.
	Times int
	// Answer, when set, answers instead of the registry: a misbehaving
	// server (pages that never end, a redirect to itself).
	Answer http.HandlerFunc
}

// Option shapes a Server.
type Option func(*Server)

// AnonymousToken makes the registry answer 401 with a Bearer challenge and
// hand out tokens without credentials, as nvcr.io does for public images.
func AnonymousToken() Option {
	return func(s *Server) { s.token = "anon-" + randomHex(8) }
}

// BasicAuth makes the registry require HTTP basic auth.
func BasicAuth(user, password string) Option {
	return func(s *Server) { s.user, s.password = user, password }
}

// New starts a plain-HTTP Server; it stops when the test ends.
func New(t testing.TB, opts ...Option) *Server {
	return start(t, false, opts)
}

// NewTLS starts an HTTPS Server whose certificate is signed by an authority
// only CAFile trusts.
func NewTLS(t testing.TB, opts ...Option) *Server {
	return start(t, true, opts)
}

func start(t testing.TB, useTLS bool, opts []Option) *Server {
	t.Helper()
	s := &Server{inner: registry.New(registry.Logger(discardLogger()))}
	for _, o := range opts {
		o(s)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Config.ErrorLog = discardLogger() // TLS handshakes the tests make fail on purpose
	if useTLS {
		s.srv.StartTLS()
	} else {
		s.srv.Start()
	}
	s.direct = httptest.NewServer(s.inner)
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.srv.URL)
	s.Host = u.Host
	return s
}

// Close stops the server; later requests are refused.
func (s *Server) Close() {
	s.srv.Close()
	s.direct.Close()
}

// Repo is the full name of repository path on this server.
func (s *Server) Repo(path string) string { return s.Host + "/" + path }

// CAFile writes the certificate that signs the TLS server's certificate to
// a PEM file under dir and returns its path.
func (s *Server) CAFile(t testing.TB, dir string) string {
	t.Helper()
	cert := s.srv.Certificate()
	if cert == nil {
		t.Fatal("registrytest: CAFile on a plain-HTTP server")
	}
	p := filepath.Join(dir, "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Push stores a small random image in repo under every tag. The pushes go
// past the wrapper: they are neither counted nor faulted.
func (s *Server) Push(t testing.TB, repo string, tags ...string) {
	t.Helper()
	if len(tags) == 0 {
		return
	}
	host := strings.TrimPrefix(s.direct.URL, "http://")
	ref, err := name.ParseReference(host + "/" + repo + ":" + tags[0])
	if err != nil {
		t.Fatal(err)
	}
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatalf("registrytest: push %s: %v", ref, err)
	}
	manifest, err := img.RawManifest()
	if err != nil {
		t.Fatal(err)
	}
	mt, err := img.MediaType()
	if err != nil {
		t.Fatal(err)
	}
	// One PUT per further tag: pushing 10,000 tags stays fast.
	for _, tag := range tags[1:] {
		u := fmt.Sprintf("%s/v2/%s/manifests/%s", s.direct.URL, repo, tag)
		req, _ := http.NewRequest(http.MethodPut, u, bytes.NewReader(manifest))
		req.Header.Set("Content-Type", string(mt))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("registrytest: tag %s:%s: %s", repo, tag, resp.Status)
		}
	}
}

// Inject adds a fault; faults are tried in the order added.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Reset forgets the counted requests and the faults.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log, s.faults, s.maxIn = nil, nil, 0
}

// MaxInFlight is the most requests served at once since the last Reset.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxIn
}

// Requests is the number of requests received since the last Reset.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.log)
}

// Pages is the number of tags/list requests for repo (every page).
func (s *Server) Pages(repo string) int {
	return s.count(func(r *http.Request) bool { return r.URL.Path == "/v2/"+repo+"/tags/list" })
}

// Listings is the number of listings of repo: tags/list requests for a
// first page (no "last" parameter).
func (s *Server) Listings(repo string) int {
	return s.count(func(r *http.Request) bool {
		return r.URL.Path == "/v2/"+repo+"/tags/list" && r.URL.Query().Get("last") == ""
	})
}

// Log lists the requests received, as "METHOD path?query", for messages.
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.log))
	for i, r := range s.log {
		out[i] = r.Method + " " + r.URL.RequestURI()
	}
	return out
}

func (s *Server) count(match func(*http.Request) bool) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.log {
		if match(r) {
			n++
		}
	}
	return n
}

// serve counts, applies faults and auth, then answers as the registry.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, r.Clone(r.Context()))
	f := s.fault(r)
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if f != nil {
		if f.Delay > 0 {
			select {
			case <-time.After(f.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if f.Answer != nil {
			f.Answer(w, r)
			return
		}
		if f.Status != 0 {
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			writeError(w, f.Status, faultCode(f.Status), "injected fault")
			return
		}
	}
	if !s.authorized(w, r) {
		return
	}
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tags/list") {
		s.tags(w, r)
		return
	}
	s.inner.ServeHTTP(w, r)
}

// fault picks the first live fault matching r; s.mu is held.
func (s *Server) fault(r *http.Request) *Fault {
	for _, f := range s.faults {
		if f.Times < 0 || !strings.Contains(r.URL.Path, f.Match) {
			continue
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				f.Times = -1 // spent
			}
		}
		return f
	}
	return nil
}

// authorized applies the configured auth and answers 401 when it fails.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	switch {
	case s.token != "":
		if r.URL.Path == "/token" {
			if r.Header.Get("Authorization") != "" {
				writeError(w, http.StatusBadRequest, "UNSUPPORTED", "this token service is anonymous only")
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"token": s.token, "expires_in": 300}) // a client that hung up has no use for an error
			return false
		}
		if r.Header.Get("Authorization") == "Bearer "+s.token {
			return true
		}
		realm := "http://" + r.Host + "/token"
		if r.TLS != nil {
			realm = "https://" + r.Host + "/token"
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q,service="registrytest"`, realm))
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
		return false
	case s.user != "":
		if u, p, ok := r.BasicAuth(); ok && u == s.user && p == s.password {
			return true
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="registrytest"`)
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
		return false
	}
	return true
}

// tags answers a tag list page as the distribution server does: sorted,
// after "last", at most "n", with a Link header to the next page.
func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	all := r.Clone(r.Context())
	all.URL.RawQuery = ""
	all.RequestURI = all.URL.RequestURI()
	s.inner.ServeHTTP(rec, all)
	if rec.Code != http.StatusOK {
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes()) // likewise
		return
	}
	var list struct {
		Name string   `json:"name"`
		Tags []string `json:"tags"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		writeError(w, http.StatusInternalServerError, "UNKNOWN", err.Error())
		return
	}
	slices.Sort(list.Tags)
	q := r.URL.Query()
	if last := q.Get("last"); last != "" {
		i, _ := slices.BinarySearch(list.Tags, last)
		for i < len(list.Tags) && list.Tags[i] <= last {
			i++
		}
		list.Tags = list.Tags[i:]
	}
	if n, err := strconv.Atoi(q.Get("n")); err == nil && n > 0 && n < len(list.Tags) {
		list.Tags = list.Tags[:n]
		next := url.Values{"n": {strconv.Itoa(n)}, "last": {list.Tags[n-1]}}
		w.Header().Set("Link", fmt.Sprintf(`<%s?%s>; rel="next"`, r.URL.Path, next.Encode()))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// faultCodes are the distribution error codes that go with a status;
// any other is UNAVAILABLE.
var faultCodes = map[int]string{
	http.StatusUnauthorized:    "UNAUTHORIZED",
	http.StatusForbidden:       "DENIED",
	http.StatusNotFound:        "NAME_UNKNOWN",
	http.StatusTooManyRequests: "TOOMANYREQUESTS",
}

func faultCode(status int) string {
	if c, ok := faultCodes[status]; ok {
		return c
	}
	return "UNAVAILABLE"
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]string{"code": code, "message": msg}}})
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
