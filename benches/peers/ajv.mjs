// `ajv` on the real-schema corpus, for benches/json_peers.rs: one JSON line
// per schema on stdout, {name, eval_us, full_us, disagree} or {name, error}.
//
//   node benches/peers/ajv.mjs <corpus dir> <rounds>
//
// `eval_us`: validating the parsed instances; `full_us`: `JSON.parse` of
// each instance's text and validating it; both the fastest of `rounds`
// rounds, each over enough repetitions to take about 5 ms, in µs for the
// schema's whole instance set (valid ones first). `disagree`: the indexes
// of instances whose verdict differs from their label; `note`: how the
// schema was compiled when not with the defaults. Formats are
// asserted (`ajv-formats`), as the guard asserts them; the draft comes from
// the schema's `$schema` (draft-07, or 2020-12 with `Ajv2020`).
import { createRequire } from "node:module";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const require = createRequire(join(process.cwd(), "noop.js"));
const Ajv = require("ajv").default;
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const [dir, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 9);

function fastest(f) {
  const start = process.hrtime.bigint();
  let reps = 0;
  while (process.hrtime.bigint() - start < 5_000_000n) {
    f();
    reps++;
  }
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; i++) f();
    const t = Number(process.hrtime.bigint() - t0) / reps / 1000;
    best = Math.min(best, t);
  }
  return best;
}

const names = readdirSync(join(dir, "schemas"))
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5))
  .sort();
for (const name of names) {
  const schema = JSON.parse(readFileSync(join(dir, "schemas", `${name}.json`), "utf8"));
  const sets = JSON.parse(readFileSync(join(dir, "instances", `${name}.json`), "utf8"));
  const values = [...sets.valid, ...sets.invalid];
  const labels = [...sets.valid.map(() => true), ...sets.invalid.map(() => false)];
  // The payloads as the Rust peers get them: compact JSON text.
  const texts = values.map((v) => JSON.stringify(v));
  // Unknown formats are ignored (as `jsonschema` ignores them), without
  // a warning each. A pattern that is not valid with the `u` flag (which
  // ajv sets by default) is retried without it, and said so.
  const compile = (unicodeRegExp) => {
    const draft2020 = String(schema.$schema || "").includes("2020-12");
    const options = { strict: false, validateFormats: true, unicodeRegExp, logger: false };
    const ajv = draft2020 ? new Ajv2020(options) : new Ajv(options);
    addFormats(ajv);
    return ajv.compile(schema);
  };
  let validate;
  let note;
  try {
    validate = compile(true);
  } catch (err) {
    try {
      validate = compile(false);
      note = `compiled only with unicodeRegExp: false (${String(err.message || err)})`;
    } catch (err2) {
      console.log(JSON.stringify({ name, error: String(err2.message || err2) }));
      continue;
    }
  }
  const disagree = [];
  values.forEach((v, i) => {
    if (validate(v) !== labels[i]) disagree.push(i);
  });
  let sink = 0;
  let evalBest = Infinity;
  let fullBest = Infinity;
  // Interleaved, three times, as the Rust peers.
  for (let k = 0; k < 3; k++) {
    evalBest = Math.min(
      evalBest,
      fastest(() => {
        for (const v of values) if (validate(v)) sink++;
      }),
    );
    fullBest = Math.min(
      fullBest,
      fastest(() => {
        for (const t of texts) if (validate(JSON.parse(t))) sink++;
      }),
    );
  }
  console.log(JSON.stringify({ name, eval_us: evalBest, full_us: fullBest, disagree, note, sink }));
}
