#!/usr/bin/env sh
# Fetches dagre at the version package-lock.json pins and copies its released
# browser bundle (graphlib included) beside this script (src/serve/assets.rs
# embeds it in the binary). Run it from anywhere; commit the result.
set -eu
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then npm ci --ignore-scripts --no-audit --no-fund; else npm install --ignore-scripts --no-audit --no-fund; fi
cp node_modules/@dagrejs/dagre/dist/dagre.min.js node_modules/@dagrejs/dagre/LICENSE .
cp node_modules/@dagrejs/graphlib/LICENSE LICENSE.graphlib
rm -rf node_modules
