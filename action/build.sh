#!/usr/bin/env bash
# Builds the CLI from the action's own checkout (the action runs the code of the ref the workflow
# named, not a package fetched at run time). Skipped when a build is already there.
set -euo pipefail
cd "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is set by the Actions runner}"
if [[ -f dist/cli/main.js ]]; then
  echo "little-canary: using the existing build in dist/" >&2
  exit 0
fi
npm ci --no-audit --no-fund >&2
npm run build >&2
