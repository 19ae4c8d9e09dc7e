#!/usr/bin/env bash
# Install Debian's Chromium for the web UI's real-browser test (Playwright drives it through
# executable_path=/usr/bin/chromium; Playwright's own browser download is not used). augkit
# itself never needs a browser.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing Debian's chromium (for the web UI's browser test) ..." >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "chromium installed: $(command -v chromium)" >&2
