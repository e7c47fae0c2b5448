#!/usr/bin/env bash
# The compile cost of ddb's derives: a generated crate of 30 entities with
# #[derive(Entity)] (and a Table), against the same structs with serde's
# derives only. Both crates' dependencies are built first; then each crate
# alone is rebuilt from a touched lib.rs, three times, and the medians are
# printed. Usage: scripts/compile_cost.sh  (from the workspace root); the
# crates and their builds go under $CARGO_TARGET_DIR (default target/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${CARGO_TARGET_DIR:-$root/target}/compile-cost"
rm -rf "$work"
mkdir -p "$work"

entities=30
generate() { # $1: ddb|serde
  local dir="$work/$1"
  mkdir -p "$dir/src"
  {
    echo '[package]'
    echo "name = \"cost-$1\""
    echo 'version = "0.0.0"'
    echo 'edition = "2021"'
    echo 'publish = false'
    echo '[workspace]'
    echo '[dependencies]'
    echo 'serde = { version = "1", features = ["derive"] }'
    if [ "$1" = ddb ]; then
      echo "ddb-runtime = { path = \"$root/ddb-runtime\" }"
    fi
  } > "$dir/Cargo.toml"
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  {
    echo '#![allow(dead_code)]'
    echo 'use serde::{Deserialize, Serialize};'
    if [ "$1" = ddb ]; then
      echo '#[derive(ddb_runtime::Table)]'
      echo '#[ddb(name = "App", pk = "PK", sk = "SK")]'
      echo '#[ddb(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]'
      echo 'pub struct App;'
    fi
    for i in $(seq 1 "$entities"); do
      if [ "$1" = ddb ]; then
        echo "#[derive(ddb_runtime::Entity, Serialize, Deserialize)]"
        echo "#[ddb(table = App, entity = \"Entity$i\", pk = \"E$i#{id}\", sk = \"AT#{at}#{n}\", query = \"q$i\")]"
        echo "#[ddb(index(name = \"GSI1\", pk = \"OWNER$i#{owner}\", sk = \"E$i#{id}\", query = \"by_owner$i\"))]"
      else
        echo "#[derive(Serialize, Deserialize)]"
      fi
      echo "pub struct Entity$i { pub id: String, pub owner: String, pub at: u64, pub n: u32, pub name: String, pub tags: Vec<String>, pub total: u64 }"
    done
  } > "$dir/src/lib.rs"
}

measure() { # $1: ddb|serde -> median seconds of 3 rebuilds
  local dir="$work/$1"
  (cd "$dir" && CARGO_TARGET_DIR="$work/target" cargo build --offline -q 2>/dev/null || CARGO_TARGET_DIR="$work/target" cargo build -q)
  local times=()
  for _ in 1 2 3; do
    touch "$dir/src/lib.rs"
    local start end
    start=$(date +%s.%N)
    (cd "$dir" && CARGO_TARGET_DIR="$work/target" cargo build -q)
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}

generate ddb
generate serde
ddb=$(measure ddb)
serde=$(measure serde)
echo "30 entities, cargo build of the crate alone (dependencies built), median of 3:"
echo "  with ddb's derives: ${ddb} s"
echo "  serde derives only: ${serde} s"
echo "  ratio: $(echo "scale=2; $ddb / $serde" | bc)"
