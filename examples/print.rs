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

/// A pattern's footer: items, read capacity and requests.
pub fn cost<T>(outcome: &crate::Outcome<T>) -> String {
    totals(
        outcome.items.len(),
        outcome.consumed_capacity,
        outcome.requests,
    )
}

/// The same footer from totals.
pub fn totals(items: usize, consumed_capacity: f64, requests: u32) -> String {
    format!("{items} item(s), {consumed_capacity:.1} RCU, {requests} request(s)")
}

/// A row of the order tables.
pub fn order_row(
    order: &str,
    customer: &str,
    placed_at: time::OffsetDateTime,
    status: crate::OrderStatus,
    total_cents: u64,
) -> Vec<String> {
    vec![
        order.to_owned(),
        customer.to_owned(),
        at(placed_at),
        format!("{status:?}").to_uppercase(),
        format!("{:.2}", total_cents as f64 / 100.0),
    ]
}

/// The columns of [`order_row`].
pub const ORDER_COLUMNS: [&str; 5] = ["order", "customer", "placed at", "status", "total"];

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
