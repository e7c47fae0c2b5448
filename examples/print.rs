//! Aligned, titled text tables for the examples' output.

use std::fmt::Write;

/// A titled table with aligned columns and a footer line.
pub fn table(title: &str, headers: &[&str], rows: &[Vec<String>], footer: &str) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(width) = widths.get_mut(i) {
                *width = (*width).max(cell.chars().count());
            }
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut out = String::new();
        for (i, cell) in cells.enumerate() {
            let pad = widths[i].saturating_sub(cell.chars().count());
            let _ = write!(out, "{cell}{}  ", " ".repeat(pad));
        }
        out.trim_end().to_owned()
    };
    let mut out = format!("{title}\n");
    out.push_str(&line(&mut headers.iter().copied()));
    out.push('\n');
    out.push_str(&line(
        &mut widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str),
    ));
    out.push('\n');
    if rows.is_empty() {
        out.push_str("(no items)\n");
    }
    for row in rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
        out.push('\n');
    }
    if !footer.is_empty() {
        let _ = writeln!(out, "{footer}");
    }
    out
}

/// An instant as RFC 3339 (`2026-09-10T08:12:44Z`).
pub fn at(instant: time::OffsetDateTime) -> String {
    instant
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| instant.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn aligns_columns() {
        let text = super::table("T", &["a", "bb"], &[vec!["xyz".into(), "1".into()]], "done");
        assert_eq!(text, "T\na    bb\n---  --\nxyz  1\ndone\n");
    }
}
