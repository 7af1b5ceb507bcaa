#!/usr/bin/env bash
# Instructions per datum of the Avro scanner and of apache-avro's decode to
# `Value`, for every row of benches/avro_scan.rs, counted by callgrind
# (deterministic on a loaded machine, where the wall-clock ratios move).
# Each side runs under `valgrind --tool=callgrind` at 1 and 3 rounds over
# the row's 1,000 datums; (I(3) - I(1)) / 2,000 is the count per datum.
#
#   cargo bench --bench avro_scan --no-run
#   benches/avro_instructions.sh [PATH-TO-THE-BENCH-BINARY]
set -euo pipefail
bin="${1:-$(ls -t "${CARGO_TARGET_DIR:-target}"/release/deps/avro_scan-* | grep -v '\.d$' | head -n 1)}"
count() {
  DATASCHEMA_AVRO_BENCH_COUNT="$1:$2:$3" valgrind --tool=callgrind \
    --callgrind-out-file=/dev/null "$bin" --bench 2>&1 >/dev/null |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -n 1
}
echo "| schema (row) | apache-avro decode | scan | decode / scan |"
echo "|---|---|---|---|"
for row in 0 1 2 3 4 5; do
  name=$(DATASCHEMA_AVRO_BENCH_COUNT="$row:scan:0" "$bin" --bench | sed 's/ scan 0$//')
  d1=$(count "$row" decode 1); d3=$(count "$row" decode 3)
  s1=$(count "$row" scan 1); s3=$(count "$row" scan 3)
  awk -v n="$name" -v d1="$d1" -v d3="$d3" -v s1="$s1" -v s3="$s3" 'BEGIN {
    d = (d3 - d1) / 2000; s = (s3 - s1) / 2000;
    printf "| %s | %.0f | %.0f | **%.1fx** |\n", n, d, s, d / s }'
done
