#!/usr/bin/env bash
# Move the floating tags of a release: after vMAJOR.MINOR.PATCH is
# published, the git tags vMAJOR and vMAJOR.MINOR point at it, and the
# GitHub releases of those names hold version.txt with its tag, which
# hack/install.sh reads to install `uses: drvcheck/drvcheck@v1`. A tag
# moves only forward (a patch of an older minor leaves vMAJOR alone), and
# a pre-release (v1.2.3-rc.1) moves none. Run by release.yml with gh and
# git; FLOAT_DRY_RUN=1 prints what it would do.
set -euo pipefail

tag="${1:?usage: float-tags.sh vMAJOR.MINOR.PATCH}"
if ! [[ "$tag" =~ ^(v[0-9]+)\.([0-9]+)\.[0-9]+$ ]]; then
	echo "float-tags: $tag is a pre-release or not a release tag; no floating tag moves" >&2
	exit 0
fi
major="${BASH_REMATCH[1]}"
minor="$major.${BASH_REMATCH[2]}"

run() {
	if [ "${FLOAT_DRY_RUN:-}" = 1 ]; then echo "$*"; else "$@"; fi
}

# current FLOAT: the release a floating tag points at now, or nothing.
current() {
	gh release download "$1" --pattern version.txt --output - 2>/dev/null | tr -d '[:space:]' || true
}

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' "$tag" >"$tmp/version.txt"
for float in "$major" "$minor"; do
	now="$(current "$float")"
	if [ -n "$now" ] && [ "$(printf '%s\n%s\n' "$now" "$tag" | sort -V | tail -1)" != "$tag" ]; then
		echo "float-tags: $float stays at $now, newer than $tag" >&2
		continue
	fi
	run git tag -f "$float" "$tag"
	run git push -f origin "refs/tags/$float"
	if ! gh release view "$float" >/dev/null 2>&1; then
		run gh release create "$float" --prerelease --title "drvcheck $float (the newest $float.x release)" \
			--notes "Points at the newest $float release: version.txt names it. \`uses: drvcheck/drvcheck@$float\` installs that release."
	fi
	run gh release upload "$float" "$tmp/version.txt" --clobber
	echo "float-tags: $float -> $tag" >&2
done
