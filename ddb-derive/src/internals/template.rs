//! Key templates: `"ORDER#{placed_at}#{order_id}"` -> literal and field parts.

/// The delimiter between segments; a field may only be followed by it.
pub const DELIMITER: char = '#';

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Literal(String),
    Field(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub source: String,
    pub parts: Vec<Part>,
}

impl Template {
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Field(name) => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }
}

/// Parses a template; `what` names it in messages (`"sk template"`).
pub fn parse(source: &str, what: &str) -> Result<Template, String> {
    if source.is_empty() {
        return Err(format!(
            "the {what} is empty; write literal text and `{{field}}` segments, e.g. \"CUSTOMER#{{customer_id}}\""
        ));
    }
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    match c {
                        '}' => {
                            closed = true;
                            break;
                        }
                        '{' => break,
                        c => name.push(c),
                    }
                }
                if !closed {
                    return Err(format!(
                        "unbalanced `{{` in {what} \"{source}\": every `{{field}}` needs a closing `}}`"
                    ));
                }
                let name = name.trim().to_owned();
                if name.is_empty() {
                    return Err(format!(
                        "empty `{{}}` in {what} \"{source}\": name a field between the braces, e.g. `{{order_id}}`"
                    ));
                }
                if !is_identifier(&name) {
                    return Err(format!(
                        "`{{{name}}}` in {what} \"{source}\" is not a field name"
                    ));
                }
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                if let Some(Part::Field(previous)) = parts.last() {
                    return Err(format!(
                        "fields `{{{previous}}}` and `{{{name}}}` are adjacent in {what} \"{source}\": \
                         put the delimiter between them, e.g. `{{{previous}}}#{{{name}}}`"
                    ));
                }
                parts.push(Part::Field(name));
            }
            '}' => {
                return Err(format!(
                    "unbalanced `}}` in {what} \"{source}\": a `}}` closes a `{{field}}` and has no `{{` here"
                ));
            }
            c => {
                if literal.is_empty() {
                    if let Some(Part::Field(previous)) = parts.last() {
                        if c != DELIMITER {
                            return Err(format!(
                                "`{{{previous}}}` in {what} \"{source}\" is followed by `{c}`: a field must end the \
                                 template or be followed by `#`, so its end can be found; write `{{{previous}}}#...`"
                            ));
                        }
                    }
                }
                literal.push(c);
            }
        }
    }
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(Template {
        source: source.to_owned(),
        parts,
    })
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Part {
        Part::Literal(s.to_owned())
    }
    fn field(s: &str) -> Part {
        Part::Field(s.to_owned())
    }

    #[test]
    fn parses_literals_and_fields() {
        let t = parse("ORDER#{placed_at}#{order_id}", "sk template").unwrap();
        assert_eq!(
            t.parts,
            vec![
                lit("ORDER#"),
                field("placed_at"),
                lit("#"),
                field("order_id")
            ]
        );
        assert_eq!(
            parse("PROFILE", "sk template").unwrap().parts,
            vec![lit("PROFILE")]
        );
        assert_eq!(
            parse("{customer_id}", "pk template").unwrap().parts,
            vec![field("customer_id")]
        );
    }

    #[test]
    fn rejects_malformed_templates() {
        let e = |s| parse(s, "sk template").unwrap_err();
        assert!(e("ORDER#{}").contains("empty `{}`"));
        assert!(e("ORDER#{id").contains("unbalanced `{`"));
        assert!(e("ORDER#id}").contains("unbalanced `}`"));
        assert!(e("{a}{b}").contains("adjacent"));
        assert!(e("{a}-{b}").contains("followed by `-`"));
        assert!(e("").contains("empty"));
        assert!(e("X#{a b}").contains("not a field name"));
    }
}
