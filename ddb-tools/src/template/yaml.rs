//! YAML for templates: written from JSON values (every string double-quoted,
//! so no value is read as another type), and, with feature `yaml`, read
//! with CloudFormation's short-form tags (`!Ref`, `!GetAtt`, `!Sub`, ...)
//! turned into their long form.

use serde_json::Value;

/// `value` as a YAML document.
pub(super) fn write(value: &Value) -> String {
    let mut out = String::new();
    block(&mut out, value, 0);
    out
}

/// `value` at `indent`: a mapping's entries or a sequence's items, each on
/// its own line; a scalar or an empty collection on one line.
fn block(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (key, value) in map {
                out.push_str(&" ".repeat(indent));
                out.push_str(&key_text(key));
                out.push(':');
                child(out, value, indent + 2);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                let mut nested = String::new();
                block(&mut nested, item, indent + 2);
                out.push_str(&" ".repeat(indent));
                out.push_str("- ");
                out.push_str(nested.trim_start_matches(' '));
            }
        }
        scalar => {
            out.push_str(&" ".repeat(indent));
            out.push_str(&scalar_text(scalar));
            out.push('\n');
        }
    }
}

/// What follows `key:`: a scalar on the same line, a collection below it.
fn child(out: &mut String, value: &Value, indent: usize) {
    let nested = match value {
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        _ => false,
    };
    if nested {
        out.push('\n');
        block(out, value, indent);
    } else {
        out.push(' ');
        out.push_str(&scalar_text(value));
        out.push('\n');
    }
}

fn key_text(key: &str) -> String {
    let plain = !key.is_empty()
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !key.starts_with(|c: char| c.is_ascii_digit());
    if plain {
        key.to_owned()
    } else {
        Value::from(key).to_string()
    }
}

/// A scalar, or an empty collection, in JSON's notation, which YAML reads
/// the same way (a double-quoted string with JSON's escapes).
fn scalar_text(value: &Value) -> String {
    match value {
        Value::Object(_) => "{}".to_owned(),
        Value::Array(_) => "[]".to_owned(),
        other => other.to_string(),
    }
}

/// A YAML document as a JSON value; CloudFormation's short-form tags
/// become their long form (`!Ref x` is `{"Ref": "x"}`, `!GetAtt a.b` is
/// `{"Fn::GetAtt": ["a", "b"]}`, `!Sub s` is `{"Fn::Sub": "s"}`).
#[cfg(feature = "yaml")]
pub(super) fn read(text: &str) -> Result<Value, String> {
    let document: serde_norway::Value = serde_norway::from_str(text).map_err(|e| e.to_string())?;
    Ok(to_json(document))
}

#[cfg(feature = "yaml")]
fn to_json(value: serde_norway::Value) -> Value {
    use serde_norway::Value as Yaml;
    match value {
        Yaml::Null => Value::Null,
        Yaml::Bool(b) => Value::Bool(b),
        Yaml::Number(n) => serde_json::to_value(n).unwrap_or(Value::Null),
        Yaml::String(s) => Value::String(s),
        Yaml::Sequence(items) => Value::Array(items.into_iter().map(to_json).collect()),
        Yaml::Mapping(map) => {
            let entries = map.into_iter().map(|(k, v)| {
                let key = match to_json(k) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                (key, to_json(v))
            });
            Value::Object(entries.collect())
        }
        Yaml::Tagged(tagged) => {
            let tag = tagged.tag.to_string();
            let name = tag.trim_start_matches('!');
            let value = to_json(tagged.value);
            match (name, value) {
                ("Ref" | "Condition", value) => serde_json::json!({ name: value }),
                ("GetAtt", Value::String(path)) => {
                    let (resource, attribute) = path.split_once('.').unwrap_or((&path, ""));
                    serde_json::json!({ "Fn::GetAtt": [resource, attribute] })
                }
                (name, value) => serde_json::json!({ format!("Fn::{name}"): value }),
            }
        }
    }
}
