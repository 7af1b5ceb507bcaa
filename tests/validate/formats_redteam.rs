//! Red team of the scanner's byte-level fast paths: `format` checked on a
//! string's raw text (`core/src/json/validate/plan/format.rs`) and
//! `uniqueItems` / `minProperties` / `maxProperties` decided on the bytes
//! (`unique_scalars` in `core/src/json/validate/scanner.rs`). Each schema
//! is put in a guard and each payload's verdict on the bytes path
//! (`Guard::validate`) is compared with `jsonschema`'s on the parsed value,
//! built with the guard's options (formats asserted). Every schema must be
//! scanned (`Guard::json_engine` is not `Jsonschema`), and every sweep must
//! see both verdicts. Inputs are fixed or drawn from fixed seeds.
//!
//! No disagreement was found when this was written: the byte-level checks
//! follow `jsonschema` 0.61's `is_valid_date`/`time`/`duration`/`uuid`,
//! std's IP parsers and its JSON-pointer grammar, and `unique_scalars` /
//! `distinct_keys` fall back to the parsed value on escapes, compounds and
//! numbers past 2^53.

use std::time::Instant;

use serde_json::{json, Value};

use crate::redteam::*;

const DRAFTS: [Option<&str>; 6] = [
    Some(DRAFT4),
    Some(DRAFT6),
    Some(DRAFT7),
    Some(DRAFT2019),
    Some(DRAFT2020),
    None,
];

const FORMATS: [&str; 12] = [
    "regex",
    "date",
    "date-time",
    "time",
    "duration",
    "uuid",
    "ipv4",
    "ipv6",
    "json-pointer",
    "relative-json-pointer",
    "email",
    "hostname",
];

/// `keywords` under `draft` (`None`: no `$schema`).
fn with_draft(draft: Option<&str>, keywords: Value) -> Value {
    let mut schema = keywords;
    if let (Some(uri), Value::Object(map)) = (draft, &mut schema) {
        map.insert("$schema".into(), json!(uri));
    }
    schema
}

