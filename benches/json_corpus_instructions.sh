#!/usr/bin/env bash
# The JSON corpus bench in instructions (callgrind), schema by schema: the
# guard's instructions over the bare path's (`serde_json` + `jsonschema`)
# for the same calls, and their geometric mean; then two floors over the
# bare path: the guard on the schema `true` (reading the bytes, checking
# nothing) and `serde_json::from_slice::<IgnoredAny>`; for each schema
# whose plan compiles, the guard with the validator generated from its
# plan (`codegen = true`), on a line of its own (stderr). Instruction counts
# do not move with the machine's load, unlike the timed summary.
#
#   benches/json_corpus_instructions.sh [CALLS] [SCHEMA...]
#
# Builds the bench (release) once, or runs JSON_CORPUS_BIN if set; CALLS
# (default 20) runs of each path over all of a schema's instances, after one
# warm-up run of each.
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-20}
shift || true
bin=${JSON_CORPUS_BIN:-}
[ -n "$bin" ] || bin=$(cargo bench --bench json_corpus --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "json_corpus" and m.get("executable"):
        print(m["executable"])')
if [ $# -eq 0 ]; then
  set -- $(ls tests/data/json_corpus/schemas | sed 's/\.json$//')
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-24s %-34s %14s %14s %7s %7s %7s\n' schema engine bare guard g/b floor/b ign/b
for name in "$@"; do
  engine=$(JSON_CORPUS_ONLY=$name JSON_CORPUS_CALLS=$calls valgrind --tool=callgrind \
    --callgrind-out-file="$out/$name.cg" "$bin" --bench 2>/dev/null | sed "s/^$name //")
  callgrind_annotate --inclusive=yes --threshold=100 "$out/$name.cg" 2>/dev/null |
    python3 -c '
import re, sys
name, engine = sys.argv[1], sys.argv[2]
counts = {}
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+)\s.*json_corpus::(instructions_bare|instructions_guard|instructions_generated|instructions_floor|instructions_ignored)\b", line)
    if m:
        counts[m.group(2)] = int(m.group(1).replace(",", ""))
bare, guard = counts["instructions_bare"], counts["instructions_guard"]
floor, ignored = counts["instructions_floor"], counts["instructions_ignored"]
print(f"{name:<24} {engine:<34} {bare:>14,} {guard:>14,} {guard / bare:>7.3f} {floor / bare:>7.3f} {ignored / bare:>7.3f}")
if "instructions_generated" in counts:
    generated = counts["instructions_generated"]
    print(f"{name}: generated (codegen) {generated:,} instructions: {generated / bare:.3f} of bare, "
          f"{generated / guard:.3f} of the guard, {generated / ignored:.3f} of from_slice::<IgnoredAny>",
          file=sys.stderr)
' "$name" "$engine"
done | tee "$out/table"
python3 -c '
import math, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
mean = lambda col: math.exp(sum(math.log(float(r[col])) for r in rows) / len(rows))
print(f"geometric mean guard/bare over {len(rows)} schemas: {mean(-3):.3f}")
print(f"floors: the guard on `true` {mean(-2):.3f}, from_slice::<IgnoredAny> {mean(-1):.3f} of the bare path")
' "$out/table"
