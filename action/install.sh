#!/usr/bin/env bash
# The action's install step: installs little-canary at the exact version this release of the
# action names (LITTLE_CANARY_VERSION, set in action.yml), with its runtime dependencies only,
# into a directory of the runner's own, and records the CLI's path as the step output `cli`.
# From the npm registry when it has that version. When the registry answers that it has no such
# version (E404 or ETARGET: a release not published yet), the package is built from the action's
# own checkout instead, which is the same release (its package.json must name the same version):
# copied to the runner's temporary directory, `npm ci`, `npm pack` (which builds), then the
# tarball installed exactly as the registry's package would be. That takes a minute or two and
# says so with a warning. Any other install failure (network, a bad tarball) fails the step: it
# is never taken as a reason to build. A second run of the step in the same job reuses the install.
set -euo pipefail
version="${LITTLE_CANARY_VERSION:?LITTLE_CANARY_VERSION is set by action.yml}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by the Actions runner}"
# An exact version only: a range or a tag would run whatever was published last.
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "::error title=little-canary::LITTLE_CANARY_VERSION is not an exact version" >&2
  exit 2
fi
temp="${RUNNER_TEMP:?RUNNER_TEMP is set by the Actions runner}"
prefix="$temp/little-canary-$version"
cli="$prefix/node_modules/little-canary/dist/cli/main.js"
# --omit=dev: a dependency's dev dependencies are never installed, and the prefix's own (it has
# none) neither; --omit=peer: the optional framework peers are for the library.
install_into_prefix() {
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --omit=dev --omit=peer "$1"
}

# Builds the package from the action's checkout and installs the packed tarball into the prefix.
install_from_checkout() {
  local action="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is set by the Actions runner}"
  local named
  named="$(node -p 'require(process.argv[1]).version' "$action/package.json" 2>/dev/null || true)"
  if [[ "$named" != "$version" ]]; then
    echo "::error title=little-canary::little-canary@$version is not on the npm registry, and the action's checkout ($action) is version ${named:-unknown}, not $version" >&2
    exit 2
  fi
  echo "::warning title=little-canary::little-canary@$version is not on the npm registry; building it from the action's own checkout (a minute or two)" >&2
  local src="$temp/little-canary-src-$version"
  local packed="$temp/little-canary-pack-$version"
  rm -rf "$src" "$packed"
  mkdir -p "$src" "$packed"
  # The checkout without what a build makes or a repository keeps: the build starts clean.
  tar -C "$action" --exclude=./node_modules --exclude=./dist --exclude=./.git -cf - . | tar -C "$src" -xf -
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

if [[ ! -f "$cli" ]]; then
  log="$temp/little-canary-install-$version.log"
  mkdir -p "$temp"
  status=0
  install_into_prefix "little-canary@$version" 2>"$log" >&2 || status=$?
  cat "$log" >&2
  if [[ $status -ne 0 ]]; then
    if grep -Eq 'code (E404|ETARGET)' "$log"; then
      install_from_checkout
    else
      echo "::error title=little-canary::npm could not install little-canary@$version (exit $status); see the log above" >&2
      exit 2
    fi
  fi
fi
if [[ ! -f "$cli" ]]; then
  echo "::error title=little-canary::little-canary@$version installed no CLI at $cli" >&2
  exit 2
fi
echo "cli=$cli" >>"$GITHUB_OUTPUT"
echo "little-canary: using little-canary@$version ($(node --version))" >&2
