#!/usr/bin/env bash
# Instructions per payload of each row of benches/resolution.rs (ours: the
# plan alone and the checked Resolution; the baseline: serde_json Value,
# apache-avro Value, prost-reflect DynamicMessage, decode then encode),
# counted by callgrind: deterministic on a loaded machine. Each row runs
# under `valgrind --tool=callgrind` at 1 and 3 rounds over the workload's
# payloads; (I(3) - I(1)) / (2 * payloads) is the count per payload (a
# workload of one payload runs 1 and 201 rounds: a run's set-up moves by
# some thousands of instructions from run to run, hash seeds differing).
#
#   cargo bench --bench resolution --no-run
#   benches/resolution_instructions.sh [PATH-TO-THE-BENCH-BINARY]
set -euo pipefail
bin="${1:-$(ls -t "${CARGO_TARGET_DIR:-target}"/release/deps/resolution-* | grep -v '\.d$' | head -n 1)}"
count() {
  DATASCHEMA_RESOLVE_BENCH_COUNT="$1:$2:$3:$4" valgrind --tool=callgrind \
    --callgrind-out-file=/dev/null "$bin" --bench 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -n 1
}
echo "| workload | way | baseline | plan | checked | baseline / plan | baseline / checked |"
echo "|---|---|---|---|---|---|---|"
for row in ${ROWS:-0 1 2 3 4 5 6 7}; do
  for way in read back; do
    line=$(DATASCHEMA_RESOLVE_BENCH_COUNT="$row:$way:plan:0" "$bin" --bench | tail -n 1)
    name=${line% * *}
    n=$(echo "$line" | awk '{print $(NF-1)}')
    high=3
    [ "$n" -eq 1 ] && high=201
    b1=$(count "$row" "$way" baseline 1); b3=$(count "$row" "$way" baseline $high)
    p1=$(count "$row" "$way" plan 1); p3=$(count "$row" "$way" plan $high)
    c1=$(count "$row" "$way" checked 1); c3=$(count "$row" "$way" checked $high)
    awk -v name="$name" -v way="$way" -v n="$n" -v k="$((high - 1))" -v b1="$b1" -v b3="$b3" \
      -v p1="$p1" -v p3="$p3" -v c1="$c1" -v c3="$c3" 'BEGIN {
      b = (b3 - b1) / (k * n); p = (p3 - p1) / (k * n); c = (c3 - c1) / (k * n);
      printf "| %s | %s | %.0f | %.0f | %.0f | **%.2fx** | **%.2fx** |\n", name, way, b, p, c, b / p, b / c }'
  done
done
