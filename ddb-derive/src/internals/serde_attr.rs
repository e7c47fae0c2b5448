//! The `#[serde(...)]` attributes ddb reads: the names serde gives fields,
//! the attributes a generated conversion follows, and the ones ddb refuses.

use syn::{Attribute, Ident};

use super::meta::{key_name, lit_str, path_tokens, skip_value, Attr};
use super::symbol::*;

/// The serde attributes a generated item conversion follows; anything else
/// makes it fall back to serde for the whole item.
#[derive(Default, Clone)]
pub struct SerdeConversion {
    /// `with = "module"`.
    pub with: Option<String>,
    /// `serialize_with = "function"`.
    pub serialize_with: Option<String>,
    /// `deserialize_with = "function"`.
    pub deserialize_with: Option<String>,
    /// `skip_serializing_if = "path"`.
    pub skip_if: Option<String>,
    /// `default` (`Some(None)`) or `default = "path"` (`Some(Some(path))`).
    pub default: Option<Option<String>>,
    /// An attribute the generated conversion does not follow.
    pub unfollowed: bool,
}

/// What the generated conversion needs of `#[serde(...)]` on a field or
/// (for `default` and anything unfollowed) on the container.
pub fn serde_conversion(attrs: &[Attribute], followed: &[&str]) -> SerdeConversion {
    let mut conversion = SerdeConversion::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident(SERDE)) {
        let parsed = attr.parse_nested_meta(|meta| {
            let key = key_name(&meta);
            let value = if meta.input.peek(syn::Token![=]) {
                Some(lit_str(&meta)?.value())
            } else {
                skip_value(&meta)?;
                None
            };
            match key.as_str() {
                "with" => conversion.with = value,
                "serialize_with" => conversion.serialize_with = value,
                "deserialize_with" => conversion.deserialize_with = value,
                "skip_serializing_if" => conversion.skip_if = value,
                "default" => conversion.default = Some(value),
                // `rename = ".."`; the split form `rename(deserialize = ..)`
                // names another attribute than the one the derive reads.
                other if followed.contains(&other) && value.is_some() => {}
                _ => conversion.unfollowed = true,
            }
            Ok(())
        });
        if parsed.is_err() {
            conversion.unfollowed = true;
        }
    }
    conversion
}

/// Container serde attributes that change what an item's attributes are,
/// beyond ddb's model (named fields under known names, any other attribute
/// ignored): ddb refuses them rather than compute wrong names.
pub const CONTAINER_SERDE_REFUSED: &[&str] = &[
    "tag",
    "untagged",
    "content",
    "transparent",
    "from",
    "try_from",
    "into",
    "remote",
    "deny_unknown_fields",
];

/// Field serde attributes that change an attribute's name or presence in one
/// direction only, or hide where its attributes are.
pub const FIELD_SERDE_REFUSED: &[&str] = &["flatten", "skip_serializing", "skip_deserializing"];

/// What `serde_keys` reports for `rename(serialize = "a", deserialize = "b")`
/// with two different names.
pub const SPLIT_RENAME: &str = "rename(serialize, deserialize)";

/// The keys of `#[serde(...)]` attributes, each with its tokens;
/// `rename`/`rename_all` with different serialize and deserialize names is
/// reported as [`SPLIT_RENAME`].
pub fn serde_keys(attrs: &[Attribute]) -> Vec<Attr<String>> {
    let mut keys = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident(SERDE)) {
        let _ = attr.parse_nested_meta(|meta| {
            let tokens = path_tokens(&meta);
            let name = key_name(&meta);
            if (meta.path.is_ident(RENAME) || meta.path.is_ident(RENAME_ALL))
                && meta.input.peek(syn::token::Paren)
            {
                let mut names: Vec<(String, String)> = Vec::new();
                meta.parse_nested_meta(|inner| {
                    names.push((key_name(&inner), lit_str(&inner)?.value()));
                    Ok(())
                })?;
                let serialize = names.iter().find(|(k, _)| k == "serialize").map(|(_, v)| v);
                let deserialize = names
                    .iter()
                    .find(|(k, _)| k == "deserialize")
                    .map(|(_, v)| v);
                if serialize != deserialize {
                    keys.push(Attr {
                        value: SPLIT_RENAME.to_owned(),
                        tokens,
                    });
                }
                return Ok(());
            }
            skip_value(&meta)?;
            keys.push(Attr {
                value: name,
                tokens,
            });
            Ok(())
        });
    }
    keys
}

/// The value of `#[serde(key = "...")]` or `#[serde(key(serialize = "..."))]`.
/// Malformed serde attributes are serde's to report.
pub fn serde_value(attrs: &[Attribute], key: &str) -> Option<String> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident(SERDE)) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident(key) {
                if meta.input.peek(syn::Token![=]) {
                    found = Some(lit_str(&meta)?.value());
                } else {
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("serialize") {
                            found = Some(lit_str(&inner)?.value());
                        } else {
                            skip_value(&inner)?;
                        }
                        Ok(())
                    })?;
                }
                Ok(())
            } else {
                skip_value(&meta)
            }
        });
    }
    found
}

/// The DynamoDB attribute name of a field: serde's `rename`, else its
/// `rename_all` rule applied, else the field name.
pub fn attribute_name(ident: &Ident, rename: Option<&str>, rename_all: Option<&str>) -> String {
    if let Some(rename) = rename {
        return rename.to_owned();
    }
    let name = ident.to_string();
    let field = name.strip_prefix("r#").unwrap_or(&name);
    // serde's own rules for fields (serde_derive's `RenameRule::apply_to_field`).
    let pascal = || {
        let mut out = String::new();
        let mut capitalize = true;
        for ch in field.chars() {
            if ch == '_' {
                capitalize = true;
            } else if capitalize {
                out.push(ch.to_ascii_uppercase());
                capitalize = false;
            } else {
                out.push(ch);
            }
        }
        out
    };
    match rename_all {
        Some("lowercase") | Some("snake_case") => field.to_owned(),
        Some("UPPERCASE") | Some("SCREAMING_SNAKE_CASE") => field.to_ascii_uppercase(),
        Some("PascalCase") => pascal(),
        Some("camelCase") => {
            let pascal = pascal();
            match pascal.chars().next() {
                Some(first) => first.to_ascii_lowercase().to_string() + &pascal[first.len_utf8()..],
                None => pascal,
            }
        }
        Some("kebab-case") => field.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => field.to_ascii_uppercase().replace('_', "-"),
        _ => field.to_owned(),
    }
}
