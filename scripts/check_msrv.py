#!/usr/bin/env python3
"""The declared MSRV holds for the dependency graph: no crate ddb-runtime or
ddb-derive builds (with every feature) declares a rust-version above the
workspace's. CI has one toolchain, so this checks the declaration against
what the dependencies require; it does not build with the older compiler."""
import json
import subprocess
import sys


def version(text):
    return tuple(int(p) for p in text.split("."))


meta = json.loads(
    subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--locked", "--all-features"]
    )
)
packages = {p["id"]: p for p in meta["packages"]}
ours = [p for p in meta["packages"] if p["name"] in ("ddb-runtime", "ddb-derive")]
msrv = version(ours[0]["rust_version"])
# The packages the two library crates reach through normal dependencies.
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
seen, stack = set(), [p["id"] for p in ours]
while stack:
    current = stack.pop()
    if current in seen:
        continue
    seen.add(current)
    for dep in nodes[current]["deps"]:
        if any(k["kind"] is None for k in dep["dep_kinds"]):
            stack.append(dep["pkg"])
too_new = [
    (packages[i]["name"], packages[i]["rust_version"])
    for i in seen
    if packages[i].get("rust_version") and version(packages[i]["rust_version"]) > msrv
]
if too_new:
    print(f"rust-version {'.'.join(map(str, msrv))} is below what dependencies need:")
    for name, needs in sorted(too_new):
        print(f"  {name} needs {needs}")
    sys.exit(1)
print(f"MSRV {'.'.join(map(str, msrv))}: {len(seen)} crates of the library's graph accept it")
