package cluster

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"

	"github.com/drvcheck/drvcheck/internal/redact"
)

// Options say which cluster to read and how long one request may take.
type Options struct {
	// Kubeconfig is --kubeconfig. When empty, $KUBECONFIG, then
	// ~/.kube/config, then the in-cluster config of a Pod are used.
	Kubeconfig string
	// Context is --context; empty means the kubeconfig's current context.
	Context string
	// Timeout bounds each request (--request-timeout); 0 means no bound.
	Timeout time.Duration
}

// DefaultTimeout is --request-timeout's default: long enough for a page of
// 500 pods from a loaded API server, short enough that a stuck one fails.
const DefaultTimeout = 30 * time.Second

// quietKlog silences client-go's own logging (klog): a stalled or
// refusing API server would print lines of it before drvcheck's one line,
// which already names the host and the reason.
var quietKlog sync.Once

// Client reads one cluster.
type Client struct {
	host string
	cs   kubernetes.Interface
	dyn  dynamic.Interface // custom resources: the GPU Operator's, GPU workloads
	cfg  *rest.Config
	http *http.Client // shared by every client of one run

	restMu sync.Mutex
	rest   map[schema.GroupVersion]rest.Interface

	discovery    sync.Once
	preferred    map[string]string // API group -> preferred version
	discoveryErr error
}

// Connect loads the client configuration the way kubectl does and returns a
// client for it. Nothing is sent to the cluster yet.
func Connect(opt Options) (*Client, error) {
	cfg, err := restConfig(opt)
	if err != nil {
		return nil, err
	}
	return NewForConfig(cfg)
}

// NewForConfig returns a client for an already loaded configuration, with
// drvcheck's transport settings (protobuf, rate limits, no warnings).
func NewForConfig(cfg *rest.Config) (*Client, error) {
	quietKlog.Do(func() { klog.SetLogger(logr.Discard()) })
	cfg = tune(rest.CopyConfig(cfg))
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, clientError(cfg, err)
	}
	cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, clientError(cfg, err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, clientError(cfg, err)
	}
	return &Client{host: Host(cfg), cs: cs, dyn: dyn, cfg: cfg, http: hc, rest: map[schema.GroupVersion]rest.Interface{}}, nil
}

// restClient is a typed REST client for one group/version, made once: how
// every Kubernetes kind of inventory.Kinds is listed without a client per
// kind spelled out.
func (c *Client) restClient(gv schema.GroupVersion) (rest.Interface, error) {
	c.restMu.Lock()
	defer c.restMu.Unlock()
	if rc, ok := c.rest[gv]; ok {
		return rc, nil
	}
	cfg := rest.CopyConfig(c.cfg)
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientForConfigAndClient(cfg, c.http)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %v", c.host, err)
	}
	c.rest[gv] = rc
	return rc, nil
}

// Contexts are the names of every context of the kubeconfig opt names
// (as restConfig loads it), sorted: scan --all-contexts reads each.
func Contexts(opt Options) ([]string, error) {
	raw, err := rawConfig(opt)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(raw.Contexts)), nil
}

// CurrentContext is the context a run without --context reads: the
// kubeconfig's current one ("" in a Pod, which reads its own cluster).
func CurrentContext(opt Options) (string, error) {
	raw, err := rawConfig(opt)
	if err != nil {
		return "", err
	}
	return raw.CurrentContext, nil
}

// rawConfig is the kubeconfig opt names, merged as kubectl merges it.
func rawConfig(opt Options) (clientcmdapi.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = opt.Kubeconfig
	raw, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).RawConfig()
	if err != nil {
		return raw, configError(err)
	}
	return raw, nil
}

func restConfig(opt Options) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = opt.Kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: opt.Context}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, configError(err)
	}
	cfg.Timeout = opt.Timeout
	return cfg, nil
}

// tune sets what makes reading fast and quiet: protobuf for the built-in
// kinds (all of drvcheck's), a rate limit that does not throttle a dozen
// parallel lists, and no server warnings on stderr.
func tune(cfg *rest.Config) *rest.Config {
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	cfg.QPS, cfg.Burst = 200, 400
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.UserAgent = "drvcheck"
	return cfg
}

// configError keeps the loader's message (it names the file or context, not
// credentials) and explains the empty case, which client-go words in terms
// of an environment variable kubectl no longer documents.
func configError(err error) error {
	if clientcmd.IsEmptyConfig(err) {
		return errors.New("cluster: no configuration found: give --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run inside a Pod")
	}
	return fmt.Errorf("cluster: kubeconfig: %v", err)
}

// Host returns cfg's server URL without any user information in it.
func Host(cfg *rest.Config) string {
	u, err := url.Parse(cfg.Host)
	if err != nil || u.Host == "" {
		return redact.URL(cfg.Host)
	}
	u.User = nil
	u.Path, u.RawPath, u.RawQuery, u.Fragment = "", "", "", ""
	return u.String()
}

// clientError is an error of a configuration client-go could not use:
// the server URL it quotes may hold a password no pattern can find (one
// with a space or a slash in it), so it is taken out wherever it is.
func clientError(cfg *rest.Config, err error) error {
	return errors.New(redact.Scrub(fmt.Sprintf("cluster %s: %v", Host(cfg), err), cfg.Host))
}
