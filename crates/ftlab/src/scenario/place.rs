//! Where a scenario error is (`error::Place`): the `--set` override that set its key, or the
//! line and column of its key in the scenario text (toml's spanned parse, `DeTable`). It only
//! places errors already found; it checks nothing and reads no file.

use crate::error::{line_column, FtlabError, Place};
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Give a `Config` error its place: the last `--set` override (`applied`: the assignment as
/// given, the key path it set) whose path is the error's key or holds it, or that created the
/// table the key is in; else the key's line and column in `text` (for a key the text leaves
/// out, the innermost table of it the text has: `[tenants.synthetic]` for a missing
/// `tenants.1.synthetic.requests`); else nowhere. Other errors are returned unchanged.
pub(super) fn locate(e: FtlabError, text: &str, applied: &[(String, String)]) -> FtlabError {
    let FtlabError::Config { file, key, reason, place: Place::Unknown } = e else { return e };
    let in_text = span_of(text, &key);
    let by_set = applied.iter().rev().find(|(_, path)| {
        let holds = key == *path || key.starts_with(&format!("{path}."));
        // An override that created the key's table (`--set devices.channels=4` -> `devices`).
        let created =
            path.starts_with(&format!("{key}.")) && in_text.as_ref().is_none_or(|(exact, _)| !exact);
        holds || created
    });
    let place = match (by_set, in_text) {
        (Some((assignment, _)), _) => Place::Set(assignment.clone()),
        (None, Some((_, offset))) => {
            let (line, column) = line_column(text, offset);
            Place::At { line, column }
        }
        (None, None) => Place::Unknown,
    };
    FtlabError::Config { file, key, reason, place }
}

/// The byte offset of dotted `key` in `text` (of its last key, or of the array element an
/// index names), and whether the whole key was found (`false`: the innermost table of it that
/// was). `None` if not even its first segment is in the text.
fn span_of(text: &str, key: &str) -> Option<(bool, usize)> {
    let root = DeTable::parse(text).ok()?;
    let mut value: Option<&Spanned<DeValue>> = None;
    let mut found = None;
    for seg in key.split('.') {
        let next = match value.map(Spanned::get_ref) {
            None => entry(root.get_ref(), seg),
            Some(DeValue::Table(t)) => entry(t, seg),
            Some(DeValue::Array(a)) => {
                seg.parse::<usize>().ok().and_then(|i| a.get(i)).map(|v| (v.span().start, v))
            }
            Some(_) => None,
        };
        match next {
            Some((offset, v)) => {
                found = Some((true, offset));
                value = Some(v);
            }
            None => return found.map(|(_, offset)| (false, offset)),
        }
    }
    found
}

/// The offset of key `name` in `table` and its value.
fn entry<'a, 'i>(table: &'a DeTable<'i>, name: &str) -> Option<(usize, &'a Spanned<DeValue<'i>>)> {
    table.iter().find(|(k, _)| &**k.get_ref() == name).map(|(k, v)| (k.span().start, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "seed = 1\n[device]\npreset = \"tiny\"\n  chanels = 4\n[[tenants]]\nname = \
                        \"a\"\n[[tenants]]\nname = \"b\"\n[tenants.synthetic]\nrequests = 0\n";

    fn place(key: &str, applied: &[(&str, &str)]) -> Place {
        let applied: Vec<(String, String)> =
            applied.iter().map(|(a, p)| (a.to_string(), p.to_string())).collect();
        match locate(FtlabError::config("f", key, "r"), TEXT, &applied) {
            FtlabError::Config { place, .. } => place,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn keys_in_the_text() {
        assert_eq!(place("seed", &[]), Place::At { line: 1, column: 1 });
        assert_eq!(place("device.chanels", &[]), Place::At { line: 4, column: 3 });
        assert_eq!(place("tenants.1.synthetic.requests", &[]), Place::At { line: 10, column: 1 });
        assert_eq!(place("tenants.1.name", &[]), Place::At { line: 8, column: 1 });
        // Missing: the innermost table the text has.
        assert_eq!(place("device.timing.read_us", &[]), Place::At { line: 2, column: 2 });
        assert_eq!(place("measure.duration_s", &[]), Place::Unknown);
    }

    #[test]
    fn keys_set_by_an_override() {
        let set = |a: &str| Place::Set(a.to_string());
        assert_eq!(
            place(
                "tenants.1.synthetic.requests",
                &[("tenants.b.synthetic.requests=0", "tenants.1.synthetic.requests")]
            ),
            set("tenants.b.synthetic.requests=0")
        );
        assert_eq!(
            place(
                "scheme.partitioned.shares.0",
                &[("scheme.partitioned.shares=[0]", "scheme.partitioned.shares")]
            ),
            set("scheme.partitioned.shares=[0]")
        );
        assert_eq!(
            place("devices", &[("devices.channels=4", "devices.channels")]),
            set("devices.channels=4")
        );
        // The last override of the key wins; an unrelated one does not take the blame.
        assert_eq!(place("seed", &[("seed=1", "seed"), ("seed=2", "seed")]), set("seed=2"));
        assert_eq!(place("device.chanels", &[("seed=2", "seed")]), Place::At { line: 4, column: 3 });
        // A table the text has is not blamed on an override of one of its keys.
        assert_eq!(
            place("device", &[("device.channels=1", "device.channels")]),
            Place::At { line: 2, column: 2 }
        );
    }
}
