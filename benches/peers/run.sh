#!/usr/bin/env bash
# The peer table of BENCHMARKS.md (issue 19): installs `ajv`, `ajv-formats`
# and Blaze (`@sourcemeta/jsonschema`, AGPL-3.0, which ships its binary)
# from npm into a cache directory outside the repository (nothing is
# vendored), builds and runs benches/peers/macro (`jsonschema`'s
# compile-time validators, a crate of its own, target dir in the cache),
# then runs benches/json_peers.rs, which also times the guard, `jsonschema`
# and `boon` in the same run and reads the other peers' figures.
#
#   benches/peers/run.sh            # JSON_PEERS_ROUNDS=9 by default
#
# Needs Node 20 (`node`, `npm`). DATASCHEMA_PEERS_CACHE sets the cache
# directory (default ~/.cache/dataschema-peers).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${DATASCHEMA_PEERS_CACHE:-$HOME/.cache/dataschema-peers}"
mkdir -p "$cache"
# Versions pinned, so a rerun measures the same peers.
npm install --prefix "$cache" --no-save --no-audit --no-fund \
  ajv@8.20.0 ajv-formats@3.0.1 @sourcemeta/jsonschema@16.11.0 >&2
echo "node $(node --version); ajv $(node -p "require('$cache/node_modules/ajv/package.json').version"); blaze $(node -p "require('$cache/node_modules/@sourcemeta/jsonschema/package.json').version")" >&2
rounds="${JSON_PEERS_ROUNDS:-9}"
echo "jsonschema macro: building benches/peers/macro" >&2
CARGO_TARGET_DIR="$cache/macro-target" cargo build --release --quiet \
  --manifest-path benches/peers/macro/Cargo.toml >&2
"$cache/macro-target/release/jsonschema-macro-peer" tests/data/json_corpus "$rounds" >"$cache/macro.jsonl"
DATASCHEMA_PEERS="$cache" exec cargo bench --features peer-bench --bench json_peers "$@"
