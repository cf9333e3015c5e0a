#!/usr/bin/env bash
# Opens a report in headless Chromium and saves a full-page screenshot.
#   scripts/screenshot.sh reports/sweep-…/report.html [out.png] [width] [height]
# Needs Debian's chromium (`apt-get install -y chromium`). Not part of CI.
set -euo pipefail
report=${1:?usage: scripts/screenshot.sh REPORT.html [OUT.png] [WIDTH] [HEIGHT]}
out=${2:-${report%.html}.png}
width=${3:-1400}
height=${4:-4000}
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chromium" ]; then
  echo "error: no chromium found (apt-get install -y chromium)" >&2
  exit 1
fi
abs=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
out_abs=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: headless runs as root in containers. The network flags keep it offline: the
# report must render without any.
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --hide-scrollbars --user-data-dir="$profile" --screenshot="$out_abs" \
  --window-size="$width,$height" "file://$abs" 2>/dev/null
echo "wrote $out_abs"
