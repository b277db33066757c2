#!/usr/bin/env bash
# racecheck probes (docs/GPU-VALIDATION.md, "What racecheck reports"). On the GPU machine:
#   crates/emit/tests/probes/run.sh
# racecheck_kinds: ./k WHICH T (26 small two-access kernels, see the switch);
# racecheck_order: ./k A B PAT MODE T D (A, B: 0 read, 1 write, 2 atomic; PAT: 0 (t+32)%T,
#   1 T-1-t; MODE: 0 none, 1/2 warp-ordered clock64 stagger of D cycles between the accesses);
# racecheck_war: ./k VAR PAT MODE T D (write-after-read variants, see the switch).
set -u
cd "$(dirname "$0")"
W=$(mktemp -d)
for p in racecheck_kinds racecheck_order racecheck_war; do
  nvcc -arch=sm_90 -O2 -lineinfo -o "$W/$p" "$p.cu" || exit 1
done
hz() { compute-sanitizer --tool racecheck --racecheck-report all "$@" 2>&1 | grep -Eo 'RACECHECK SUMMARY: [0-9]+' | grep -Eo '[0-9]+$'; }
for w in $(seq 0 25); do echo "kinds $w T=128: $(hz "$W/racecheck_kinds" "$w" 128) hazards"; done
for a in 0 1 2; do for b in 0 1 2; do [ "$a$b" = 00 ] && continue
  for m in 0 1 2; do echo "order a=$a b=$b mode=$m: $(hz "$W/racecheck_order" $a $b 0 $m 128 200000) hazards"; done
done; done
for v in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 20 21 22; do
  for m in 0 1 2; do echo "war var=$v mode=$m: $(hz "$W/racecheck_war" $v 0 $m 128 200000) hazards"; done
done
rm -rf "$W"
