//! `--set key.path=value` overrides, applied to the parsed TOML before validation. The value
//! is parsed as a TOML value (`4`, `0.5`, `true`, `"x"`, `[1, 2]`); a bare word that is not
//! valid TOML is taken as a string. Array elements are addressed by index (`tenants.0.name`)
//! or, for tables with a `name` key, by name (`tenants.web.queue_depth`). Missing tables are
//! created; whether a key may exist is checked afterwards by the schema.

/// Apply one override; the key path it set, with array elements by index
/// (`tenants.web.queue_depth` -> `tenants.1.queue_depth`), the spelling of error keys; or
/// `Err((key, reason))` if it is malformed or its path cannot exist.
pub(crate) fn apply(root: &mut toml::Table, assignment: &str) -> Result<String, (String, String)> {
    let Some((path, raw)) = assignment.split_once('=') else {
        return Err((assignment.into(), "an override must look like key.path=value".into()));
    };
    let path = path.trim();
    let segments: Vec<&str> = path.split('.').map(str::trim).collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err((path.into(), "empty segment in key path".into()));
    }
    let mut node = root;
    for i in 0..segments.len() - 1 {
        let here = segments[..=i].join(".");
        // No table of the schema has numeric keys: `x.0.y` with no `x` would create a table
        // named `0` where an array was meant.
        if !node.contains_key(segments[i]) && segments[i + 1].bytes().all(|b| b.is_ascii_digit()) {
            return Err((
                here,
                format!("is not set, so it has no element {}; set the whole array instead", segments[i + 1]),
            ));
        }
        let entry =
            node.entry(segments[i].to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        node = match entry {
            toml::Value::Table(t) => t,
            toml::Value::Array(items) => {
                let Some(next) = segments.get(i + 1).filter(|_| i + 2 < segments.len()) else {
                    return Err((
                        here,
                        "is an array; set a key of one element (e.g. `tenants.0.queue_depth` or \
                         `tenants.web.queue_depth`) or the whole array (e.g. `schemes=[\"unified\"]`)"
                            .into(),
                    ));
                };
                return apply_in_array(items, next, &segments[i + 2..], raw, &here);
            }
            other => {
                let ty = other.type_str();
                let article = if ty.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
                return Err((here, format!("is {article} {ty}, not a table")));
            }
        };
    }
    node.insert(segments[segments.len() - 1].to_string(), parse_value(raw.trim()));
    Ok(segments.join("."))
}

fn apply_in_array(
    items: &mut [toml::Value],
    sel: &str,
    rest: &[&str],
    raw: &str,
    here: &str,
) -> Result<String, (String, String)> {
    let n = items.len();
    let pos = match sel.parse::<usize>() {
        Ok(i) if i < n => Some(i),
        Ok(i) => {
            return Err((format!("{here}.{i}"), format!("index out of range: the array has {n} elements")))
        }
        Err(_) => items.iter().position(|v| v.get("name").and_then(|x| x.as_str()) == Some(sel)),
    };
    let Some(pos) = pos else {
        return Err((format!("{here}.{sel}"), format!("no element named {sel:?}")));
    };
    let Some(toml::Value::Table(t)) = items.get_mut(pos) else {
        return Err((format!("{here}.{sel}"), "is not a table".into()));
    };
    let sub = format!("{}={}", rest.join("."), raw);
    apply(t, &sub).map(|k| format!("{here}.{pos}.{k}")).map_err(|(k, r)| (format!("{here}.{sel}.{k}"), r))
}

fn parse_value(raw: &str) -> toml::Value {
    match toml::from_str::<toml::Table>(&format!("v = {raw}")).ok().and_then(|mut t| t.remove("v")) {
        Some(v) => v,
        None => toml::Value::String(raw.to_string()),
    }
}
