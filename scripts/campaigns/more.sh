#!/bin/bash
# more.sh OUTDIR [PAR]: the issue-4 minimality campaign on a second seed range (executable
# kernels at 100 ops, seeds 6000-11999, every GPU target), from target/devbin like regress.sh.
# Prints the removable barriers per target (and any rejection), then the seeds that had one.
# FROM=N: seeds N .. N+5999 instead (12000: the fresh range of session 29, which no rule was
# written for).
OUT=$1; PAR=${2:-16}; D=$(dirname "$0"); mkdir -p "$OUT"; FROM=${FROM:-6000}
seq "$FROM" 250 $((FROM + 5750)) | xargs -P "$PAR" -I{} bash -c "SYNCOPT_SHOW=1 SYNCOPT_OPS=100 SYNCOPT_FROM={} SYNCOPT_SEEDS=250 $D/minimal --ignored --exact executable_campaign_report --nocapture > $OUT/M{}.log 2>&1"
grep -h "of .* removable" "$OUT"/M*.log | awk '{split($0,a,":"); t=a[1]; split(a[2],b," "); r[t]+=b[1]; n[t]+=b[3]; if ($0 !~ /rejected \[\]/) print "REJ", $0} END {for (t in r) print t, r[t], n[t]}'
grep -h "removable by seed \[(" "$OUT"/M*.log | sort