/// A fixed-seed xorshift generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Hand-picked strings for every format (each tried against every format).
#[rustfmt::skip]
fn format_strings() -> Vec<String> {
    let fixed = [
        // regex
        "^a+$", "(", ")", "[a-z", "[z-a]", "a{2,1}", "a{1,2}", "a**", "\\d+", "\\", "\\c",
        "\\cA", "(?<n>x)\\k<n>", "\\k<n>", "(?=x)y", "(?<=x)y", "(?<!x)", "\\p{L}+",
        "\\p{Nope}", "\\u{1F600}", "\\uD83D\\uDE00", "\\1(a)", "[\\b]", "\\Z", "\\a",
        "x|", "|", "", "{", "}", "a{", "]", "[^]", "[]", ".*?", "(?:a)", "(?i)a", "\\/", "/",
        "[\\w-.]", "\\-", "é+", "[é-ü]",
        // date
        "2024-02-29", "2023-02-29", "1900-02-29", "2000-02-29", "2100-02-29", "0000-02-29",
        "2400-02-29", "2024-04-31", "2024-06-31", "2024-09-31", "2024-11-31", "2024-04-30",
        "2024-01-31", "2024-12-31", "2024-13-01", "2024-00-10", "2024-01-00", "2024-1-01",
        "2024-01-1", "20240101", "+2024-01-01", "2024-01-01 ", " 2024-01-01", "2024-01-01\n",
        "９９９９-01-01", "2024-01-٠١", "2024/01/01", "2024-01-01Z", "99999-01-01",
        "2026-01-01", "2024-02-30", "1600-02-29", "1700-02-29",
        // time
        "23:59:60Z", "23:59:60z", "22:59:60Z", "23:58:60Z", "23:59:61Z", "15:59:60-08:00",
        "00:59:60+01:00", "23:59:60+00:00", "23:59:60-00:00", "12:00:00+24:00",
        "12:00:00-24:00", "12:00:00+23:59", "12:00:00-23:60", "12:00:00+00:60",
        "12:00:00.5Z", "12:00:00.Z", "12:00:00.123456789012345678901234567890Z",
        "12:00:00,5Z", "12:00:00", "12:00:00+0100", "12:00:00+01", "12:00:00+1:00",
        "24:00:00Z", "23:60:00Z", "12:00Z", "1:00:00Z", "12:00:00ZZ", "12:00:00Z ",
        "12:00:00.5+01:00", "00:00:60+00:01", "23:59:60.999Z", "00:29:60+00:30",
        "23:29:60-00:30", "00:00:60-23:59", "23:59:60+23:59", "22:59:60-01:00",
        "12:00:00z", "12:00:00\u{200b}Z", "１２:00:00Z",
        // date-time
        "2024-05-01T10:00:00Z", "2024-05-01t10:00:00z", "2024-05-01 10:00:00Z",
        "2024-05-01T10:00:00.123+02:00", "2024-12-31T23:59:60Z", "2024-12-31T23:59:60+01:00",
        "2025-01-01T00:59:60+01:00", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z",
        "2024-05-01T10:00:00", "2024-05-01TT10:00:00Z", "2024-05-01T", "T10:00:00Z",
        "2024-05-01T10:00:00+24:00", "2024-05-01T10:00:00-00:00", "2024-05-01T10:00:00.Z",
        "2024-05-01T10:00:60Z", "2024-05-01tt10:00:00Z", "2026-01-01T00:00:00Z",
        "t2024-05-01T10:00:00Z",
        // duration
        "P", "PT", "P1W", "P1Y2W", "PT1.5S", "P1Y", "P1M", "P1D", "PT1H", "PT1M", "PT1S",
        "P1Y2M3DT4H5M6S", "P1Y1D", "PT1H1S", "P1W1D", "P1WT1H", "P1DT", "P1Y2M", "P1M2D",
        "PT1H2M", "PT2M3S", "P2Y1M", "P1D1M", "PT1S1M", "P1YT", "p1Y", "P1y", "PT1h",
        "P-1Y", "P1.5Y", "P0D", "PT0S", "P1Y1Y", "PTT1H", "P1DT1H1M1S", "P١Y", "P 1Y",
        "P1Y ", "PT36H", "P0W", "P1W1W", "P1M1W", "P1YT1H1S", "PT1M1H", "PW", "PY",
        // uuid
        "2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2EB8AA08-AA98-11EA-B4AA-73B441D16380",
        "2eb8aa08aa9811eab4aa73b441d16380", "{2eb8aa08-aa98-11ea-b4aa-73b441d16380}",
        "urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08-aa98-11ea-b4aa-73b441d1638",
        "2eb8aa08-aa98-11ea-b4aa-73b441d163800", "2eb8aa0-8aa98-11ea-b4aa-73b441d16380",
        "2eb8aa08-aa98-11ea-b4aa_73b441d16380", "gggggggg-gggg-gggg-gggg-gggggggggggg",
        "00000000-0000-0000-0000-000000000000", "2eB8aA08-aa98-11eA-b4aa-73b441d16380",
        "2eb8aa08-aa98-11ea-b4aa-73b441d1638０", " 2eb8aa08-aa98-11ea-b4aa-73b441d16380",
        // ipv4
        "1.2.3.4", "01.2.3.4", "1.2.3.04", "0.0.0.0", "255.255.255.255", "256.1.1.1",
        "1.2.3", "1.2.3.4.5", "1.2.3.4\n", " 1.2.3.4", "1.2.3.4 ", "1.2.3.-4", "1.2.3.4/8",
        "0x1.2.3.4", "١.2.3.4", "1..3.4", "1.2.3.", "00.0.0.0", "127.000.000.001",
        // ipv6
        "::", "::1", "1::", "::ffff:1.2.3.4", "::ffff:01.2.3.4", "1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:1.2.3.4", "fe80::1%eth0",
        "fe80::1%1", "FE80::ABCD", "fe80::abcd", "12345::", ":::", "1:::2", "1::2::3",
        "::1.2.3.4", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "[::1]", "::1 ", "g::1",
        "0000:0000:0000:0000:0000:0000:0000:0001", "00000::1", "1:2:3:4:5:6:7:1.2.3.4",
        // json-pointer
        "", "/", "//", "/a", "a", "/a~0b", "/a~1b", "/a~2b", "/a~", "/~", "~", "~0",
        "/~01", "/~10", "/a/b/c", "/ ", "/é", "/\u{7f}", "/~~", "/a~0/b~1", "#", "#/a",
        "/foo\"bar", "/\u{0}", "/😀", "/😀😀", "/~0😀", "😀",
        // relative-json-pointer
        "0", "1", "0#", "1#", "00", "01", "0/a", "1/a~1", "12/a", "1#a", "#", "-1", "0/",
        "0##", "1/a~", "10", "٠", "0 ",
        // email (the quick check accepts the plain ones; the rest ask)
        "a@b", "a@b.c", "first.last@example.com", "a.b.c@d.e.f", ".a@b.c", "a.@b.c",
        "a..b@c.d", "a@b..c", "a@.b", "a@b.", "a@-b.c", "a@b-.c", "a@b-c.d", "a@xn--nxasmq6b.gr",
        "a@xn--abc.gr", "a@ab--c.d", "a@abc--d.e", "a@a-b--c.d", "@b.c", "a@", "@", "a@@b.c",
        "a@b@c.d", "\"a@b\"@c.d", "\"\"@c.d", "\"a b\"@c.d", "\"\"@", "Name <a@b.c>", "<a@b.c>",
        "a <a@b.c>", "a@[1.2.3.4]", "a@[IPv6:::1]", "a@[ipv6:::1]", "a@[300.1.1.1]", "é@b.c",
        "a@é.c", "a@b.é", "a b@c.d", "a@b c.d", "a\t@b.c", "!#$%&'*+-/=?^_`{|}~@b.c",
        "a(b)@c.d", "a,b@c.d", "a;b@c.d", "a:b@c.d", "a[b]@c.d", "a\\b@c.d", "a@b_c.d",
        "1@2.3", "a@1.2.3.4", "a@123", "A@B.C", "a@b.c ", " a@b.c", "a@b.c\n",
        // hostname
        "example.com", "a", "a.b", "a-b.c", "-a.b", "a-.b", "a..b", ".a", "a.", "xn--nxasmq6b",
        "xn--abc", "ab--cd", "abc--d", "a_b", "a b", "é.com", "localhost", "1.2.3.4", "123",
        "www.example.com.", "EXAMPLE.COM",
    ];
    let mut out: Vec<String> = fixed.iter().map(|s| (*s).to_owned()).collect();
    // Lengths at the limits: a local part of 64 and 65 bytes, labels of
    // 63 and 64, host names of 253 and 254.
    let label = |n: usize| "a".repeat(n);
    for n in [63, 64, 65] {
        out.push(format!("{}@b.c", label(n)));
        out.push(format!("a@{}.c", label(n)));
        out.push(label(n));
    }
    for total in [252, 253, 254, 255] {
        let mut host = String::new();
        while host.len() + 64 < total {
            host.push_str(&label(63));
            host.push('.');
        }
        host.push_str(&label(total - host.len()));
        out.push(format!("a@{host}"));
        out.push(host);
    }
    out
}

