#!/usr/bin/env bash
# Installs code-server 4.100.3 (a real VS Code, from npm) and puppeteer-core into a cache folder
# outside the repository, offline apart from the npm registry (see TOOLING_FACTS.md):
#
#   tests/editors/vscode/install-code-server.sh [DIR]
#
# DIR defaults to $WARP_CT_CODE_SERVER_DIR, else ~/.cache/warp-ct-ci/code-server-4.100.3. A finished
# install leaves DIR/.complete; a second run with it present does nothing (the CI cache). Needs
# Debian's libkrb5-dev build-essential pkg-config ripgrep (for the native modules and rg), Node 20.
set -euo pipefail

VERSION=4.100.3
PUPPETEER=puppeteer-core@24
DIR="${1:-${WARP_CT_CODE_SERVER_DIR:-$HOME/.cache/warp-ct-ci/code-server-$VERSION}}"
STAMP="$DIR/.complete"
WANT="code-server@$VERSION $PUPPETEER node $(node --version)"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$DIR/node_modules/.bin/code-server" ]; then
    echo "code-server $VERSION: cached in $DIR"
    exit 0
fi

for tool in node npm rg cc make pkg-config; do
    command -v "$tool" >/dev/null 2>&1 || { echo "install-code-server: $tool is missing" >&2; exit 1; }
done

started=$(date +%s)
echo "code-server $VERSION: installing into $DIR (a few minutes)"
rm -rf "$DIR"
mkdir -p "$DIR"
cd "$DIR"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

echo '{"name": "warp-ct-code-server", "private": true}' > package.json
npm pack --silent "code-server@$VERSION" --pack-destination "$work" >/dev/null
npm install --ignore-scripts --no-save --loglevel=error "$work/code-server-$VERSION.tgz" "$PUPPETEER"
npm rebuild --loglevel=error argon2

# @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache holds the tarball: give it
# Debian's rg.
mkdir -p "$work/rg" "$work/tmp/vscode-ripgrep-cache-1.15.11"
cp "$(command -v rg)" "$work/rg/rg"
tar -C "$work/rg" -czf "$work/tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" rg

(
    cd node_modules/code-server
    TMPDIR="$work/tmp" \
    npm_config_unsafe_perm=true \
    npm_config_yes=true \
    npm_config_user_agent="npm/11 node/$(node --version) linux x64" \
        sh ./postinstall.sh
) > "$work/postinstall.log" 2>&1 || {
    echo "install-code-server: postinstall.sh failed; its log:" >&2
    tail -n 60 "$work/postinstall.log" >&2
    exit 1
}

"$DIR/node_modules/.bin/code-server" --version >/dev/null
echo "$WANT" > "$STAMP"
echo "code-server $VERSION: installed in $(( $(date +%s) - started )) s"
