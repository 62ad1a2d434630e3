#!/usr/bin/env bash
# The action's install step: installs little-canary at the exact version this release of the
# action names (LITTLE_CANARY_VERSION, set in action.yml), with its runtime dependencies only,
# into a directory of the runner's own, and records the CLI's path as the step output `cli`.
# From the npm registry when it has that version. First the registry is asked about that version
# of little-canary alone (`npm view`, which reads only little-canary's own registry entry): when it
# answers that the package or that version does not exist (a release not published yet), the
# package is built from the action's own checkout instead, which is the same release (its
# package.json must name the same version): copied to the runner's temporary directory, `npm ci`,
# `npm pack` (which builds), then the tarball installed exactly as the registry's package would
# be. That takes a few minutes and says so with a warning. Any other answer (the registry
# unreachable, an error status), and any failure of the install itself (a dependency missing, a
# bad tarball), fails the step: none is ever taken as a reason to build. A second run of the step
# in the same job reuses the install.
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
  if ! command -v tar >/dev/null 2>&1; then
    echo "::error title=little-canary::little-canary@$version is not on the npm registry, and building it from the action's checkout needs tar, which this runner lacks" >&2
    exit 2
  fi
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

# What the registry says of this version of little-canary alone: "published", "missing" (no such
# package or no such version), or "unknown" (it could not be asked: the step fails).
registry_answer() {
  local log="$temp/little-canary-view-$version.log" answer status=0
  answer="$(npm view "little-canary@$version" version 2>"$log")" || status=$?
  cat "$log" >&2
  if [[ $status -eq 0 ]]; then
    # npm view prints nothing, and succeeds, for a version the package does not have.
    if [[ "$answer" == "$version" ]]; then echo published; elif [[ -z "$answer" ]]; then echo missing; else echo unknown; fi
  elif grep -Eq 'code E404' "$log"; then
    # npm view fetched little-canary's own registry entry, so a 404 is about little-canary.
    echo missing
  else
    echo unknown
  fi
}

if [[ ! -f "$cli" ]]; then
  mkdir -p "$temp"
  answer="$(registry_answer)"
  case "$answer" in
    published)
      if ! install_into_prefix "little-canary@$version" >&2; then
        echo "::error title=little-canary::npm could not install little-canary@$version; see the log above" >&2
        exit 2
      fi
      ;;
    missing) install_from_checkout ;;
    *)
      echo "::error title=little-canary::the npm registry could not be asked whether little-canary@$version is published; see the log above" >&2
      exit 2
      ;;
  esac
fi
if [[ ! -f "$cli" ]]; then
  echo "::error title=little-canary::little-canary@$version installed no CLI at $cli" >&2
  exit 2
fi
echo "cli=$cli" >>"$GITHUB_OUTPUT"
echo "little-canary: using little-canary@$version ($(node --version))" >&2
