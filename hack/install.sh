#!/usr/bin/env bash
# Install a released drvcheck binary, checked against the release's
# checksums.txt, without Go:
#
#   bash hack/install.sh v1.2.3 ~/.local/bin
#   bash hack/install.sh v1 ~/.local/bin     # the newest v1.x.y
#
# A floating version (v1, v1.2) is resolved through the release of that
# name, whose version.txt names the newest release under it
# (hack/float-tags.sh writes it at each release).
# The GitHub Action runs it too. DRVCHECK_RELEASE_URL points at a mirror
# (default: the GitHub releases of drvcheck/drvcheck). Exit codes:
#   0  installed DIR/drvcheck
#   3  no release binary for this version and platform (the Action then
#      builds from source, when it may)
#   1  anything else, a checksum that does not match above all: that is
#      never a reason to fall back to something else
set -euo pipefail

version="${1:?usage: install.sh VERSION DIR}"
dir="${2:?usage: install.sh VERSION DIR}"
base="${DRVCHECK_RELEASE_URL:-https://github.com/drvcheck/drvcheck/releases/download}"

say() { echo "drvcheck install: $*" >&2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# fetch URL FILE: 0 fetched, 3 not found (404), 1 any other failure.
fetch() {
	local code
	code="$(curl -sSL --retry 3 --connect-timeout 10 --max-time 120 -o "$2" -w '%{http_code}' "$1")" || {
		say "cannot download $1"
		return 1
	}
	case "$code" in
	200) return 0 ;;
	404) say "$1: not found"; return 3 ;;
	*) say "$1: HTTP $code"; return 1 ;;
	esac
}

release_re='^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$'
if [[ "$version" =~ ^v[0-9]+(\.[0-9]+)?$ ]]; then
	fetch "$base/$version/version.txt" "$tmp/version.txt" || exit $?
	resolved="$(head -c 200 "$tmp/version.txt" | tr -d '[:space:]')"
	# The pointer must name a release under the floating version: never
	# install something else on its word.
	if ! [[ "$resolved" =~ $release_re ]] || [[ "$resolved" != "$version".* ]]; then
		say "$base/$version/version.txt names ${resolved:-nothing}, not a release under $version; not installed"
		exit 1
	fi
	say "$version is $resolved"
	version="$resolved"
fi
if ! [[ "$version" =~ $release_re ]]; then
	say "$version is not a release tag (vMAJOR.MINOR.PATCH); no release binary"
	exit 3
fi
case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) say "no release binary for $(uname -s)"; exit 3 ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) say "no release binary for $(uname -m)"; exit 3 ;;
esac
asset="drvcheck-$os-$arch"

fetch "$base/$version/checksums.txt" "$tmp/checksums.txt" || exit $?
fetch "$base/$version/$asset" "$tmp/$asset" || exit $?

want="$(awk -v f="$asset" '$2 == f || $2 == "*" f { print $1 }' "$tmp/checksums.txt")"
if [ -z "$want" ]; then
	say "checksums.txt of $version lists no $asset"
	exit 3
fi
if command -v sha256sum >/dev/null 2>&1; then
	got="$(sha256sum "$tmp/$asset" | awk '{ print $1 }')"
else
	got="$(shasum -a 256 "$tmp/$asset" | awk '{ print $1 }')"
fi
if [ "$got" != "$want" ]; then
	say "checksum mismatch for $asset $version: got $got, checksums.txt says $want; not installed"
	exit 1
fi

mkdir -p "$dir"
install -m 0755 "$tmp/$asset" "$dir/drvcheck"
say "$asset $version installed in $dir (sha256 $got)"
