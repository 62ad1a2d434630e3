#!/usr/bin/env bash
# The action's gate step: fails with the screen step's exit code unless it was 0. A missing or
# non-numeric code (the screen step did not get as far as recording one) fails too.
set -euo pipefail
code="${SCREEN_EXIT_CODE:-}"
if [[ ! "$code" =~ ^[0-9]+$ ]]; then
  echo "::error title=little-canary::the screen step recorded no exit code" >&2
  exit 2
fi
if [[ "$code" != "0" ]]; then
  echo "little-canary: screen exited $code (1: blocked or flagged; 2: refused, degraded or unexercised)" >&2
fi
exit "$code"