/// Random mutations of the hand-picked strings, from a fixed seed.
fn mutated_strings(seed: u64, count: usize) -> Vec<String> {
    const ALPHABET: &[char] = &[
        '0', '1', '2', '3', '5', '6', '9', ':', '-', '+', '.', 'T', 't', 'Z', 'z', 'P', 'Y', 'M',
        'W', 'D', 'H', 'S', '~', '/', 'a', 'f', 'A', 'F', 'g', '%', '#', ' ', '\n', 'é', '٣', '０',
        '@', '"', '<', '>', '[', ']', 'x', 'n',
    ];
    let base = format_strings();
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut chars: Vec<char> = rng.pick(&base).chars().collect();
        for _ in 0..=rng.below(3) {
            let c = *rng.pick(ALPHABET);
            match rng.below(3) {
                0 if !chars.is_empty() => {
                    let at = rng.below(chars.len());
                    chars[at] = c;
                }
                1 => {
                    let at = rng.below(chars.len() + 1);
                    chars.insert(at, c);
                }
                _ if !chars.is_empty() => {
                    let at = rng.below(chars.len());
                    chars.remove(at);
                }
                _ => chars.push(c),
            }
        }
        out.push(chars.into_iter().collect());
    }
    out
}

/// Every time `HH:MM:SS[.frac](offset)` over edge values.
fn time_grid() -> Vec<String> {
    let mut out = Vec::new();
    for h in ["00", "01", "12", "22", "23", "24"] {
        for m in ["00", "29", "58", "59", "60"] {
            for s in ["00", "59", "60", "61"] {
                for frac in ["", ".5", "."] {
                    for off in [
                        "Z", "z", "+00:00", "-00:00", "+23:59", "-23:59", "+24:00", "+01:00",
                        "-01:00", "+00:01", "-00:01", "+05:30", "-00:30", "+00:30", "",
                    ] {
                        out.push(format!("{h}:{m}:{s}{frac}{off}"));
                    }
                }
            }
        }
    }
    out
}

/// Every date over edge years, months and days.
fn date_grid() -> Vec<String> {
    let mut out = Vec::new();
    for y in [
        "0000", "0004", "1600", "1900", "2000", "2023", "2024", "2100", "9999",
    ] {
        for m in 0..=13 {
            for d in [0, 1, 28, 29, 30, 31, 32] {
                out.push(format!("{y}-{m:02}-{d:02}"));
            }
        }
    }
    out
}

