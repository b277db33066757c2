#!/usr/bin/env bash
# The emitted CUDA of generated kernels, run on the CPU (cu2cpp.py: one OS thread per CUDA
# thread), must print the checksums of `syncopt run`, in every parameter set of
# scripts/gpu-check. No GPU needed: checks the emitter against the interpreter's model.
# Usage: crates/emit/tests/cpu/check.sh [SEED0 [COUNT]]   (syncopt from target/release)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
B=${SYNCOPT:-$root/target/release/syncopt}
s0=${1:-0}; n=${2:-100}
w=$(mktemp -d)
fail=0; runs=0; kernels=0
for ((s = s0; s < s0 + n; s++)); do
  $B gen --executable --ops 20 --seed $s > $w/g.sk && $B insert $w/g.sk > $w/i.sk || { echo "seed $s: gen/insert failed"; fail=1; continue; }
  $B emit cuda $w/i.sk > $w/k.cu || { echo "seed $s: emit failed"; fail=1; continue; }
  python3 "$here/cu2cpp.py" $w/k.cu $w/k.cpp; rc=$?
  if [ $rc = 3 ]; then echo "seed $s: skipped (inline PTX)"; continue; fi
  g++ -std=c++20 -O0 -pthread -o $w/k $w/k.cpp || { echo "seed $s: g++ failed"; fail=1; continue; }
  kernels=$((kernels + 1))
  for ps in "" "n=0 p=0" "n=1 p=1" "n=3 p=0" "n=4 p=1"; do
    cp $w/i.sk $w/r.sk
    if [ -n "$ps" ]; then
      set -- $ps
      sed -i -E "s/^kernel @([a-z0-9_]+)\(%n = -?[0-9]+, %p = -?[0-9]+\)/kernel @\1(%${1%%=*} = ${1#*=}, %${2%%=*} = ${2#*=})/" $w/r.sk
      grep -q "(%n = ${1#*=}, %p = ${2#*=})" $w/r.sk || { echo "seed $s: cannot set $ps"; fail=1; continue; }
    fi
    $B run $w/r.sk > $w/want.txt 2>/dev/null || { echo "seed $s [$ps]: run failed"; fail=1; continue; }
    $w/k $ps > $w/got.txt || { echo "seed $s [$ps]: harness failed"; fail=1; continue; }
    runs=$((runs + 1))
    cmp -s $w/want.txt $w/got.txt || { echo "seed $s [$ps]: checksums differ"; fail=1; }
  done
done
rm -rf $w
echo "kernels $kernels, executions compared $runs, failures: $fail"
exit $fail
