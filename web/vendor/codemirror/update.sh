#!/usr/bin/env sh
# Fetches CodeMirror 5 at the version package-lock.json pins and copies the
# released files the page loads beside this script (src/serve/assets.rs
# embeds them in the binary). Run it from anywhere; commit the result.
set -eu
cd "$(dirname "$0")"
if [ -f package-lock.json ]; then npm ci --ignore-scripts --no-audit --no-fund; else npm install --ignore-scripts --no-audit --no-fund; fi
cp node_modules/codemirror/lib/codemirror.js node_modules/codemirror/lib/codemirror.css \
   node_modules/codemirror/addon/mode/simple.js node_modules/codemirror/LICENSE .
rm -rf node_modules