/// Each ASCII byte (and a few non-ASCII characters) at each position of a
/// valid value.
fn byte_swaps(valid: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = valid.chars().collect();
    for at in 0..chars.len() {
        for c in (0x20u8..0x7f)
            .map(char::from)
            .chain(['é', '٣', '０', '\u{0}'])
        {
            let mut v = chars.clone();
            v[at] = c;
            out.push(v.into_iter().collect());
        }
    }
    out
}

/// A sweep's verdicts, with its timing.
fn sweep(what: &str, run: impl FnOnce(&mut Findings)) {
    let started = Instant::now();
    let mut findings = Findings::default();
    run(&mut findings);
    eprintln!(
        "{what}: {} verdicts ({} valid) in {:?}",
        findings.checked,
        findings.valid,
        started.elapsed()
    );
    findings.assert_none(what);
    assert!(
        findings.valid > 0 && findings.valid < findings.checked,
        "{what}: one-sided verdicts"
    );
}

/// Every payload string, JSON-encoded several ways.
fn check_strings(subject: &Subject, strings: &[String], findings: &mut Findings) {
    for text in strings {
        for payload in encodings(text) {
            subject.check(&payload, findings);
        }
    }
}

#[test]
fn formats_on_hand_picked_strings_agree_in_every_draft() {
    sweep("hand-picked formats", |findings| {
        let strings = format_strings();
        for draft in DRAFTS {
            for format in FORMATS {
                let subject = Subject::new(with_draft(draft, json!({"format": format}))).unwrap();
                check_strings(&subject, &strings, findings);
                for other in [
                    "1",
                    "null",
                    "[\"1.2.3.4\"]",
                    "{\"a\":\"x\"}",
                    "true",
                    "1.5",
                    "\"\\ud800\"",
                    "\"\\udc00\"",
                    "\"\\u12\"",
                    "\"\\x\"",
                    "\"\t\"",
                    "\"1.2.3.4\\u0000\"",
                    "\"2024-01-01",
                    "\"\\u0032024-01-01\"",
                    "\"\\u0032\\u0030\\u0032\\u0034-01-01\"",
                    "\"\\/a~1b\"",
                    "\"\\/a~2\"",
                    "\"\\u002fa\"",
                    "\"::\\u0066\"",
                    "\"\\u003a:\"",
                ] {
                    subject.check(other, findings);
                }
            }
        }
    });
}

#[test]
fn formats_on_grids_agree() {
    sweep("format grids", |findings| {
        let times = time_grid();
        let dates = date_grid();
        let date_times: Vec<String> = dates
            .iter()
            .step_by(7)
            .flat_map(|d| {
                [
                    "23:59:60Z",
                    "00:59:60+01:00",
                    "12:00:00.5-00:00",
                    "23:59:60z",
                ]
                .map(|t| format!("{d}T{t}"))
            })
            .chain(times.iter().step_by(3).map(|t| format!("2024-12-31t{t}")))
            .collect();
        for draft in [Some(DRAFT4), Some(DRAFT2020)] {
            let time = Subject::new(with_draft(draft, json!({"format": "time"}))).unwrap();
            check_strings(&time, &times, findings);
            let date = Subject::new(with_draft(draft, json!({"format": "date"}))).unwrap();
            check_strings(&date, &dates, findings);
            let dt = Subject::new(with_draft(draft, json!({"format": "date-time"}))).unwrap();
            check_strings(&dt, &date_times, findings);
        }
    });
}

#[test]
fn formats_on_every_byte_at_every_position_agree() {
    sweep("byte swaps", |findings| {
        let cases = [
            ("date", "2024-02-29"),
            ("time", "23:59:60+00:00"),
            ("date-time", "2024-02-29T12:00:00.5Z"),
            ("duration", "P1Y2M3DT4H5M6S"),
            ("duration", "P4W"),
            ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380"),
            ("ipv4", "192.168.0.1"),
            ("ipv6", "fe80::1:2.3.4.5"),
            ("json-pointer", "/a~1b/~0"),
            ("relative-json-pointer", "10/a~0"),
            ("email", "a.b-c@d-e.f9"),
            ("email", "x@[1.2.3.4]"),
            ("hostname", "ab-c.d9.e"),
        ];
        for (format, valid) in cases {
            let subject =
                Subject::new(with_draft(Some(DRAFT2020), json!({"format": format}))).unwrap();
            let strings = byte_swaps(valid);
            for text in &strings {
                subject.check(&serde_json::to_string(text).unwrap(), findings);
            }
        }
    });
}

#[test]
fn formats_on_mutated_strings_agree() {
    sweep("mutated formats", |findings| {
        let strings = mutated_strings(0x5eed_f0f0_1234_5678, 1500);
        for format in FORMATS {
            let subject =
                Subject::new(with_draft(Some(DRAFT2019), json!({"format": format}))).unwrap();
            check_strings(&subject, &strings, findings);
        }
    });
}

