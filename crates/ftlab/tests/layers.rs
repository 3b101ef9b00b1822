//! The layer order of `crates/ftlab/src/simulation/`, checked against its files' imports: every
//! file is in the order written in docs/ARCHITECTURE.md (the line after the
//! `<!-- simulation-layers -->` marker), and names only files of lower layers (`super::FILE`,
//! or `crate::simulation::FILE`), never an item of `mod.rs` (`super::Item`) unless it is
//! `mod.rs`'s own test module. An in-file `#[cfg(test)] mod tests` is left out (its `super` is
//! the file itself). What this does not see: a method of `Engine` one file defines and
//! another calls needs no `use` line.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers of the order line, lowest first: each a list of file stems.
fn layers_of(doc: &str) -> Vec<Vec<String>> {
    let marker = "<!-- simulation-layers -->";
    let at = doc.find(marker).expect("docs/ARCHITECTURE.md has the simulation-layers marker");
    let line = doc[at + marker.len()..].trim_start().lines().next().expect("an order line after it");
    line.split('←')
        .map(|layer| {
            layer
                .split(',')
                .map(|f| f.trim().trim_matches('`').to_string())
                .filter(|f| !f.is_empty())
                .collect()
        })
        .collect()
}

/// The code of a file with comments and in-file test modules left out.
fn code_of(text: &str) -> String {
    let cut = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..cut].lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The files of `simulation/` that `code` names: `super::X` or `crate::simulation::X` with X a
/// file stem of `stems`, else `mod` (an item of `mod.rs`).
fn deps_of(code: &str, stems: &[String]) -> Vec<String> {
    let mut deps = Vec::new();
    for prefix in ["super::", "crate::simulation::"] {
        for (i, _) in code.match_indices(prefix) {
            let rest = &code[i + prefix.len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let dep = if stems.contains(&name) && rest[name.len()..].starts_with("::") {
                name
            } else {
                "mod".into()
            };
            if !deps.contains(&dep) {
                deps.push(dep);
            }
        }
    }
    deps
}

/// Every import of `files` (stem -> code) that does not point to a lower layer.
fn violations(layers: &[Vec<String>], files: &BTreeMap<String, String>) -> Vec<String> {
    let rank = |f: &str| layers.iter().position(|l| l.iter().any(|x| x == f));
    let stems: Vec<String> = files.keys().cloned().collect();
    let mut bad = Vec::new();
    for (stem, code) in files {
        let Some(own) = rank(stem) else {
            bad.push(format!("{stem}.rs is not in the layer order"));
            continue;
        };
        if stem == "mod" {
            continue;
        }
        for dep in deps_of(code, &stems) {
            match rank(&dep) {
                Some(r) if r < own => {}
                _ => bad.push(format!("{stem}.rs imports {dep}, not of a lower layer")),
            }
        }
    }
    bad
}

#[test]
fn simulation_imports_follow_the_layer_order() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("../../docs/ARCHITECTURE.md")).unwrap();
    let layers = layers_of(&doc);
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("src/simulation")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            files.insert(stem, code_of(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    for layer in &layers {
        for f in layer {
            assert!(files.contains_key(f), "the layer order names {f}, which is no file of simulation/");
        }
    }
    let bad = violations(&layers, &files);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A made-up case: its files (stem, code) and the violations expected, exactly.
type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str]);

/// The checker itself, on made-up files: each case's violations, exactly.
#[test]
fn the_checker_finds_upward_imports_and_unplaced_files() {
    let layers = layers_of("x <!-- simulation-layers -->\n`ops` ← `engine`, `sink` ← `host` ← `mod`\n");
    let cases: &[Case] = &[
        (&[("ops", "use crate::sim::Rng;"), ("engine", "use super::ops::Event;")], &[]),
        (
            &[("ops", "use super::engine::Engine;"), ("engine", "")],
            &["ops.rs imports engine, not of a lower layer"],
        ),
        (
            &[("engine", "use super::sink::MetricsSink;"), ("sink", "")],
            &["engine.rs imports sink, not of a lower layer"],
        ),
        (&[("host", "use super::{Event, FlashOp};")], &["host.rs imports mod, not of a lower layer"]),
        (&[("host", "let t = crate::simulation::engine::X;"), ("engine", "")], &[]),
        (&[("engine", "// use super::host::HostPort;"), ("host", "")], &[]),
        (&[("engine", "fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n}")], &[]),
        (&[("gc", "")], &["gc.rs is not in the layer order"]),
        (&[("mod", "use engine::Engine;"), ("engine", "")], &[]),
    ];
    for (files, want) in cases {
        let files: BTreeMap<String, String> =
            files.iter().map(|(s, c)| (s.to_string(), code_of(c))).collect();
        assert_eq!(violations(&layers, &files), want.to_vec(), "{files:?}");
    }
}
