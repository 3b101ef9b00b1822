//! The layer order of `crates/ftlab/src/simulation/`, checked against its files' imports: every
//! file is in the order written in docs/ARCHITECTURE.md (the line after the
//! `<!-- simulation-layers -->` marker), and names only files of lower layers (`super::FILE`,
//! or `crate::simulation::FILE`), never an item of `mod.rs` (`super::Item`) unless it is
//! `mod.rs`'s own test module. An in-file `#[cfg(test)] mod tests` is left out (its `super` is
//! the file itself). A method of `Engine` one file defines and another calls needs no `use`
//! line, so the calls are checked too: inside a file's `impl ... Engine<...>` and
//! `impl Executor for ...` blocks, `self.NAME(` and `e.NAME(` of a `pub(super)` method another
//! file defines on `Engine` name that file, and `X::NAME(` / `Self::NAME(` of an `Executor`
//! method name `engine` (which declares the trait; the executors implement it below their
//! callers' view). So do a part's methods (a `pub(super)` method of an inherent `impl` of a
//! type other than `Engine`, e.g. `Timed`'s die path in `die_exec.rs`): called through the
//! engine's field that holds the part (`self.exec.NAME(`, `exec.NAME(`), or `self.NAME(`
//! inside the part's own `impl` in another file. Such a call must point to a lower layer too,
//! unless `UPWARD_CALLS` lists it with its reason; a listed call that is gone fails as well.
//! What this does not see: a call through a closure or a function pointer, an `Engine` method
//! called from a free function, or a part's method called through a binding not named after
//! the engine's field.

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

/// The calls of `simulation/` that point to no lower layer, each with the reason it stays:
/// (caller, callee file, method, why). None since session 20: the job and GC paths that call
/// each other by nature (a job leaving its source starts GC on its die, GC starts its work as
/// a job) share `jobs.rs`, and the policies' commands (`commands.rs`) and the copy loop
/// (`copy.rs`) that tells the policies sit above them.
const UPWARD_CALLS: &[(&str, &str, &str, &str)] = &[];

/// The parts of `code` inside its top-level `impl` blocks on `Engine` or of `Executor`: from
/// each such `impl` line to the next line that is a lone `}`.
fn engine_impls(code: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in code.lines() {
        if line.starts_with("impl") {
            let head = line.split(" for ").last().unwrap_or(line);
            inside = head.contains("Engine<") || line.contains("Executor for");
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
        if line == "}" {
            inside = false;
        }
    }
    out
}

/// The names after `prefix` in `code` where `prefix` starts no longer word (`e.` is not the
/// end of `node.`), e.g. the `pub(super) fn` names; with `called`, only those a `(` follows.
fn names_after(code: &str, prefix: &str, called: bool) -> Vec<String> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut names = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        if prefix.starts_with(word) && code[..i].chars().next_back().is_some_and(word) {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        let name: String = rest.chars().take_while(|&c| word(c)).collect();
        if !name.is_empty() && (!called || rest[name.len()..].starts_with('(')) {
            names.push(name);
        }
    }
    names
}

/// What a file's calls are resolved against: method name -> the file that defines it on
/// `Engine` (`pub(super)`); the `Executor` trait's method names (declared in `engine`);
/// (part type, method name) -> the file of its `pub(super)` method in an inherent `impl` of
/// that type; and the engine's fields with the part types each may hold (`exec: X`, every type
/// that implements `Executor`).
struct Defs {
    owner: BTreeMap<String, String>,
    trait_methods: Vec<String>,
    part_owner: BTreeMap<(String, String), String>,
    fields: Vec<(String, Vec<String>)>,
}

/// The type of each top-level inherent `impl` block of `code` (not `Engine`, not a trait's)
/// with the block's text.
fn part_impls(code: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut inside = false;
    for line in code.lines() {
        if line.starts_with("impl") && !line.contains(" for ") {
            let head = line["impl".len()..].trim_start();
            let head =
                if head.starts_with('<') { &head[head.find('>').map_or(0, |i| i + 1)..] } else { head };
            let ty: String =
                head.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            inside = ty != "Engine" && !ty.is_empty();
            if inside {
                out.push((ty, String::new()));
            }
        }
        if inside {
            let last = out.last_mut().expect("a block");
            last.1.push_str(line);
            last.1.push('\n');
        }
        if line == "}" {
            inside = false;
        }
    }
    out
}