#[test]
fn formats_beside_other_string_keywords_agree() {
    sweep("formats beside keywords", |findings| {
        let strings = format_strings();
        let neighbours = [
            json!({"pattern": "^[0-9]"}),
            json!({"pattern": "0"}),
            json!({"minLength": 10}),
            json!({"maxLength": 10}),
            json!({"minLength": 9, "maxLength": 10, "pattern": "-"}),
            json!({"enum": ["2024-02-29", "2023-02-29", "1.2.3.4", "01.2.3.4", "::", "/a~2", "P1W", 1]}),
            json!({"const": "23:59:60Z"}),
            json!({"type": "string"}),
            json!({"type": ["string", "integer"], "minimum": 3}),
            json!({"allOf": [{"format": "ipv4"}]}),
            json!({"anyOf": [{"format": "ipv6"}, {"format": "date"}]}),
            json!({"not": {"format": "time"}}),
            json!({"oneOf": [{"format": "uuid"}, {"pattern": "^2"}]}),
            json!({"minLength": 10.0}),
            json!({"maxLength": 2}),
            json!({"minLength": 3, "maxLength": 3}),
            json!({"enum": ["\u{0032}026-01-01", "/"]}),
        ];
        for draft in [Some(DRAFT7), Some(DRAFT2020)] {
            for format in [
                "date",
                "date-time",
                "time",
                "uuid",
                "ipv4",
                "ipv6",
                "duration",
                "json-pointer",
            ] {
                for neighbour in &neighbours {
                    let mut keywords = neighbour.clone();
                    keywords["format"] = json!(format);
                    let Some(subject) = Subject::new(with_draft(draft, keywords)) else {
                        continue;
                    };
                    check_strings(&subject, &strings, findings);
                }
            }
        }
    });
}

#[test]
fn formats_in_nested_places_agree() {
    sweep("nested formats", |findings| {
        let strings: Vec<String> = format_strings().into_iter().step_by(3).collect();
        for draft in [Some(DRAFT4), Some(DRAFT7), Some(DRAFT2019), Some(DRAFT2020)] {
            for format in [
                "date",
                "time",
                "date-time",
                "ipv4",
                "ipv6",
                "uuid",
                "json-pointer",
                "duration",
            ] {
                let f = json!({"format": format});
                let places = [
                    json!({"properties": {"a": f}}),
                    json!({"additionalProperties": f}),
                    json!({"patternProperties": {"^a": f}}),
                    json!({"items": f}),
                    json!({"propertyNames": f}),
                    json!({"definitions": {"d": f}, "properties": {"a": {"$ref": "#/definitions/d"}}}),
                    json!({"$defs": {"d": f}, "items": {"$ref": "#/$defs/d"}}),
                ];
                for place in places {
                    let Some(subject) = Subject::new(with_draft(draft, place)) else {
                        continue;
                    };
                    for text in &strings {
                        for body in encodings(text) {
                            subject.check(&format!("{{\"a\":{body}}}"), findings);
                            subject.check(&format!("[{body},\"x\"]"), findings);
                            subject.check(&format!("{{{body}:1}}"), findings);
                            subject.check(&format!("{{\"a\":\"x\",\"a\":{body}}}"), findings);
                            subject
                                .check(&format!("{{\"a\":{body},\"a\":\"2024-01-01\"}}"), findings);
                        }
                    }
                }
            }
        }
    });
}

