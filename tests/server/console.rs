//! The web console at `/ui/` (`server::console`): its pages over a real
//! server, the store's hostile text escaped, lists paged on 10,000
//! versions, the compatibility form answered by the compatibility test's
//! code, `--no-ui`. (The same flows in Chromium: `console_browser.rs`.)
#![cfg(all(feature = "server", feature = "json"))]

use crate::common::data;
use crate::server::{self, call, confluent, get, Running};
use dataschema::server::Config;
use dataschema::store::Store;
use dataschema::{MemoryStore, Schema, Urn};

/// The rows of a page's tables (`<th scope="row">` opens each).
fn rows(html: &str) -> usize {
    html.matches("<tr><th scope=\"row\">").count()
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(data(&format!("console/{name}"))).unwrap()
}

/// Registers `text` under `subject` through the Confluent API.
fn register(running: &Running, subject: &str, schema_type: &str, text: &str) -> u64 {
    let path = format!("/subjects/{}/versions", encode(subject));
    let answer = confluent(
        "POST",
        &running.url(&path),
        &serde_json::json!({"schemaType": schema_type, "schema": text}),
    );
    assert_eq!(answer.status, 200, "{subject}: {}", answer.text());
    answer.json()["id"].as_u64().unwrap()
}

fn set_compatibility(running: &Running, subject: &str, level: &str) {
    let path = format!("/config/{}", encode(subject));
    let answer = confluent(
        "PUT",
        &running.url(&path),
        &serde_json::json!({"compatibility": level}),
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn query(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// `text` as the console writes it in HTML.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A version 1 and a version 2 that breaks it under BACKWARD
/// (registered under NONE, then BACKWARD set back).
fn two_versions(running: &Running, subject: &str, schema_type: &str, v1: &str, v2: &str) {
    register(running, subject, schema_type, &fixture(v1));
    set_compatibility(running, subject, "NONE");
    register(running, subject, schema_type, &fixture(v2));
    set_compatibility(running, subject, "BACKWARD");
}

/// A subject name and a schema body full of markup are written as text on
/// every page that shows them: no element of theirs reaches the page.
#[test]
fn hostile_subject_names_and_schema_text_are_escaped() {
    let running = server::start();
    let subject = "<script>alert(\"subject\")</script><img src=x onerror=alert(3)>";
    let body = fixture("hostile.json");
    let id = register(&running, subject, "JSON", &body);
    // A second version, so the diff page shows both.
    let second = body.replace("\"type\": \"string\"", "\"type\": \"integer\"");
    set_compatibility(&running, subject, "NONE");
    register(&running, subject, "JSON", &second);
    let name = dataschema::subject::name_of(subject).unwrap();
    let pages = [
        "/ui/".to_owned(),
        format!("/ui/?{}", query(&[("q", "<script>")])),
        format!("/ui/subject?{}", query(&[("ns", "acme"), ("name", &name)])),
        format!(
            "/ui/version?{}",
            query(&[("ns", "acme"), ("name", &name), ("v", "1")])
        ),
        format!(
            "/ui/diff?{}",
            query(&[("ns", "acme"), ("name", &name), ("from", "1"), ("to", "2")])
        ),
        format!("/ui/lookup?q={id}"),
        format!("/ui/check?{}", query(&[("subject", subject)])),
        format!("/ui/lookup?{}", query(&[("q", "<script>x</script>")])),
    ];
    for path in &pages {
        let answer = get(&running.url(path));
        let html = answer.text();
        assert!(
            answer.status == 200 || answer.status == 404,
            "{path}: {}",
            answer.status
        );
        assert_eq!(
            answer.header("content-type"),
            Some("text/html; charset=utf-8")
        );
        assert!(answer
            .header("content-security-policy")
            .is_some_and(|csp| csp.starts_with("default-src 'none'")));
        // Every element the store's text carries stays text: this
        // console writes no script, image or bold element of its own.
        for markup in ["<script", "<img", "<b ", "<B "] {
            assert!(
                !html.contains(markup),
                "{path}: {markup} reached the page as markup:\n{html}"
            );
        }
    }
    // The text is there, escaped.
    let list = get(&running.url("/ui/")).text();
    assert!(list.contains(&escaped(subject)), "{list}");
    let version = get(&running.url(&pages[3])).text();
    assert!(
        version.contains("&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(&#39;body&#39;)"),
        "{version}"
    );
    // The form's textarea and input hold the text as text too.
    let form = call(
        "POST",
        &running.url("/ui/check"),
        &[("Content-Type", "application/x-www-form-urlencoded")],
        query(&[
            ("subject", subject),
            ("schemaType", "JSON"),
            ("schema", "</textarea><script>alert(4)</script>"),
        ])
        .as_bytes(),
    );
    let html = form.text();
    assert!(!html.contains("<script"), "{html}");
    assert!(html.contains("&lt;/textarea&gt;&lt;script&gt;"), "{html}");
}

/// 10,000 versions put in the store directly (5,000 names of one version,
/// one name of 5,000): the names list and the name's versions answer one
/// page of rows each, with the way to the next page and the last.
#[test]
fn lists_of_ten_thousand_versions_are_paged() {
    let store = MemoryStore::new();
    let schema = "{\"type\": \"object\"}";
    for n in 0..5_000 {
        let urn = Urn::new("acme", &format!("n{n:05}"), 1).unwrap();
        store.put(&Schema::json(urn, schema)).unwrap();
    }
    for version in 1..=5_000 {
        let urn = Urn::new("acme", "big", version).unwrap();
        store
            .put(&Schema::json(urn, format!("{{\"title\": \"v{version}\"}}")))
            .unwrap();
    }
    let running = server::start_on(store, server::config());
    let first = get(&running.url("/ui/")).text();
    assert_eq!(rows(&first), 50, "{first}");
    assert!(first.contains("5001 names match"), "{first}");
    assert!(first.contains("rel=\"next\""));
    assert!(first.contains(">big</a>"), "the first name is big");
    let last = get(&running.url("/ui/?page=101")).text();
    assert_eq!(rows(&last), 1, "{last}");
    assert!(!last.contains("rel=\"next\""));
    assert!(last.contains("rel=\"prev\""));
    let searched = get(&running.url("/ui/?q=n0499")).text();
    assert_eq!(rows(&searched), 10, "{searched}");
    let versions = get(&running.url("/ui/subject?ns=acme&name=big")).text();
    assert_eq!(rows(&versions), 50);
    assert!(versions.contains(">v5000</a>"), "newest first");
    let oldest = get(&running.url("/ui/subject?ns=acme&name=big&page=100")).text();
    assert_eq!(rows(&oldest), 50);
    assert!(oldest.contains(">v1</a>") && !oldest.contains("rel=\"next\""));
    let beyond = get(&running.url("/ui/subject?ns=acme&name=big&page=101")).text();
    assert_eq!(rows(&beyond), 0);
    // A language filter reads latest versions only until its page is full.
    let json = get(&running.url("/ui/?language=json")).text();
    assert_eq!(rows(&json), 50);
    assert!(json.contains("rel=\"next\""));
    let avro = get(&running.url("/ui/?language=avro")).text();
    assert_eq!(rows(&avro), 0);
}

/// The diff between two versions marks each change breaking or safe under
/// the name's mode, for Avro, JSON Schema and protobuf, with the words
/// the compatibility engine's report prints.
#[test]
fn diffs_mark_each_change_under_the_names_mode() {
    let running = server::start();
    two_versions(
        &running,
        "orders-value",
        "AVRO",
        "orders_v1.avsc",
        "orders_v2.avsc",
    );
    two_versions(
        &running,
        "customer-value",
        "JSON",
        "customer_v1.json",
        "customer_v2.json",
    );
    #[cfg(feature = "proto-text")]
    two_versions(
        &running,
        "payment-value",
        "PROTOBUF",
        "payment_v1.proto",
        "payment_v2.proto",
    );
    let mut subjects = vec!["orders-value", "customer-value"];
    if cfg!(feature = "proto-text") {
        subjects.push("payment-value");
    }
    for subject in subjects {
        let path = format!(
            "/ui/diff?{}",
            query(&[("name", subject), ("from", "1"), ("to", "2")])
        );
        let answer = get(&running.url(&path));
        let html = answer.text();
        assert_eq!(answer.status, 200, "{subject}: {html}");
        assert!(
            html.contains("Compatibility in effect: <strong>BACKWARD"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"mark breaking\">breaking</span>"),
            "{subject}: {html}"
        );
        assert!(html.contains("Against v1: breaks"), "{subject}: {html}");
        // The report the registry makes, as the command line prints it.
        let registry = &running.registry;
        let name = dataschema::subject::name_of(subject).unwrap();
        let v1 = registry
            .resolve(&Urn::new("acme", &name, 1).unwrap())
            .unwrap();
        let v2 = registry
            .resolve(&Urn::new("acme", &name, 2).unwrap())
            .unwrap();
        let report = registry
            .check_compatibility(dataschema::Compatibility::Backward, &v2, &[v1])
            .unwrap();
        assert!(!report.is_compatible());
        for change in report.versions()[0].changes() {
            assert!(
                html.contains(&escaped(change.kind().name())),
                "{subject}: {} missing",
                change.kind().name()
            );
        }
        assert!(
            html.contains(&escaped(&report.to_string())),
            "{subject}: {html}"
        );
        // Under NONE every change is safe.
        set_compatibility(&running, subject, "NONE");
        let none = get(&running.url(&path)).text();
        assert!(!none.contains("mark breaking"), "{none}");
        assert!(none.contains("mark safe"), "{none}");
        set_compatibility(&running, subject, "BACKWARD");
    }
}

/// "Would this break anyone?": the form's candidate checked against the
/// versions the mode covers, by the compatibility test's code; nothing
/// is stored, and a refusal is the API's own message.
#[test]
fn the_check_form_reports_and_stores_nothing() {
    let running = server::start();
    register(&running, "orders-value", "AVRO", &fixture("orders_v1.avsc"));
    let post = |pairs: &[(&str, &str)]| {
        call(
            "POST",
            &running.url("/ui/check"),
            &[("Content-Type", "application/x-www-form-urlencoded")],
            query(pairs).as_bytes(),
        )
    };
    let breaking = fixture("orders_v2.avsc");
    let answer = post(&[
        ("subject", "orders-value"),
        ("schemaType", "AVRO"),
        ("schema", &breaking),
    ]);
    let html = answer.text();
    assert_eq!(answer.status, 200, "{html}");
    assert!(
        html.contains("Incompatible: this would break readers"),
        "{html}"
    );
    assert!(html.contains("mark breaking"), "{html}");
    // The same report the Confluent route makes.
    let api = confluent(
        "POST",
        &running.url("/compatibility/subjects/orders-value/versions?verbose=true"),
        &serde_json::json!({"schema": breaking}),
    );
    assert_eq!(api.json()["is_compatible"], false);
    let compatible = post(&[
        ("subject", "orders-value"),
        ("schemaType", "AVRO"),
        ("schema", &fixture("orders_v1.avsc")),
    ]);
    assert!(compatible.text().contains("Compatible: this breaks no one"));
    // Nothing was stored.
    assert_eq!(
        running
            .registry
            .versions_in("acme", "orders-value")
            .unwrap(),
        vec![1]
    );
    // A schema that is no Avro: the API's refusal, its status.
    let bad = post(&[
        ("subject", "orders-value"),
        ("schemaType", "AVRO"),
        ("schema", "{\"type\": \"nope\"}"),
    ]);
    assert_eq!(bad.status, 422, "{}", bad.text());
    assert!(
        bad.text().contains("Not checked (error 42201)"),
        "{}",
        bad.text()
    );
    // The page's form posts as a browser does; GET shows it.
    let form = get(&running.url("/ui/check?subject=orders-value")).text();
    assert!(form.contains("<form method=\"post\" action=\"/ui/check\">"));
    assert!(form.contains("value=\"orders-value\""));
}

/// The form's references (name, subject, version rows), metadata and
/// rule set go with the candidate: a `.proto` that imports another
/// subject's file compiles with its reference row, and is refused as the
/// API refuses it without. Each mistake in the form is named beside its
/// field (`aria-invalid`, `aria-describedby`) and listed at the top, and
/// nothing is checked.
#[cfg(feature = "proto-text")]
#[test]
fn the_check_form_takes_references_metadata_and_rules() {
    let running = server::start();
    register(&running, "money-value", "PROTOBUF", &fixture("money.proto"));
    two_versions(
        &running,
        "payment-value",
        "PROTOBUF",
        "payment_v1.proto",
        "payment_v2.proto",
    );
    let post = |pairs: &[(&str, &str)]| {
        call(
            "POST",
            &running.url("/ui/check"),
            &[("Content-Type", "application/x-www-form-urlencoded")],
            query(pairs).as_bytes(),
        )
    };
    let candidate = fixture("payment_with_money.proto");
    let base = [
        ("subject", "payment-value"),
        ("schemaType", "PROTOBUF"),
        ("schema", candidate.as_str()),
    ];
    let with = |extra: &[(&'static str, &str)]| {
        let mut pairs: Vec<(&str, &str)> = base.to_vec();
        pairs.extend_from_slice(extra);
        post(&pairs)
    };
    // With its reference, metadata and a rule set: checked, compatible.
    let answer = with(&[
        ("refName1", "shop/money.proto"),
        ("refSubject1", "money-value"),
        ("refVersion1", "1"),
        ("refName2", ""),
        ("refSubject2", ""),
        ("refVersion2", ""),
        ("metadata", r#"{"properties": {"owner": "payments"}}"#),
        (
            "ruleSet",
            r#"{"domainRules": [{"name": "positive", "kind": "CONDITION", "type": "CEL", "mode": "WRITE", "expr": "message.id != ''"}]}"#,
        ),
    ]);
    let html = answer.text();
    assert_eq!(answer.status, 200, "{html}");
    assert!(html.contains("Compatible: this breaks no one"), "{html}");
    // The form comes back filled in, open, with spare rows.
    assert!(html.contains("<details open>"), "{html}");
    assert!(html.contains("value=\"shop/money.proto\""), "{html}");
    assert!(html.contains("id=\"refName3\""), "{html}");
    // The same check through the API agrees.
    let api = confluent(
        "POST",
        &running.url("/compatibility/subjects/payment-value/versions"),
        &serde_json::json!({
            "schemaType": "PROTOBUF",
            "schema": candidate,
            "references": [{"name": "shop/money.proto", "subject": "money-value", "version": 1}],
        }),
    );
    assert_eq!(api.json()["is_compatible"], true, "{}", api.text());
    // "latest" (or an empty version) is the subject's latest.
    let latest = with(&[
        ("refName1", "shop/money.proto"),
        ("refSubject1", "money-value"),
        ("refVersion1", "latest"),
    ]);
    assert!(
        latest.text().contains("Compatible: this breaks no one"),
        "{}",
        latest.text()
    );
    // Without the reference: the API's refusal, its status.
    let without = with(&[]);
    assert_eq!(without.status, 422, "{}", without.text());
    assert!(
        without.text().contains("Not checked (error 42201)"),
        "{}",
        without.text()
    );
    // A reference to a version nobody holds: the API's refusal.
    let nowhere = with(&[
        ("refName1", "shop/money.proto"),
        ("refSubject1", "money-value"),
        ("refVersion1", "7"),
    ]);
    assert_eq!(nowhere.status, 422, "{}", nowhere.text());
    assert!(
        nowhere.text().contains("Not checked (error 42201)"),
        "{}",
        nowhere.text()
    );
    // Mistakes in the form: each named beside its field and listed.
    let wrong = with(&[
        ("refName1", "shop/money.proto"),
        ("refVersion1", "first"),
        ("metadata", "{\"properties\": "),
        ("ruleSet", r#"{"domainRules": [{"kind": "CONDITION"}]}"#),
    ]);
    let html = wrong.text();
    assert_eq!(wrong.status, 422, "{html}");
    assert!(!html.contains("Compatible"), "nothing was checked: {html}");
    assert!(
        html.contains("<div class=\"error\" role=\"alert\" id=\"form-errors\">"),
        "{html}"
    );
    for (field, words) in [
        ("refSubject1", "Reference 1: give the subject it names."),
        (
            "refVersion1",
            "Reference 1: &quot;first&quot; is not a version",
        ),
        ("metadata", "Metadata is not JSON: EOF while parsing"),
        ("ruleSet", "Rule set: "),
    ] {
        assert!(
            html.contains(&format!("<li><a href=\"#{field}\">{words}")),
            "{field}: {html}"
        );
        assert!(
            html.contains(&format!("id=\"{field}\" name=\"{field}\"")),
            "{field}: {html}"
        );
        let input = &html[html.find(&format!("id=\"{field}\" name=")).unwrap()..];
        let input = &input[..input.find('>').unwrap()];
        assert!(input.contains("aria-invalid=\"true\""), "{field}: {input}");
        assert!(
            input.contains(&format!("aria-describedby=\"{field}-error")),
            "{field}: {input}"
        );
        assert!(
            html.contains(&format!(
                "<p class=\"error field-error\" id=\"{field}-error\">"
            )),
            "{field}: {html}"
        );
    }
    // What was typed stays in the form.
    assert!(html.contains("value=\"first\""), "{html}");
    assert!(
        html.contains("{&quot;properties&quot;: </textarea>"),
        "{html}"
    );
    // Nothing was stored.
    assert_eq!(
        running
            .registry
            .versions_in("acme", "payment-value")
            .unwrap(),
        vec![1, 2]
    );
}

/// Lookups of an id, a URN, a guid and a frame's first bytes.
#[test]
fn lookups_find_ids_urns_guids_and_frames() {
    let running = server::start();
    let id = register(&running, "orders-value", "AVRO", &fixture("orders_v1.avsc"));
    let urn = "urn:acme:schema:orders-value:1".to_owned();
    let guid = get(&running.url(&format!("/schemas/ids/{id}"))).json()["guid"]
        .as_str()
        .unwrap()
        .to_owned();
    let frame = format!("00 {:08x} 02 10", id);
    for (text, kind) in [
        (id.to_string(), ""),
        (urn.clone(), ""),
        (guid.clone(), ""),
        (frame.clone(), ""),
        (frame, "frame"),
        (id.to_string(), "id"),
    ] {
        let answer = get(&running.url(&format!(
            "/ui/lookup?{}",
            query(&[("q", &text), ("kind", kind)])
        )));
        let html = answer.text();
        assert_eq!(answer.status, 200, "{text}: {html}");
        assert!(html.contains(&urn), "{text}: {html}");
    }
    let missing = get(&running.url("/ui/lookup?q=9999"));
    assert_eq!(missing.status, 404);
    assert!(missing.text().contains("role=\"alert\""));
    let not_frame = get(&running.url("/ui/lookup?q=01000000ff&kind=frame"));
    assert_eq!(not_frame.status, 404);
    assert!(not_frame.text().contains("not the magic byte 0"));
}

/// The version page: URN, id, guid, text as registered and canonical,
/// references and referrers, metadata and rules; the server page.
#[test]
fn version_and_server_pages_show_what_is_held() {
    let running = server::start();
    let id = register(
        &running,
        "customer-value",
        "JSON",
        &fixture("customer_v1.json"),
    );
    let html = get(&running.url("/ui/version?name=customer-value&v=1")).text();
    assert!(html.contains("urn:acme:schema:customer-value:1"), "{html}");
    assert!(
        html.contains(&format!("<dt>Id</dt><dd>{id}</dd>")),
        "{html}"
    );
    for heading in [
        "Schema as registered",
        "Canonical form",
        "References",
        "Referred to by",
        "Metadata",
        "Rules",
        "Guid",
    ] {
        assert!(html.contains(heading), "{heading}");
    }
    let missing = get(&running.url("/ui/version?name=customer-value&v=7"));
    assert_eq!(missing.status, 404);
    let server_page = get(&running.url("/ui/server")).text();
    assert!(
        server_page.contains("<span class=\"mark safe\">ready</span>"),
        "{server_page}"
    );
    assert!(
        server_page.contains("<dt>Versions held</dt><dd>1</dd>"),
        "{server_page}"
    );
    // The requests answered before it, by route and status (its own is
    // not counted yet), the refusals by status, the compile budget's, the
    // uptime: counted without `--metrics`.
    for counted in [
        "<tr><th scope=\"row\"><code>/subjects/{subject}/versions</code></th><td>1</td><td>0</td><td>0</td><td>200: 1</td></tr>",
        "<tr><th scope=\"row\"><code>/ui/version</code></th><td>2</td><td>1</td><td>0</td><td>200: 1, 404: 1</td></tr>",
        "<dt>404 Not Found</dt><dd>1</dd>",
        "<dt>Compile budget spent (429, code 42901)</dt><dd>0</dd>",
        "3 requests answered since the server started",
        "<dt>Up for</dt><dd>",
    ] {
        assert!(server_page.contains(counted), "no {counted} in {server_page}");
    }
    assert!(!server_page.contains("/ui/server</code>"), "{server_page}");
    let again = get(&running.url("/ui/server")).text();
    assert!(
        again.contains("<tr><th scope=\"row\"><code>/ui/server</code></th><td>1</td>"),
        "{again}"
    );
    let css = get(&running.url("/ui/console.css"));
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    let redirect = get(&running.url("/ui"));
    assert_eq!(redirect.status, 200, "followed to /ui/");
}

/// `Config::with_ui(false)` serves no console: `/ui/` is the API's 404.
#[test]
fn the_console_can_be_turned_off() {
    let off = server::start_with(server::config().with_ui(false), true);
    assert_eq!(get(&off.url("/ui/")).status, 404);
    let post = call("POST", &off.url("/ui/check"), &[], b"subject=x");
    assert_eq!(post.status, 404);
    let on = server::start_with(Config::new("acme").unwrap(), true);
    assert_eq!(get(&on.url("/ui/")).status, 200);
}

/// `dataschema serve --no-ui` serves no console; without it, it does.
#[cfg(feature = "cli")]
#[test]
fn serve_no_ui_turns_the_console_off() {
    use crate::server::process::Serve;
    let off = Serve::start(&["--store", "memory", "--read-only", "--no-ui"]);
    assert_eq!(get(&off.url("/ui/")).status, 404);
    let on = Serve::start(&["--store", "memory", "--read-only"]);
    let page = get(&on.url("/ui/server")).text();
    assert!(page.contains("<code>memory</code>"), "{page}");
}
