#!/bin/bash
# Builds the release test binaries the campaigns run, stripped, into target/devbin (about 11 MB,
# small enough to carry to another machine), with the campaign scripts beside them.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=target/devbin
mkdir -p "$out"
for spec in "syncopt-barriers minimal" "syncopt-verify campaign" "syncopt-async-waits warnings"; do
  set -- $spec
  bin=$(cargo test --release -p "$1" --test "$2" --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*"' | tail -1 | cut -d'"' -f4)
  strip -o "$out/$2" "$bin"
done
cp scripts/campaigns/regress.sh scripts/campaigns/more.sh scripts/campaigns/reduce.py "$out/"
ls -la "$out"
