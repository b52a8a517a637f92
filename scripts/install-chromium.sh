#!/usr/bin/env bash
# Installs Debian's Chromium for the HTML report test (test/cli, headless:
# the page renders without console errors, the DOM highlights the racing
# steps, a screenshot is taken). The test skips (exit 77) where it is not
# installed.
set -euo pipefail
command -v chromium >/dev/null && exit 0
"$(dirname "$0")/apt-install-missing.sh" chromium
