#!/usr/bin/env bash
# The honest lifecycle's gas under today's storage design and under prototype.patch (a task kept as one hash), side
# by side on one chain (README.md). Needs `npm ci` in this checkout. Builds the patched contracts in a throwaway
# worktree of the commit the patch was written against (BASE), so the checkout itself is left as it is.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
base=$(cat "$here/BASE")
tmp=$(mktemp -d)
cleanup() {
  git -C "$root" worktree remove --force "$tmp/tree" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

git -C "$root" worktree add --quiet --detach "$tmp/tree" "$base"
cd "$tmp/tree"
git apply "$here/prototype.patch"
ln -s "$root/node_modules" node_modules
mkdir -p bench/gas-state-hash
cp "$here/lifecycle.test.ts" bench/gas-state-hash/
node scripts/build-contracts.mjs --quiet

# The patched market holds both designs and is larger than EIP-170 allows: anvil runs without that limit.
anvil=$(node -e "const p = {x64: 'amd64', arm64: 'arm64'}[process.arch]; console.log(require.resolve('@foundry-rs/anvil-' + process.platform + '-' + p + '/package.json').replace(/package\.json$/, 'bin/anvil'))")
printf '#!/bin/sh\nexec "%s" "$@" --disable-code-size-limit\n' "$anvil" > "$tmp/anvil"
chmod +x "$tmp/anvil"
GENSYN_ANVIL_BIN="$tmp/anvil" npx mocha --no-parallel bench/gas-state-hash/lifecycle.test.ts
