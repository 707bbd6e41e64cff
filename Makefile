# drvcheck: build, test, lint and the demo on the bundled lab.
GO      ?= go
BIN     ?= bin/drvcheck
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
LAB     := testdata/lab

.PHONY: build test lint tools demo fuzz bench bench-50k bench-live controlplane fidelity clean image image-push release

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/drvcheck

# Everything: lint, the Go tests (Rego unit tests included, and the lab end
# to end on a real control plane), and a short fuzz of every parser. The
# fidelity suite runs 36 scenarios on control planes of their own, which
# mostly wait on the library's timers: four at a time take about four and a
# half minutes on two cores (eight at GOMAXPROCS), and the timeout leaves
# room on a busy machine.
test: lint controlplane fidelity
	DRVCHECK_REQUIRE_CLUSTER=1 $(GO) test -count=1 -parallel 4 -timeout 30m ./...
	$(MAKE) fuzz FUZZTIME=30000x

# The real control plane the cluster tests run (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kwok), cached outside the repo by
# version: the first build takes about ten minutes on two cores, later ones
# reuse it.
controlplane:
	bash hack/controlplane/build.sh >/dev/null

# The fidelity suite's reconcilers: NVIDIA's upgrade library as the GPU
# Operator drives it (hack/fidelity, its own module), built against two
# releases (go.mod and go.v26.mod), cached like the control plane.
# cmd/drvcheck's TestFidelityAgainstTheUpgradeLibrary runs both.
fidelity:
	cd hack/fidelity && $(GO) vet ./... && $(GO) vet -modfile=go.v26.mod -tags libv26 ./... && test -z "$$(gofmt -l .)"
	bash hack/fidelity/build.sh v25 >/dev/null
	bash hack/fidelity/build.sh v26 >/dev/null

# go vet, gofmt and golangci-lint (.golangci.yml says which linters and why).
lint: tools
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt -l found unformatted files:"; echo "$$out"; exit 1; fi
	$(GOLANGCI_LINT) run ./...

