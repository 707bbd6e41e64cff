package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/drvcheck/drvcheck/internal/registry"
)

// registryFlags say how --registry repositories are reached and cached.
type registryFlags struct {
	ca, insecure []string
	timeout      time.Duration
	cacheDir     string
	cacheTTL     time.Duration
	offline      bool
}

// addRegistryFlags registers --registry and the flags that go with it.
func (o *options) addRegistryFlags() {
	fs, r := o.fs, &o.reg
	fs.StringArrayVar(&o.registry, "registry", nil, "image repository whose tags exist, e.g. nvcr.io/nvidia/driver; repeatable")
	fs.StringArrayVar(&r.ca, "registry-ca", nil, "PEM file of a CA to trust for registries; repeatable")
	fs.StringArrayVar(&r.insecure, "insecure-registry", nil, "registry HOST or HOST:PORT reached over plain HTTP; repeatable (loopback needs none)")
	fs.DurationVar(&r.timeout, "registry-timeout", registry.DefaultTimeout, "timeout of each registry request")
	fs.StringVar(&r.cacheDir, "cache-dir", registry.DefaultCacheDir(), "folder caching registry listings")
	fs.DurationVar(&r.cacheTTL, "cache-ttl", registry.DefaultCacheTTL, "how long a cached listing is used without asking the registry (0: always ask)")
	fs.BoolVar(&r.offline, "offline", false, "send no request: registry tags from the cache only (exit 2 when not cached)")
}

// registryOptions turns the flags into the registry's options; warnings
// go to stderr, one line each.
func (o *options) registryOptions(stderr io.Writer) registry.Options {
	var mu sync.Mutex // listings run in parallel
	return registry.Options{
		CAFiles:  o.reg.ca,
		Insecure: o.reg.insecure,
		Timeout:  o.reg.timeout,
		CacheDir: o.reg.cacheDir,
		CacheTTL: o.reg.cacheTTL,
		Offline:  o.reg.offline,
		Warn: func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stderr, "drvcheck: warning: %s\n", oneLine(msg))
		},
	}
}