/// Scalars and compounds whose JSON Schema equality differs from their
/// bytes'.
#[rustfmt::skip]
const ITEMS: &[&str] = &[
    "1", "1.0", "1e0", "10e-1", "1E0", "0.1e1", "-0", "0", "0.0", "-0.0", "0e5", "-0e-5",
    "1e-400", "-1e-400", "0.3", "0.30000000000000004", "0.1", "1e308", "1.7976931348623157e308",
    "18446744073709551616", "18446744073709551615", "1.8446744073709552e19", "18446744073709551615.0",
    "9007199254740993", "9007199254740992", "9007199254740992.0", "9007199254740993.0",
    "-9223372036854775808", "-9223372036854775809", "-9.223372036854775808e18",
    "100000000000000000000000", "1e23", "123456789012345678", "123456789012345678.0",
    "0.1000000000000000055511151231257827", "2.5", "2.50", "25e-1", "-1", "-1.0",
    "\"a\"", "\"\\u0061\"", "\"\\u0041\"", "\"A\"", "\"/\"", "\"\\/\"", "\"\"", "\"1\"",
    "\"é\"", "\"\\u00e9\"", "\"e\\u0301\"", "\"😀\"", "\"\\ud83d\\ude00\"", "\"\\n\"", "\"\\u000a\"",
    "true", "false", "null", "[]", "{}", "[1]", "[1.0]", "[\"a\"]", "[\"\\u0061\"]",
    "{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}", "{\"a\":1,\"a\":2}", "{\"a\":2}", "{\"a\":1}",
    "{\"\\u0061\":2}", "{\"a\":1.0,\"b\":2e0}", "[[1,2],[2,1]]", "[{\"a\":-0}]", "[{\"a\":0}]",
    "1e309", "-1e400", "1E+2", "1e+2", "100", "0.000001e8", "123456789012345678901",
    "1234567890123456789", "12345678901234567890", "12345678901234567890.0",
    "-123456789012345678", "-1234567890123456789", "-1234567890123456789.0",
    "1.0000000000000002", "1.00000000000000011", "0.123456789012345", "0.1234567890123450",
    "0.12345678901234567", "0.12345678901234566", "-0.000000000000001", "-1e-15",
    "{\"a\":1,\"b\":2,\"a\":1}", "{\"b\":2,\"a\":3,\"a\":1}", "[1,[1.0]]", "[1e0,[1]]",
    "\"\\ud800\"", "\"\\x\"", "01", "1.", ".5", "+1", "\"\u{0}\"", "\"\\u0000\"",
];

fn unique_schemas() -> Vec<Value> {
    let mut out = Vec::new();
    for draft in DRAFTS {
        out.push(with_draft(draft, json!({"uniqueItems": true})));
    }
    out.extend([
        with_draft(Some(DRAFT2020), json!({"uniqueItems": false})),
        with_draft(
            Some(DRAFT2020),
            json!({"type": "array", "uniqueItems": true, "maxItems": 40}),
        ),
        with_draft(Some(DRAFT2020), json!({"items": {"uniqueItems": true}})),
        with_draft(
            Some(DRAFT2020),
            json!({"prefixItems": [{"uniqueItems": true}], "uniqueItems": true}),
        ),
        with_draft(
            Some(DRAFT2020),
            json!({"contains": {"uniqueItems": true, "type": "array"}}),
        ),
        with_draft(
            Some(DRAFT2020),
            json!({"uniqueItems": true, "contains": {"const": 1}}),
        ),
        with_draft(
            Some(DRAFT2020),
            json!({"uniqueItems": true, "items": {"not": {"type": "object"}}}),
        ),
        with_draft(
            Some(DRAFT4),
            json!({"items": [{}, {}], "additionalItems": {}, "uniqueItems": true}),
        ),
        with_draft(
            Some(DRAFT7),
            json!({"properties": {"a": {"uniqueItems": true}}}),
        ),
        with_draft(
            Some(DRAFT2019),
            json!({"uniqueItems": true, "unevaluatedItems": true}),
        ),
        with_draft(
            Some(DRAFT2020),
            json!({"anyOf": [{"uniqueItems": true}, {"maxItems": 1}]}),
        ),
    ]);
    out
}

#[test]
fn unique_items_on_pairs_agree() {
    sweep("uniqueItems pairs", |findings| {
        let filler: Vec<String> = (1000..1017).map(|n| n.to_string()).collect();
        let filler = filler.join(",");
        for schema in unique_schemas() {
            let subject = Subject::new(schema).unwrap();
            // Each unordered pair once (equality is symmetric; the
            // nested form holds both orders).
            for (i, a) in ITEMS.iter().enumerate() {
                for b in &ITEMS[i..] {
                    subject.check(&format!("[{a},{b}]"), findings);
                    subject.check(&format!("[{b},{filler},{a}]"), findings);
                    subject.check(&format!("{{\"a\":[{a}, {b}]}}"), findings);
                    subject.check(&format!("[[{a},{b}],[{b},{a}]]"), findings);
                }
            }
        }
    });
}

#[test]
fn unique_items_on_generated_arrays_agree() {
    sweep("uniqueItems generated", |findings| {
        let mut rng = Rng(0x0123_4567_89ab_cdef);
        let arrays: Vec<String> = (0..1500)
            .map(|_| {
                let n = rng.below(22);
                let items: Vec<&str> = (0..n).map(|_| *rng.pick(ITEMS)).collect();
                let sep = if rng.below(2) == 0 { "," } else { " ,\n " };
                format!("[{}]", items.join(sep))
            })
            .collect();
        let mut arrays = arrays;
        let long: Vec<String> = (0..300).map(|n| format!("\"k{n}\"")).collect();
        let long = long.join(",");
        for tail in ITEMS {
            arrays.push(format!("[{long},{tail},\"k299\"]"));
            arrays.push(format!("[{tail},{long},{tail}]"));
            arrays.push(format!("[{long},\"\\u006b7\",{tail}]"));
        }
        for schema in unique_schemas() {
            let subject = Subject::new(schema).unwrap();
            for array in &arrays {
                subject.check(array, findings);
            }
        }
    });
}

