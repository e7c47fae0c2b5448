#!/usr/bin/env bash
# What a service depending on ddb's core compiles and links: a small
# service (one entity, a put and a get) built against ddb-runtime with its
# default features, next to the same service written on aws-sdk-dynamodb
# alone. Prints the lines of Rust the core crate compiles, its own cold
# release build time (dependencies already built; median of three), and
# both services' stripped release binary sizes (fat LTO, one codegen unit,
# as the workspace's release profile).
#
# Usage: scripts/footprint.sh [workspace root]  (default: this workspace;
# pass another checkout to measure it the same way). The crates and their
# builds go under $CARGO_TARGET_DIR (default target/) of this workspace,
# in footprint/.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "${1:-$here}" && pwd)"
base="${CARGO_TARGET_DIR:-$here/target}/footprint"
work="$base/$(basename "$root")"
rm -rf "$work"
mkdir -p "$work"

service() { # $1: ddb|raw
  local dir="$work/$1"
  mkdir -p "$dir/src"
  {
    echo '[package]'
    echo "name = \"svc-$1\""
    echo 'version = "0.0.0"'
    echo 'edition = "2021"'
    echo 'publish = false'
    echo '[workspace]'
    echo '[profile.release]'
    echo 'lto = "fat"'
    echo 'codegen-units = 1'
    echo 'strip = true'
    echo '[dependencies]'
    echo 'tokio = { version = "1", features = ["rt-multi-thread", "macros"] }'
    echo 'aws-config = { version = "1.13", default-features = false, features = ["default-https-client", "rt-tokio", "behavior-version-latest"] }'
    echo 'aws-sdk-dynamodb = { version = "1.136", default-features = false, features = ["default-https-client", "rt-tokio", "behavior-version-latest"] }'
    if [ "$1" = ddb ]; then
      echo "ddb-runtime = { path = \"$root/ddb-runtime\" }"
      echo 'serde = { version = "1", features = ["derive"] }'
    fi
  } > "$dir/Cargo.toml"
  cp "$root/Cargo.lock" "$dir/Cargo.lock"
  if [ "$1" = ddb ]; then
    cat > "$dir/src/main.rs" <<'EOF'
use ddb_runtime::{Db, Entity, Table};
use serde::{Deserialize, Serialize};

#[derive(Table)]
#[ddb(name = "App", pk = "PK", sk = "SK")]
struct App;

#[derive(Entity, Serialize, Deserialize, Clone, Debug)]
#[ddb(table = App, entity = "Note", pk = "NOTE#{id}", sk = "NOTE")]
struct Note {
    id: String,
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = aws_config::load_from_env().await;
    let db = Db::new(aws_sdk_dynamodb::Client::new(&config));
    let note = Note { id: std::env::args().nth(1).unwrap_or_default(), text: "hi".into() };
    db.put(&note).send().await?;
    let read = db.get(note.primary_key()?).send().await?;
    println!("{read:?}");
    Ok(())
}
EOF
  else
    cat > "$dir/src/main.rs" <<'EOF'
use aws_sdk_dynamodb::types::AttributeValue;

#[derive(Debug)]
struct Note {
    id: String,
    text: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = aws_config::load_from_env().await;
    let client = aws_sdk_dynamodb::Client::new(&config);
    let id = std::env::args().nth(1).unwrap_or_default();
    let s = |text: &str| AttributeValue::S(text.to_owned());
    client
        .put_item()
        .table_name("App")
        .item("PK", s(&format!("NOTE#{id}")))
        .item("SK", s("NOTE"))
        .item("_type", s("Note"))
        .item("id", s(&id))
        .item("text", s("hi"))
        .send()
        .await?;
    let read = client
        .get_item()
        .table_name("App")
        .key("PK", s(&format!("NOTE#{id}")))
        .key("SK", s("NOTE"))
        .send()
        .await?;
    let note = read.item.map(|item| Note {
        id: item.get("id").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default(),
        text: item.get("text").and_then(|v| v.as_s().ok()).cloned().unwrap_or_default(),
    });
    println!("{note:?}");
    Ok(())
}
EOF
  fi
}

service ddb
service raw
# Both services (and every checkout measured) share one target directory:
# the SDK is built once.
export CARGO_TARGET_DIR="$base/target"
for side in raw ddb; do
  (cd "$work/$side" && cargo build --release --quiet)
done
size() { stat -c %s "$CARGO_TARGET_DIR/release/svc-$1"; }
raw=$(size raw)
ddb=$(size ddb)

# The core's own cold build: its dependencies built, the crate rebuilt
# from scratch, three times; wall time, and the CPU time of the compiler
# (user + system of cargo and its children), which a loaded machine does
# not inflate.
times=()
cpus=()
for _ in 1 2 3; do
  (cd "$work/ddb" && cargo clean --release --quiet -p ddb-runtime)
  read -r wall cpu < <(cd "$work/ddb" && python3 - <<'PY'
import resource, subprocess, time
start = time.monotonic()
subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "ddb-runtime"], check=True)
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(time.monotonic() - start, used.ru_utime + used.ru_stime)
PY
)
  times+=("$wall")
  cpus+=("$cpu")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 2p)

lines=$(find "$root/ddb-runtime/src" -name '*.rs' -print0 | xargs -0 cat |
  grep -cvE '^\s*(//.*)?$')

printf 'ddb-runtime/src: %s lines of Rust (not blank, not comments)\n' "$lines"
printf 'its cold release build (dependencies built): %.1f s wall, %.1f s CPU (medians of 3)\n' "$median" "$cpu"
python3 -c "print(f'stripped release binary: raw SDK {$raw / 2**20:.2f} MB, ddb {$ddb / 2**20:.2f} MB (+{($ddb - $raw) / 2**20:.2f} MB)')"
