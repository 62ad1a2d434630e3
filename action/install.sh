#!/usr/bin/env bash
# The action's install step: installs the published little-canary package at the exact version
# this release of the action names (LITTLE_CANARY_VERSION, set in action.yml), with its runtime
# dependencies only, into a directory of the runner's own, and records the CLI's path as the
# step output `cli`. No build and no dev dependency: the action's checkout supplies only these
# scripts. A second run of the step in the same job reuses the installed package.
set -euo pipefail
version="${LITTLE_CANARY_VERSION:?LITTLE_CANARY_VERSION is set by action.yml}"
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is set by the Actions runner}"
# An exact version only: a range or a tag would run whatever was published last.
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "::error title=little-canary::LITTLE_CANARY_VERSION is not an exact version" >&2
  exit 2
fi
prefix="${RUNNER_TEMP:?RUNNER_TEMP is set by the Actions runner}/little-canary-$version"
cli="$prefix/node_modules/little-canary/dist/cli/main.js"
if [[ ! -f "$cli" ]]; then
  mkdir -p "$prefix"
  # --omit=dev: a dependency's dev dependencies are never installed, and the prefix's own
  # (it has none) neither; --omit=peer: the optional framework peers are for the library.
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --omit=dev --omit=peer "little-canary@$version" >&2
fi
if [[ ! -f "$cli" ]]; then
  echo "::error title=little-canary::little-canary@$version installed no CLI at $cli" >&2
  exit 2
fi
echo "cli=$cli" >>"$GITHUB_OUTPUT"
echo "little-canary: using little-canary@$version ($(node --version))" >&2