/// Keys that are equal or not once unescaped.
#[rustfmt::skip]
const KEYS: &[&str] = &["\"a\"", "\"\\u0061\"", "\"b\"", "\"/\"", "\"\\/\"", "\"\"", "\"é\"", "\"\\u00e9\"", "\"a \""];

#[test]
fn min_and_max_properties_agree() {
    sweep("min/maxProperties", |findings| {
        let mut schemas = Vec::new();
        for n in 0..4 {
            for draft in [Some(DRAFT4), Some(DRAFT2020)] {
                schemas.push(with_draft(draft, json!({"minProperties": n})));
                schemas.push(with_draft(draft, json!({"maxProperties": n})));
                schemas.push(with_draft(
                    draft,
                    json!({"minProperties": n, "maxProperties": n}),
                ));
            }
            schemas.push(with_draft(
                Some(DRAFT2020),
                json!({"items": {"minProperties": n}}),
            ));
            schemas.push(with_draft(
                Some(DRAFT2020),
                json!({"maxProperties": n, "properties": {"a": {"maximum": 1}}}),
            ));
            schemas.push(with_draft(
                Some(DRAFT2020),
                json!({"minProperties": n, "additionalProperties": {"type": "integer"}}),
            ));
        }
        let mut rng = Rng(0xfeed_beef_cafe_0042);
        let mut objects: Vec<String> = Vec::new();
        for _ in 0..600 {
            let long = rng.below(8) == 0;
            let n = rng.below(if long { 20 } else { 5 });
            let members: Vec<String> = (0..n)
                .map(|i| format!("{}:{}", rng.pick(KEYS), i % 3))
                .collect();
            objects.push(format!("{{{}}}", members.join(",")));
        }
        for a in KEYS {
            for b in KEYS {
                objects.push(format!("{{{a}:1,{b}:2}}"));
                objects.push(format!("{{{a}:1,{b}:2,{a}:3}}"));
            }
        }
        schemas.push(with_draft(Some(DRAFT2020), json!({"minProperties": 2.0})));
        schemas.push(with_draft(Some(DRAFT2020), json!({"maxProperties": 1.0})));
        schemas.push(with_draft(
            Some(DRAFT4),
            json!({"minProperties": 2.0, "maxProperties": 2.0}),
        ));
        for schema in schemas {
            let Some(subject) = Subject::new(schema) else {
                continue;
            };
            for object in &objects {
                subject.check(object, findings);
                subject.check(&format!("[{object}]"), findings);
            }
        }
    });
}