# golangci-lint at the pinned version, built from the Go module proxy into
# GOPATH/bin the first time (about two minutes), reused after.
GOLANGCI_VERSION ?= v2.15.0
GOLANGCI_LINT    ?= $(shell $(GO) env GOPATH)/bin/golangci-lint
tools:
	@$(GOLANGCI_LINT) version 2>/dev/null | grep -q "version $(GOLANGCI_VERSION:v%=%) " || \
	$(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

# The lab as the first acceptance test: lab-node-3 lacks its image (exit 1).
demo: build
	@echo '$$ drvcheck check $(LAB) --matrix $(LAB)/support-matrix.csv'
	@$(BIN) check $(LAB) --matrix $(LAB)/support-matrix.csv; \
	code=$$?; echo "(exit $$code)"; [ $$code -le 1 ]

# Fuzz by count, not duration: a duration -fuzztime can fail with "context
# deadline exceeded" and no crasher on Go 1.26, a race in Go's fuzzing
# coordinator (golang/go#75804, fixed in Go 1.27).
FUZZTIME ?= 300000x
fuzz:
	$(GO) test ./internal/load -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/catalog -run '^$$' -fuzz '^FuzzParseMatrix$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/inventory -run '^$$' -fuzz '^FuzzDirectDecoding$$' -fuzztime $(FUZZTIME)

# The container image as an OCI image layout in $(IMAGE_DIR), built without
# a Docker daemon (hack/ociimage): scratch, the static binary at /drvcheck,
# CA certificates, user 65532. Push it with e.g.
#   crane push $(IMAGE_DIR) ghcr.io/you/drvcheck:$(VERSION)
IMAGE_DIR  ?= bin/image
IMAGE_TAG  ?= drvcheck:$(VERSION)
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
IMAGE_CA   ?= /etc/ssl/certs/ca-certificates.crt
image:
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o bin/linux-$(IMAGE_ARCH)/drvcheck ./cmd/drvcheck
	$(GO) run ./hack/ociimage -binary bin/linux-$(IMAGE_ARCH)/drvcheck -arch $(IMAGE_ARCH) -ca-bundle "$(IMAGE_CA)" -out $(IMAGE_DIR) -tag $(IMAGE_TAG) -version $(VERSION)

# The release: static binaries for every platform in PLATFORMS, named
# drvcheck-OS-ARCH (what hack/install.sh and the Action download),
# checksums.txt (sha256sum's format) and sbom.txt, the module graph each
# binary was built from (go version -m), in RELEASE_DIR.
PLATFORMS   ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
RELEASE_DIR ?= bin/release
release:
	rm -rf $(RELEASE_DIR) && mkdir -p $(RELEASE_DIR)
	for p in $(PLATFORMS); do \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -ldflags "$(LDFLAGS)" \
			-o $(RELEASE_DIR)/drvcheck-$${p%/*}-$${p#*/} ./cmd/drvcheck || exit 1; \
	done
	cd $(RELEASE_DIR) && sha256sum drvcheck-* > checksums.txt
	$(GO) version -m $(RELEASE_DIR)/drvcheck-* > $(RELEASE_DIR)/sbom.txt

# The multi-arch image of the release's linux binaries, pushed to
# IMAGE_REF with the docker config's credentials (docker login).
IMAGE_REF ?= ghcr.io/drvcheck/drvcheck:$(VERSION)
image-push:
	@test -f $(RELEASE_DIR)/drvcheck-linux-amd64 -a -f $(RELEASE_DIR)/drvcheck-linux-arm64 || { echo "run make release first"; exit 1; }
	$(GO) run ./hack/ociimage -push $(IMAGE_REF) -version $(VERSION) -ca-bundle "$(IMAGE_CA)" \
		-binaries amd64=$(RELEASE_DIR)/drvcheck-linux-amd64,arm64=$(RELEASE_DIR)/drvcheck-linux-arm64

# Go benchmarks; the speed budget on every fleetgen shape of the target fleet
# (5,000 nodes, 20,000 workloads, 5,000 budgets: check <= 1.5x its decode
# floor, plan --all <= 2x check, <= 1 GiB; docs/performance.md) and of three
# times it (the same ratios, at most 3.3x the time and memory), and the
# least any check of this design takes (read, convert, evaluate); then
# bench-live when the control plane is built.
bench:
	$(GO) test ./... -run '^$$' -bench . -benchmem -benchtime 3x
	DRVCHECK_FLEET_BUDGET=1 $(GO) test ./internal/runner -run '^Test(FleetBudget|FleetLeastCheck|RenderBudget)$$' -count=1 -v -timeout 60m
	@if bash hack/controlplane/build.sh --check >/dev/null; then $(MAKE) --no-print-directory bench-live; \
	else echo "bench-live skipped: control plane not built (make controlplane)"; fi

# The gitops shape at 5,000, 15,000 and 50,000 nodes (opt-in: about ten
# minutes, 8 GiB).
bench-50k:
	DRVCHECK_FLEET_BUDGET=1 DRVCHECK_BENCH_SHAPES=gitops DRVCHECK_BENCH_SIZES=1,3,10 DRVCHECK_BENCH_RUNS=3 \
	$(GO) test ./internal/runner -run '^TestFleetBudget$$' -count=1 -v -timeout 60m

# drvcheck scan of 5,000 fake nodes and 20,000 pods against fetching the same
# lists raw with kubectl get --raw; prints the ratio (goal <= 1.5).
BENCH_NODES ?= 5000
BENCH_PODS  ?= 20000
bench-live: build controlplane
	@DRVCHECK_BENCH_LIVE=1 DRVCHECK_BIN=$(abspath $(BIN)) DRVCHECK_BENCH_NODES=$(BENCH_NODES) DRVCHECK_BENCH_PODS=$(BENCH_PODS) \
	$(GO) test ./internal/cluster -run '^TestBenchLive$$' -count=1 -v -timeout 60m

clean:
	rm -rf bin
