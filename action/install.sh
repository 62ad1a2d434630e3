#!/usr/bin/env bash
# The action's install step: installs little-canary at the exact version this release of the
# action names (LITTLE_CANARY_VERSION, set in action.yml), with its runtime dependencies only,
# into a directory of the runner's own, and records the CLI's path as the step output `cli`.
# What it installs is fixed by the release itself, never by what the registry holds today:
# - When the release pins the published package (LITTLE_CANARY_INTEGRITY, the SHA-512 of its
#   tarball as npm writes it, `sha512-…`), that version's tarball is downloaded from the registry
#   (`npm pack little-canary@VERSION`), its SHA-512 compared with the pin, and only a match is
#   installed. A registry that cannot be asked, a download that fails and a tarball that does not
#   match all fail the step: none is ever a reason to install or build anything else.
# - When it pins none (a release tagged before its package was published, as 0.1.0 is), the
#   package is built from the action's own checkout, which is that release: copied to the
#   runner's temporary directory, `npm ci`, `npm pack` (which builds), then the tarball installed
#   as the registry's would be. That takes a few minutes and says so with a warning. The registry
#   is not asked: a package published under this name and version by anyone would otherwise run.
# Either way the runtime dependencies come from the release's own package-lock.json (`npm ci`).
# A second run of the step in the same job reuses the install of the same source.
set -euo pipefail
version="${LITTLE_CANARY_VERSION:?LITTLE_CANARY_VERSION is set by action.yml}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by the Actions runner}"
# An exact version only: a range or a tag would run whatever was published last.
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "::error title=little-canary::LITTLE_CANARY_VERSION is not an exact version" >&2
  exit 2
fi
integrity="${LITTLE_CANARY_INTEGRITY:-}"
if [[ -n "$integrity" && ! "$integrity" =~ ^sha512-[A-Za-z0-9+/]{86}==$ ]]; then
  echo "::error title=little-canary::LITTLE_CANARY_INTEGRITY is not a SHA-512 integrity (sha512-… as npm view little-canary@$version dist.integrity prints it)" >&2
  exit 2
fi
temp="${RUNNER_TEMP:?RUNNER_TEMP is set by the Actions runner}"
action="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is set by the Actions runner}"
# One install per source: a second run of the step in the same job reuses only an install of the
# same pin (or of the same checkout, when none), never one another copy of the action made.
source_key="$(node -e 'process.stdout.write(require("node:crypto").createHash("sha256").update(process.argv[1]).digest("hex").slice(0, 16))' "${integrity:-checkout:$action}")"
prefix="$temp/little-canary-$version-$source_key"
package_dir="$prefix/node_modules/little-canary"
cli="$package_dir/dist/cli/main.js"
# Unpacks the package and installs its runtime dependencies as the release's lockfile records them
# (the action checkout's package-lock.json: the same release), each checked against the lockfile's
# integrity by `npm ci`, never resolved from what the registry holds today. --omit=dev and
# --omit=peer: the dev tools and the optional framework peers are not the CLI's. (better-sqlite3's
# own install script still fetches its prebuilt SQLite addon, or builds it: docs/ci.md.)
install_into_prefix() {
  if [[ ! -f "$action/package-lock.json" ]]; then
    echo "::error title=little-canary::the action's checkout ($action) has no package-lock.json to install little-canary@$version's dependencies from" >&2
    return 1
  fi
  rm -rf "$prefix"
  mkdir -p "$package_dir"
  tar -xzf "$1" -C "$package_dir" --strip-components=1 || return 1
  cp "$action/package-lock.json" "$package_dir/package-lock.json"
  (cd "$package_dir" && npm ci --no-audit --no-fund --omit=dev --omit=peer)
}

# Builds the package from the action's checkout and installs the packed tarball into the prefix.
install_from_checkout() {
  if ! command -v tar >/dev/null 2>&1; then
    echo "::error title=little-canary::this release pins no published package, and building little-canary@$version from the action's checkout needs tar, which this runner lacks" >&2
    exit 2
  fi
  local named
  named="$(node -p 'require(process.argv[1]).version' "$action/package.json" 2>/dev/null || true)"
  if [[ "$named" != "$version" ]]; then
    echo "::error title=little-canary::this release pins no published package, and the action's checkout ($action) is version ${named:-unknown}, not $version" >&2
    exit 2
  fi
  echo "::warning title=little-canary::this release pins no published package (LITTLE_CANARY_INTEGRITY is empty); building little-canary@$version from the action's own checkout (several minutes)" >&2
  local src="$temp/little-canary-src-$version"
  local packed="$temp/little-canary-pack-$version"
  rm -rf "$src" "$packed"
  mkdir -p "$src" "$packed"
  # The checkout without what a build makes or a repository keeps: the build starts clean.
  if ! tar -C "$action" --exclude=./node_modules --exclude=./dist --exclude=./.git -cf - . | tar -C "$src" -xf -; then
    echo "::error title=little-canary::copying the action's checkout ($action) to $src failed; see the log above" >&2
    exit 2
  fi
  if ! (cd "$src" && npm ci --no-audit --no-fund && npm pack --pack-destination "$packed") >&2; then
    echo "::error title=little-canary::building little-canary@$version from the action's checkout failed; see the log above" >&2
    exit 2
  fi
  local tarball
  tarball="$(find "$packed" -maxdepth 1 -name 'little-canary-*.tgz' -print -quit)"
  if [[ -z "$tarball" ]]; then
    echo "::error title=little-canary::building little-canary@$version from the action's checkout made no package" >&2
    exit 2
  fi
  if ! install_into_prefix "$tarball" >&2; then
    echo "::error title=little-canary::npm could not install the package built from the action's checkout; see the log above" >&2
    exit 2
  fi
}

# Downloads the published tarball of this version, checks it against the release's pin, installs it.
install_published() {
  local download="$temp/little-canary-download-$version"
  rm -rf "$download"
  mkdir -p "$download"
  if ! (cd "$download" && npm pack "little-canary@$version" --pack-destination "$download") >&2; then
    echo "::error title=little-canary::little-canary@$version could not be downloaded from the npm registry; see the log above" >&2
    exit 2
  fi
  local tarball found
  tarball="$(find "$download" -maxdepth 1 -name 'little-canary-*.tgz' -print -quit)"
  if [[ -z "$tarball" ]]; then
    echo "::error title=little-canary::the npm registry gave no package for little-canary@$version" >&2
    exit 2
  fi
  found="sha512-$(node -e 'process.stdout.write(require("node:crypto").createHash("sha512").update(require("node:fs").readFileSync(process.argv[1])).digest("base64"))' "$tarball")"
  if [[ "$found" != "$integrity" ]]; then
    echo "::error title=little-canary::the npm registry's little-canary@$version ($found) is not the package this release pins ($integrity); nothing was installed" >&2
    exit 2
  fi
  if ! install_into_prefix "$tarball" >&2; then
    echo "::error title=little-canary::npm could not install little-canary@$version; see the log above" >&2
    exit 2
  fi
}

if [[ ! -f "$cli" ]]; then
  mkdir -p "$temp"
  if [[ -n "$integrity" ]]; then install_published; else install_from_checkout; fi
fi
if [[ ! -f "$cli" ]]; then
  echo "::error title=little-canary::little-canary@$version installed no CLI at $cli" >&2
  exit 2
fi
echo "cli=$cli" >>"$GITHUB_OUTPUT"
echo "little-canary: using little-canary@$version ($(node --version))" >&2
