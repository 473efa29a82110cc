#!/usr/bin/env bash
# Draws docs/report-demo.png, the README's picture of the demo report, from the
# report.html that `make demo` writes, with Debian's headless Chromium.
# Usage: scripts/report-screenshot.sh [REPORT.html [OUT.png]]
set -euo pipefail
cd "$(dirname "$0")/.."
page=$(realpath "${1:-report.html}")
out=${2:-docs/report-demo.png}
command -v chromium >/dev/null || { echo "needs chromium (apt-get install chromium)" >&2; exit 1; }
HOME=$(mktemp -d) timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --disable-background-networking --no-first-run --window-size=1280,2300 \
  --screenshot="$out" "file://$page" 2>/dev/null
echo "wrote $out"
