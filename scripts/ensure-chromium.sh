#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed for the browser tests (driven by playwright-core with
# executablePath /usr/bin/chromium). Never downloads a browser of its own: `npx playwright install`
# fails here. Exits 0 when /usr/bin/chromium is present afterwards, non-zero when it cannot be installed.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
  else
    echo "ensure-chromium: $CHROMIUM is missing and this user cannot run apt-get (not root, no passwordless sudo)" >&2
    exit 3
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and there is no apt-get to install it with" >&2
  exit 3
fi

echo "ensure-chromium: installing Debian's chromium (about a minute)..." >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update >&2
$SUDO apt-get install -y chromium >&2

if [ ! -x "$CHROMIUM" ]; then
  echo "ensure-chromium: apt-get finished but $CHROMIUM is still missing" >&2
  exit 4
fi
