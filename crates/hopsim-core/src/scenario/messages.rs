//! Plainer wording of serde's type errors, so that every rejection says what was expected
//! and what was found: a choice field given a number lists its choices, an integer field
//! given a fraction or a number out of range gives its range.

use serde_json::Value;

/// The value at a dotted field path (`workload[1].size`, `transport.cc`) of a scenario.
fn value_at_mut<'a>(root: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut v = root;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            v = v.get_mut(name)?;
        }
        for index in indices.split(['[', ']']).filter(|s| !s.is_empty()) {
            v = v.get_mut(index.parse::<usize>().ok()?)?;
        }
    }
    Some(v)
}

/// Reword `message`, the error of field `path` of the scenario `doc`. `retry`
/// deserializes a changed copy of the scenario and returns its error at `path`, if any.
pub(super) fn reword(
    doc: &Value,
    path: &str,
    message: &str,
    retry: impl Fn(Value) -> Option<(String, String)>,
) -> String {
    let Some(found) =
        message.strip_prefix("invalid type: ").or_else(|| message.strip_prefix("invalid value: "))
    else {
        return message.to_string();
    };
    let Some((what, expected)) = found.rsplit_once(", expected ") else { return message.to_string() };
    let range = match expected {
        "u8" => Some(u8::MAX as u64),
        "u16" => Some(u16::MAX as u64),
        "u32" => Some(u32::MAX as u64),
        "u64" => Some(u64::MAX),
        _ => None,
    };
    if let Some(max) = range {
        return format!("expected an integer from 0 to {max}, got {what}");
    }
    if expected == "string or map" {
        // A choice field: put a string no choice has in its place to learn the choices.
        let mut probe = doc.clone();
        if let Some(slot) = value_at_mut(&mut probe, path) {
            *slot = Value::String("\u{1}".into());
            if let Some((p, m)) = retry(probe) {
                if let (true, Some((_, choices))) = (p == path, m.split_once(", expected ")) {
                    return format!("expected {choices}, got {what}");
                }
            }
        }
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_found_by_dotted_path() {
        let mut doc: Value = serde_json::from_str(r#"{"a": {"b": [1, {"c": 2}]}}"#).unwrap();
        assert_eq!(value_at_mut(&mut doc, "a.b[1].c"), Some(&mut Value::from(2)));
        assert_eq!(value_at_mut(&mut doc, "a.x"), None);
    }
}
