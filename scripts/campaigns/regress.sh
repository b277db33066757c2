#!/bin/bash
# regress.sh OUTDIR [PAR]: the issue-4 soundness and minimality campaigns in parallel chunks,
# run from target/devbin (see build.sh) on this machine or a lent one. Each job's log goes to
# OUTDIR; the summary lists what is not clean (rejections, warnings, removable barriers) and
# the exit status of the jobs. FILTER=REGEX keeps the jobs whose names match; EXTRA=1 adds
# verify campaigns on further seed ranges. About 6 minutes on 16 cores (2-core box: an hour).
OUT=$1; PAR=${2:-16}; D=$(dirname "$0"); mkdir -p "$OUT"
jobs=()
# verify at 20/60 ops: exec 0-4999, plain 0-1999 (chunks of 250)
for a in $(seq 0 250 4750); do jobs+=("V2060e$a|SYNCOPT_OPS=20,60 SYNCOPT_EXEC_SEEDS=$a..$((a+250)) SYNCOPT_PLAIN_SEEDS=0..0 $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
for a in $(seq 0 250 1750); do jobs+=("V2060p$a|SYNCOPT_OPS=20,60 SYNCOPT_EXEC_SEEDS=0..0 SYNCOPT_PLAIN_SEEDS=$a..$((a+250)) $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
# verify at 100/200 ops: exec 0-999, plain 0-499 (chunks of 50)
for a in $(seq 0 50 950); do jobs+=("V100e$a|SYNCOPT_OPS=100,200 SYNCOPT_EXEC_SEEDS=$a..$((a+50)) SYNCOPT_PLAIN_SEEDS=0..0 $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
for a in $(seq 0 50 450); do jobs+=("V100p$a|SYNCOPT_OPS=100,200 SYNCOPT_EXEC_SEEDS=0..0 SYNCOPT_PLAIN_SEEDS=$a..$((a+50)) $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
jobs+=("W|SYNCOPT_LONG=1 $D/warnings --exact generated_kernels_after_shared_barriers_have_no_warning --nocapture")
# minimality: exec 200 ops 0-499, plain 100 ops 0-1999
for a in $(seq 0 50 450); do jobs+=("M200e$a|SYNCOPT_SHOW=1 SYNCOPT_OPS=200 SYNCOPT_FROM=$a SYNCOPT_SEEDS=50 $D/minimal --ignored --exact executable_campaign_report --nocapture"); done
for a in $(seq 0 250 1750); do jobs+=("M100p$a|SYNCOPT_SHOW=1 SYNCOPT_EXECUTABLE=0 SYNCOPT_OPS=100 SYNCOPT_FROM=$a SYNCOPT_SEEDS=250 $D/minimal --ignored --exact executable_campaign_report --nocapture"); done
if [ -n "$EXTRA" ]; then
for a in $(seq 5000 250 9750); do jobs+=("X2060e$a|SYNCOPT_OPS=20,60 SYNCOPT_EXEC_SEEDS=$a..$((a+250)) SYNCOPT_PLAIN_SEEDS=0..0 $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
for a in $(seq 2000 250 3750); do jobs+=("X2060p$a|SYNCOPT_OPS=20,60 SYNCOPT_EXEC_SEEDS=0..0 SYNCOPT_PLAIN_SEEDS=$a..$((a+250)) $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
for a in $(seq 1000 50 1950); do jobs+=("X100e$a|SYNCOPT_OPS=100,200 SYNCOPT_EXEC_SEEDS=$a..$((a+50)) SYNCOPT_PLAIN_SEEDS=0..0 $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
for a in $(seq 500 50 950); do jobs+=("X100p$a|SYNCOPT_OPS=100,200 SYNCOPT_EXEC_SEEDS=0..0 SYNCOPT_PLAIN_SEEDS=$a..$((a+50)) $D/campaign --ignored --exact insert_output_verifies_campaign --nocapture"); done
fi
# minimality: exec 100 ops 0-5999 (chunks of 250)
for a in $(seq 0 250 5750); do jobs+=("M100e$a|SYNCOPT_SHOW=1 SYNCOPT_OPS=100 SYNCOPT_FROM=$a SYNCOPT_SEEDS=250 $D/minimal --ignored --exact executable_campaign_report --nocapture"); done
if [ -n "$FILTER" ]; then
  keep=(); for j in "${jobs[@]}"; do [[ "${j%%|*}" =~ $FILTER ]] && keep+=("$j"); done; jobs=("${keep[@]}")
fi
{ printf '%s\n' "${jobs[@]}" | grep -E '^(M100e|M200e|W\|)'; printf '%s\n' "${jobs[@]}" | grep -vE '^(M100e|M200e|W\|)'; } | xargs -P "$PAR" -d '\n' -I{} bash -c 'j="{}"; n=${j%%|*}; c=${j#*|}; s=$(date +%s); env $c > '"$OUT"'/$n.log 2>&1; echo "$n rc=$? $(( $(date +%s) - s ))s" >> '"$OUT"'/done.txt'
grep -h "rejected of\|campaign:\|removable\|test result: FAILED\|REJECTED\|WARNED\|NOT IDEMP\|INSERT FAILED\|panicked" "$OUT"/*.log | grep -v " 0 rejected of\|: 0 of [0-9]* removable; rejected \[\]$\|removable by seed \[\]$" | sort | uniq -c | sort -rn | head -80
sort "$OUT"/done.txt | awk '{print $2}' | sort | uniq -c
