#!/usr/bin/env bash
# A CEL condition's cost in the guard against Confluent's Python client
# running the same rule and against evaluating it by hand with the `cel`
# crate, in one run (issue 40): `cargo bench --bench rules` (its `rules`
# group: the guard without and with the rule, and the rule by hand) then
# benches/rules_python.py (Confluent's JSONDeserializer without and with
# it, cel-python), on the same schema, payload and rule; prints each
# side's cost of the rule and their ratios.
#
#   source .ci/setup   # DATASCHEMA_PYTHON: confluent-kafka[rules]
#   benches/rules_vs_python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python="${DATASCHEMA_PYTHON:-python3}"
rust=$(cargo bench --bench rules --features cel,jsonata -- --warm-up-time 1 --measurement-time 3 'rules/' 2>/dev/null)
echo "$rust" | grep -E '^rules/|time:'
# Criterion's middle estimate, in microseconds.
estimate() {
  echo "$rust" | grep -A1 "^$1" | grep -o 'time: *\[[^]]*\]' |
    awk '{ v = $4; u = $5; if (u == "ns") v /= 1000; if (u == "ms") v *= 1000; print v }'
}
bare=$(estimate 'rules/guard$\|^rules/guard ')
ruled=$(estimate 'rules/guard_cel')
hand=$(estimate 'rules/cel_by_hand')
py=$("$python" benches/rules_python.py)
echo "$py"
py_rule=$(echo "$py" | sed -n 's/^python\/cel_rule.*: \([0-9.]*\) us$/\1/p')
awk -v b="$bare" -v r="$ruled" -v h="$hand" -v p="$py_rule" 'BEGIN {
  g = r - b
  printf "guard: the rule costs %.2f us a payload; Confluent Python: %.1f us; Python / guard: %.0fx\n", g, p, p / g
  printf "by hand with the cel crate (parse, convert, evaluate): %.2f us; guard / by hand: %.2f\n", h, g / h
}'