/// The definitions of `files` (see `Defs`). A name two files define on `Engine`, or on one
/// part type, is an error.
fn defs_of(files: &BTreeMap<String, String>) -> Defs {
    let mut owner = BTreeMap::new();
    let mut part_owner = BTreeMap::new();
    let mut executors = Vec::new();
    for (stem, code) in files {
        for name in names_after(&engine_impls(code), "\n    pub(super) fn ", false) {
            if let Some(other) = owner.insert(name.clone(), stem.clone()) {
                assert_eq!(&other, stem, "`{name}` is an Engine method of both {other}.rs and {stem}.rs");
            }
        }
        for (ty, block) in part_impls(code) {
            for name in names_after(&block, "\n    pub(super) fn ", false) {
                if let Some(other) = part_owner.insert((ty.clone(), name.clone()), stem.clone()) {
                    assert_eq!(&other, stem, "`{ty}::{name}` is defined in both {other}.rs and {stem}.rs");
                }
            }
        }
        executors.extend(names_after(code, "impl Executor for ", false));
    }
    let declared = |c: &String| {
        let at = c.find("trait Executor").unwrap_or(c.len());
        let end = c[at..].find("\n}").map_or(c.len(), |e| at + e);
        names_after(&c[at..end], "\n    fn ", false)
    };
    let trait_methods = files.get("engine").map(declared).unwrap_or_default();
    let fields = files.get("engine").map(|c| engine_fields(c, &executors)).unwrap_or_default();
    Defs { owner, trait_methods, part_owner, fields }
}

/// The fields of `struct Engine` in `code` with the type(s) each holds: its type's name, or
/// `executors` for the executor's type parameter `X`.
fn engine_fields(code: &str, executors: &[String]) -> Vec<(String, Vec<String>)> {
    let Some(at) = code.find("pub(super) struct Engine<") else { return Vec::new() };
    let end = code[at..].find("\n}").map_or(code.len(), |e| at + e);
    let mut fields = Vec::new();
    for line in code[at..end].lines().skip(1) {
        let Some(rest) = line.trim().strip_prefix("pub(super) ") else { continue };
        let Some((name, ty)) = rest.split_once(':') else { continue };
        let ty: String = ty.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let types = if ty == "X" { executors.to_vec() } else { vec![ty] };
        fields.push((name.trim().to_string(), types));
    }
    fields
}

/// The files `code`'s engine calls name: (callee file, method), each once, in order. A part's
/// method counts as called through the engine's field that holds the part (`self.exec.NAME(`,
/// `e.jobs.NAME(`, or a binding of the field's name, `exec.NAME(`) or, inside an inherent
/// `impl` of the part, `self.NAME(`; a name no part of the field's types defines is left out.
fn calls_of(code: &str, own: &str, defs: &Defs) -> Vec<(String, String)> {
    let body = engine_impls(code);
    let own_fns: Vec<String> = names_after(&body, "fn ", false);
    let mut calls = Vec::new();
    let mut add = |file: Option<String>, name: String| match file {
        Some(f) if f != own && !calls.contains(&(f.clone(), name.clone())) => calls.push((f, name)),
        _ => {}
    };
    for receiver in ["self.", "e.", "X::", "Self::"] {
        for name in names_after(&body, receiver, true) {
            if own_fns.contains(&name) {
                continue;
            }
            let file = if receiver.ends_with("::") {
                defs.trait_methods.contains(&name).then(|| "engine".to_string())
            } else {
                defs.owner.get(&name).cloned()
            };
            add(file, name);
        }
    }
    let part_file = |types: &[String], name: &str| {
        types.iter().find_map(|ty| defs.part_owner.get(&(ty.clone(), name.to_string())).cloned())
    };
    for (field, types) in &defs.fields {
        for name in names_after(code, &format!("{field}."), true) {
            add(part_file(types, &name), name);
        }
    }
    for (ty, block) in part_impls(code) {
        for name in names_after(&block, "self.", true) {
            add(part_file(std::slice::from_ref(&ty), &name), name);
        }
    }
    calls
}

