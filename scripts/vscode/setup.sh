#!/usr/bin/env bash
# Installs the real VS Code that the integration tests and screenshots run in: the npm package
# code-server@4.100.3 (VS Code 1.100.3 server + Node extension host + web workbench) into
# vscode-host/node_modules, using only the npm registry and Debian packages (no GitHub downloads).
# Idempotent: a stamp file makes a second run return at once.
# Approach adapted from the team's shared vscode-integration example.
set -euo pipefail
cd "$(dirname "$0")/../.."
HOST_DIR=vscode-host
STAMP="$HOST_DIR/node_modules/.agent-lab-installed-$(sha1sum "$HOST_DIR/package.json" "$HOST_DIR/package-lock.json" | sha1sum | cut -c1-12)"
[ -f "$STAMP" ] && exit 0

# 1. Debian packages. chromium runs the workbench; ripgrep replaces @vscode/ripgrep's GitHub
#    download; libkrb5-dev lets the 'kerberos' native module compile (its prebuilt download fails
#    offline); g++/make/python3 are node-gyp's toolchain.
PKGS="chromium ripgrep libkrb5-dev g++ make python3"
missing=$(for p in $PKGS; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"; done | xargs)
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "[setup-vscode] missing system packages: $missing. Install them (Debian/Ubuntu: sudo apt-get install $missing) and rerun." >&2
    exit 2
  fi
  echo "[setup-vscode] apt-get install $missing"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# 2. @vscode/ripgrep's postinstall looks in its download cache before fetching from GitHub: put
#    Debian's rg there under the archive name @vscode/ripgrep 1.15.11 expects.
RG_CACHE="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
mkdir -p "$RG_CACHE"
tar czf "$RG_CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$(command -v rg)")" rg

# 3. npm ci from the committed lockfile. code-server's postinstall installs lib/vscode's own
#    dependencies and compiles ~9 native modules (1.5-2 min on 2 cores).
#    npm_config_unsafe_perm: that postinstall refuses to run as root otherwise.
#    npm_config_yes: node-pty's install runs 'npx node-gyp', which an npmrc with yes=false cancels.
echo "[setup-vscode] installing code-server 4.100.3 into $HOST_DIR (about 2 min, once)"
start=$(date +%s)
NPM_CMD=ci; [ -f "$HOST_DIR/package-lock.json" ] || NPM_CMD=install
set +e
( cd "$HOST_DIR" && npm_config_unsafe_perm=true npm_config_yes=true \
    npm $NPM_CMD --no-audit --no-fund --loglevel=error ) 2>&1 | grep -v 'Unknown env config "unsafe-perm"'
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || { echo "[setup-vscode] npm $NPM_CMD failed (exit $rc)" >&2; exit "$rc"; }
VS="$HOST_DIR/node_modules/code-server/lib/vscode"
test -f "$VS/node_modules/node-pty/build/Release/pty.node" || { echo "[setup-vscode] node-pty did not build" >&2; exit 1; }
test -x "$VS/node_modules/@vscode/ripgrep/bin/rg" || { echo "[setup-vscode] ripgrep missing" >&2; exit 1; }
rm -f "$HOST_DIR"/node_modules/.agent-lab-installed-*
touch "$STAMP"
echo "[setup-vscode] done in $(( $(date +%s) - start )) s"
