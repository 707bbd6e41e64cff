// Package registry lists the tags of image repositories, so drvcheck knows
// which precompiled driver images really exist. It uses go-containerregistry
// (pagination followed, the docker config and credential helpers, anonymous
// token auth as NGC uses it), bounds each request with a timeout, retries
// 429 and 5xx answers with backoff while honouring Retry-After, lists
// repositories in parallel and each at most once per run, and keeps what it
// listed in an on-disk cache with a time to live. It fails closed: any
// repository that cannot be listed is an error naming the host, the
// repository and the reason, never an empty list.
package registry