/// Every engine call of `files` that does not point to a lower layer and `allowed` does not
/// list, and every listed call no longer made.
fn call_violations(
    layers: &[Vec<String>],
    files: &BTreeMap<String, String>,
    allowed: &[(&str, &str, &str, &str)],
) -> Vec<String> {
    let rank = |f: &str| layers.iter().position(|l| l.iter().any(|x| x == f));
    let defs = defs_of(files);
    let mut bad = Vec::new();
    let mut seen = Vec::new();
    for (stem, code) in files {
        for (callee, method) in calls_of(code, stem, &defs) {
            let listed = allowed.iter().any(|a| (a.0, a.1, a.2) == (stem.as_str(), &*callee, &*method));
            match (rank(stem), rank(&callee)) {
                (Some(a), Some(b)) if b < a => {}
                _ if listed => seen.push((stem.clone(), callee, method)),
                _ => bad.push(format!("{stem}.rs calls {callee}.rs's {method}, not of a lower layer")),
            }
        }
    }
    for (caller, callee, method, _) in allowed {
        if !seen.iter().any(|s| (s.0.as_str(), s.1.as_str(), s.2.as_str()) == (*caller, *callee, *method)) {
            bad.push(format!("UPWARD_CALLS lists {caller} -> {callee}::{method}, which is not made"));
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
    let mut bad = violations(&layers, &files);
    bad.extend(call_violations(&layers, &files, UPWARD_CALLS));
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

/// A made-up case of engine calls: its files (stem, code), the listed calls, the violations.
type CallCase<'a> = (&'a [(&'a str, &'a str)], &'a [(&'a str, &'a str, &'a str, &'a str)], &'a [&'a str]);

/// The call checker on made-up files: each case's violations, exactly.
#[test]
fn the_call_checker_finds_upward_calls_and_stale_exceptions() {
    let layers = layers_of("x <!-- simulation-layers -->\n`ops` ← `engine`, `sink` ← `host` ← `mod`\n");
    let engine = "trait Executor {\n    fn issue(e: &mut Engine<'_, Self>);\n}\n\
                  impl<X: Executor> Engine<'_, X> {\n    pub(super) fn view(&self) {}\n}\n";
    let host = "impl<X: Executor> Engine<'_, X> {\n    pub(super) fn pump(&mut self) {\n\
                self.view();\n        X::issue(self);\n    }\n}\n";
    let calls_pump = "impl<X: Executor> Engine<'_, X> {\n    pub(super) fn view(&self) { self.pump(); }\n}\n";
    let allowed: &[(&str, &str, &str, &str)] = &[("engine", "host", "pump", "made up")];
    let cases: &[CallCase] = &[
        (&[("engine", engine), ("host", host)], &[], &[]),
        (
            &[("engine", calls_pump), ("host", host)],
            &[],
            &["engine.rs calls host.rs's pump, not of a lower layer"],
        ),
        (&[("engine", calls_pump), ("host", host)], allowed, &[]),
        (
            &[("engine", engine), ("host", host)],
            allowed,
            &["UPWARD_CALLS lists engine -> host::pump, which is not made"],
        ),
        (&[("sink", "impl Sink {\n    fn f(&mut self) { self.pump(); }\n}\n"), ("host", host)], &[], &[]),
        (
            &[("engine", "impl<X> Engine<'_, X> {\n    fn g(&self) { node.pump(); }\n}\n"), ("host", host)],
            &[],
            &[],
        ),
        (
            &[
                (
                    "sink",
                    "impl<X> Engine<'_, X> {\n    fn g(&self) { self.pump(); }\n    fn pump(&self) {}\n}\n",
                ),
                ("host", host),
            ],
            &[],
            &[],
        ),
        (
            &[
                ("sink", "impl Engine<'_, Timed> {\n    fn f(&mut self) { self.pump(); }\n}\n"),
                ("host", host),
            ],
            &[],
            &["sink.rs calls host.rs's pump, not of a lower layer"],
        ),
        (
            &[
                (
                    "ops",
                    "impl Executor for Instant {\n    fn issue(e: &mut Engine<'_, Self>) { e.view(); }\n}\n",
                ),
                ("engine", engine),
            ],
            &[],
            &["ops.rs calls engine.rs's view, not of a lower layer"],
        ),
        // A part's methods: through the engine's field that holds it (`exec: X`, the types
        // implementing `Executor`; `jobs: JobTable`), a binding of the field's name, or
        // `self.` inside the part's own `impl`.
        (
            &[
                (
                    "engine",
                    "pub(super) struct Engine<'a, X> {\n    pub(super) exec: X,\n}\n\
                     impl<X> Engine<'_, X> {\n    pub(super) fn view(&self) { self.exec.start(); }\n}\n",
                ),
                (
                    "host",
                    "impl Executor for Timed {\n}\nimpl Timed {\n    pub(super) fn start(&mut self) {}\n}\n",
                ),
            ],
            &[],
            &["engine.rs calls host.rs's start, not of a lower layer"],
        ),
        (
            &[
                ("engine", "pub(super) struct Engine<'a, X> {\n    pub(super) exec: X,\n}\n"),
                ("ops", "impl Timed {\n    pub(super) fn start(&mut self) {}\n}\n"),
                (
                    "host",
                    "impl Executor for Timed {\n    fn issue(e: &mut Engine<'_, Self>) {\n\
                     let exec = &mut e.exec;\n        exec.start();\n    }\n}\n",
                ),
            ],
            &[],
            &[],
        ),
        (
            &[
                ("ops", "impl Timed {\n    pub(super) fn go(&mut self) { self.start(); }\n}\n"),
                ("host", "impl Timed {\n    pub(super) fn start(&mut self) {}\n}\n"),
            ],
            &[],
            &["ops.rs calls host.rs's start, not of a lower layer"],
        ),
        (
            &[
                (
                    "engine",
                    "pub(super) struct Engine<'a, X> {\n    pub(super) jobs: JobTable,\n}\n\
                     impl<X> Engine<'_, X> {\n    pub(super) fn f(&self) { self.jobs.pump_all(); }\n}\n",
                ),
                ("sink", "impl JobTable {\n    pub(super) fn pump_all(&self) {}\n}\n"),
            ],
            &[],
            &["engine.rs calls sink.rs's pump_all, not of a lower layer"],
        ),
    ];
    for (files, allowed, want) in cases {
        let files: BTreeMap<String, String> =
            files.iter().map(|(s, c)| (s.to_string(), code_of(c))).collect();
        assert_eq!(call_violations(&layers, &files, allowed), want.to_vec(), "{files:?}");
    }
}