/// Formats deciding applicators and the annotations `unevaluated*` read:
/// a branch failing on a format must not mark its members evaluated.
#[test]
fn formats_deciding_branches_and_annotations_agree() {
    sweep("formats in branches", |findings| {
        let schemas = [
            json!({"anyOf": [{"properties": {"a": {"format": "date"}}}, {"properties": {"b": true}}], "unevaluatedProperties": false}),
            json!({"oneOf": [{"properties": {"a": {"format": "date"}}, "required": ["a"]}, {"properties": {"a": {"format": "date-time"}}}], "unevaluatedProperties": false}),
            json!({"oneOf": [{"format": "ipv4"}, {"pattern": "^1"}]}),
            json!({"oneOf": [{"format": "date"}, {"format": "date-time"}, {"format": "time"}]}),
            json!({"if": {"format": "date"}, "then": {"maxLength": 10}, "else": {"format": "time"}}),
            json!({"contains": {"format": "uuid"}, "minContains": 2, "maxContains": 3}),
            json!({"contains": {"format": "date"}, "unevaluatedItems": false}),
            json!({"anyOf": [{"prefixItems": [{"format": "date"}]}, {"prefixItems": [true, {"format": "ipv6"}]}], "unevaluatedItems": false}),
            json!({"dependentSchemas": {"a": {"properties": {"b": {"format": "ipv6"}}}}}),
            json!({"patternProperties": {"^d": {"format": "date"}}, "additionalProperties": {"format": "time"}}),
            json!({"if": {"properties": {"a": {"format": "date"}}}, "then": {"required": ["b"]}, "else": {"required": ["d1"]}}),
            json!({"anyOf": [{"uniqueItems": true, "items": {"format": "ipv4"}}, {"items": {"format": "date"}}], "unevaluatedItems": false}),
            json!({"propertyNames": {"format": "json-pointer"}, "minProperties": 2}),
            json!({"$ref": "#/$defs/a", "$defs": {"a": {"format": "date-time"}}, "unevaluatedProperties": false}),
            json!({"not": {"anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}}),
            json!({"items": {"type": ["string", "array"], "format": "date", "uniqueItems": true}, "uniqueItems": true}),
        ];
        let mut samples: Vec<String> = format_strings().into_iter().step_by(5).collect();
        samples.extend(
            [
                "2024-02-29",
                "12:00:00Z",
                "2024-02-29T12:00:00Z",
                "1.2.3.4",
                "::1",
                "2eb8aa08-aa98-11ea-b4aa-73b441d16380",
                "/a",
                "P1D",
                "10.0.0.1",
            ]
            .map(String::from),
        );
        let mut rng = Rng(0xabcd_ef01_2345_6789);
        let mut payloads = Vec::new();
        for _ in 0..700 {
            let mut value = || {
                let text = rng.pick(&samples).clone();
                let all = encodings(&text);
                all[rng.below(all.len())].clone()
            };
            let (v1, v2, v3) = (value(), value(), value());
            payloads.push(format!("{{\"a\":{v1},\"b\":{v2}}}"));
            payloads.push(format!("{{\"a\":{v1}}}"));
            payloads.push(format!("{{\"d1\":{v1},\"z\":{v2},\"b\":{v3}}}"));
            payloads.push(format!("{{{v1}:1,{v2}:2}}"));
            payloads.push(format!("[{v1},{v2},{v3}]"));
            payloads.push(format!("[{v1},{v1},{v2}]"));
            payloads.push(format!("[{v1},{v2}]"));
            payloads.push(v1);
        }
        for draft in [DRAFT2019, DRAFT2020] {
            for schema in &schemas {
                let Some(subject) = Subject::new(with_draft(Some(draft), schema.clone())) else {
                    continue;
                };
                for payload in &payloads {
                    subject.check(payload, findings);
                }
            }
        }
    });
}

/// Bytes that are not JSON (invalid UTF-8, a BOM, trailing bytes) where a
/// byte-level check alone would pass them.
#[test]
fn byte_level_checks_on_payloads_that_are_not_json_agree() {
    sweep("not JSON", |findings| {
        let bad: &[&[u8]] = &[
            b"\xff",
            b"\xc0\xaf",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xe2\x82",
            b"\x80",
            b"\xf0\x9f\x98",
            b"\xc3",
            b"\x00",
            b"\x1f",
            b"\t",
            b"\n",
            b"\x7f",
            b"\xc2\x80",
        ];
        let mut payloads: Vec<Vec<u8>> = Vec::new();
        for b in bad {
            let b = *b;
            for (head, tail) in [
                (&b"\"/"[..], &b"\""[..]),
                (b"\"", b"\""),
                (b"[\"/", b"\",\"/\"]"),
                (b"[\"a", b"\",\"b\",1]"),
                (b"{\"", b"\":1,\"b\":2}"),
                (b"{\"a\":1,\"a", b"\":2}"),
                (b"\"P1D", b"\""),
                (b"\"1.2.3.4", b"\""),
            ] {
                payloads.push([head, b, tail].concat());
            }
        }
        for valid in [
            &b"\"/a\""[..],
            b"\"2024-01-01\"",
            b"[1,1.0]",
            b"[1,2]",
            b"{\"a\":1,\"a\":2}",
            b"{\"a\":1,\"b\":2}",
            b"\"::\"",
        ] {
            payloads.push([&b"\xef\xbb\xbf"[..], valid].concat());
            payloads.push([valid, b" x"].concat());
            payloads.push([valid, b" 1"].concat());
            payloads.push([valid, b" \n\t"].concat());
            payloads.push([b"\n ", valid].concat());
        }
        let schemas = [
            json!({"format": "json-pointer"}),
            json!({"format": "relative-json-pointer"}),
            json!({"format": "duration"}),
            json!({"format": "ipv4"}),
            json!({"format": "date", "minLength": 1}),
            json!({"uniqueItems": true}),
            json!({"items": {"format": "json-pointer"}, "uniqueItems": true}),
            json!({"minProperties": 2}),
            json!({"maxProperties": 1}),
            json!({"propertyNames": {"format": "json-pointer"}}),
            json!({"enum": ["/a", "/\u{80}"], "format": "json-pointer"}),
        ];
        for schema in schemas {
            let subject = Subject::new(with_draft(Some(DRAFT2020), schema)).unwrap();
            for payload in &payloads {
                subject.check_bytes(payload, findings);
            }
        }
    });
}
