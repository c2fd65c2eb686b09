#!/usr/bin/env sh
# Fetches axe-core at the version package-lock.json pins and copies its
# built file beside this script, where tests/browser.rs reads it: the
# tests need no network. Run it from anywhere; commit axe.min.js.
set -eu
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then npm ci --ignore-scripts --no-audit --no-fund; else npm install --ignore-scripts --no-audit --no-fund; fi
cp node_modules/axe-core/axe.min.js node_modules/axe-core/LICENSE .
rm -rf node_modules
