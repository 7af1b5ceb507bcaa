//! The user guide (`docs/guide/`) and the README stay true: every shell
//! block a guide page marks `<!-- test: run -->` runs, in order, against
//! the binary built here (each page one bash script in a folder of its
//! own, `set -euo pipefail`), and every relative link of `README.md` and
//! `docs/` names a file that exists (and a heading of it, for a
//! `#fragment`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The marker before a shell block the tests run.
#[cfg(feature = "cli")]
const MARKER: &str = "<!-- test: run -->";

/// The shell blocks of `page` marked to run, in order.
#[cfg(feature = "cli")]
fn marked_blocks(page: &str) -> Vec<String> {
    let text = std::fs::read_to_string(Path::new(ROOT).join(page)).unwrap();
    let mut blocks = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != MARKER {
            continue;
        }
        let fence = lines.next().unwrap_or_default();
        assert_eq!(
            fence.trim(),
            "```sh",
            "{page}: {MARKER} must precede a ```sh block"
        );
        let block: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "```").collect();
        blocks.push(block.join("\n"));
    }
    blocks
}

/// A port nothing listens on now (bound, then let go).
#[cfg(feature = "cli")]
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs the marked blocks of `page` as one script in a new folder, the
/// binary first on `PATH`, the registry's port 8081 moved to a free one
/// (and `extra` replacements); answers the script's output.
#[cfg(feature = "cli")]
fn run_page(page: &str, extra: &[(&str, &str)]) -> String {
    let blocks = marked_blocks(page);
    assert!(!blocks.is_empty(), "{page}: no block marked {MARKER}");
    let port = free_port().to_string();
    let mut script = String::from(
        "set -euo pipefail\n\
         trap 'jobs -p | xargs -r kill 2>/dev/null || true' EXIT\n",
    );
    for block in blocks {
        // A server the script starts listens where the script asks it.
        for line in block.lines().filter(|l| l.starts_with("dataschema serve")) {
            assert!(
                line.contains("--listen 127.0.0.1:"),
                "{page}: {line}: give --listen"
            );
        }
        let mut block = block.replace("127.0.0.1:8081", &format!("127.0.0.1:{port}"));
        for (from, to) in extra {
            block = block.replace(from, to);
        }
        script.push_str(&block);
        script.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_dataschema"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // Bounded: a server that never answers fails the test, not the run.
    let out = std::process::Command::new("timeout")
        .args(["240", "bash", "-c"])
        .arg(&script)
        .current_dir(dir.path())
        .env("PATH", path)
        .env("RUST_LOG", "warn")
        .output()
        .expect("bash runs");
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "{page}: the guide's commands failed ({:?}):\n{shown}\n--- the script:\n{script}",
        out.status
    );
    shown
}

#[cfg(feature = "cli")]
#[test]
fn getting_started_runs() {
    let shown = run_page("docs/guide/getting-started.md", &[]);
    for expected in [
        "ok  orders.created  v1  (backward: compatible)",
        "published urn:acme:schema:orders.created:1 (id 1)",
        "[\"orders.created\"]",
        "valid: urn:acme:schema:orders.created:1",
        "/currency",
        "exit 1",
        "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
        "published urn:acme:schema:orders.created:2",
    ] {
        assert!(shown.contains(expected), "{expected:?} not in:\n{shown}");
    }
}

#[cfg(feature = "cli")]
#[test]
fn publishing_from_ci_runs() {
    let shown = run_page("docs/guide/publishing-from-ci.md", &[]);
    assert!(shown.contains("published urn:acme:schema:"), "{shown}");
}

#[cfg(feature = "cli")]
#[test]
fn migrating_from_confluent_runs() {
    let shown = run_page(
        "docs/guide/migrating-from-confluent.md",
        &[("127.0.0.1:8082", &format!("127.0.0.1:{}", free_port()))],
    );
    assert!(shown.contains("every id and version kept"), "{shown}");
    assert!(shown.contains("\"id\":42"), "{shown}");
    assert!(
        shown.contains("already published urn:acme:schema:orders-value:1 (id 42)"),
        "{shown}"
    );
}

#[cfg(feature = "cli")]
#[test]
fn kafka_framing_runs() {
    let shown = run_page("docs/guide/kafka.md", &[]);
    assert!(
        shown.contains(" 00 00 00 00 01"),
        "a frame of id 1: {shown}"
    );
    assert_eq!(shown.matches("valid: schema id 1").count(), 2, "{shown}");
}

#[cfg(feature = "cli")]
#[test]
fn operations_backups_run() {
    run_page("docs/guide/operations.md", &[]);
}

/// GitHub's anchor of a heading: lower case, spaces as `-`, punctuation
/// but `-` and `_` dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(file: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            !fenced
        })
        .filter_map(|line| line.strip_prefix('#'))
        .map(|line| slug(line.trim_start_matches('#')))
        .collect()
}

/// The link targets of a Markdown text, outside code blocks and spans.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans dropped: `[a](b)` inside one is no link.
        let mut plain = String::new();
        for (i, part) in line.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            }
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            found.push(target.to_owned());
            rest = &after[end..];
        }
        // A reference definition: `[name]: target`.
        if let Some((label, target)) = plain.trim_start().split_once("]: ") {
            if label.starts_with('[') {
                found.push(target.trim().to_owned());
            }
        }
    }
    found
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![Path::new(ROOT).join("README.md")];
    let mut dirs = vec![Path::new(ROOT).join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in links(&text) {
            if target.is_empty()
                || target.contains("://")
                || target.starts_with("mailto:")
                || target.contains("::")
                || target.starts_with('<')
            {
                continue;
            }
            checked += 1;
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !resolved.exists() {
                broken.push(format!("{}: {target}: no such file", file.display()));
                continue;
            }
            if let Some(fragment) = fragment {
                if resolved.extension().is_some_and(|e| e == "md")
                    && !anchors(&resolved).contains(fragment)
                {
                    broken.push(format!("{}: {target}: no such heading", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 20, "only {checked} relative links checked");
}

/// The checker finds what it must: a link to a missing file, a missing
/// heading, and none inside code.
#[test]
fn the_link_checker_sees_links() {
    let text = "see [a](x.md#part) and `[b](not.md)`\n```\n[c](no.md)\n```\n[d]: y.md\n";
    assert_eq!(links(text), ["x.md#part", "y.md"]);
    assert_eq!(
        slug("Subjects and the namespace"),
        "subjects-and-the-namespace"
    );
    assert_eq!(slug("`dataschema publish`"), "dataschema-publish");
    assert_eq!(slug("Metrics, and alerts!"), "metrics-and-alerts");
}

/// Every guide page is linked from the guide's index.
#[test]
fn the_guide_index_links_every_page() {
    let index = std::fs::read_to_string(Path::new(ROOT).join("docs/guide/README.md")).unwrap();
    let linked: BTreeSet<String> = links(&index).into_iter().collect();
    for entry in std::fs::read_dir(Path::new(ROOT).join("docs/guide")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "README.md" {
            assert!(
                linked.contains(&name),
                "docs/guide/README.md does not link {name}"
            );
        }
    }
}
