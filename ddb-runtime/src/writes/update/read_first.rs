//! The item an update reads first, with the update applied to a local copy
//! of it.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Item;

use super::Op;

/// Applies one update change to a local copy of the item.
pub(super) fn apply(item: &mut Item, op: &Op) {
    use AttributeValue as V;
    match op {
        Op::Set(a, v) => {
            item.insert((*a).to_owned(), v.clone());
        }
        Op::Remove(a) => {
            item.remove(*a);
        }
        Op::Add(a, v) => {
            let next = match (item.get(*a), v) {
                (Some(V::N(x)), V::N(y)) => V::N(add_numbers(x, y)),
                (Some(V::Ss(x)), V::Ss(y)) => V::Ss(union(x, y)),
                (Some(V::Ns(x)), V::Ns(y)) => V::Ns(union(x, y)),
                (_, v) => v.clone(),
            };
            item.insert((*a).to_owned(), next);
        }
        Op::Append(a, v) => {
            let mut list = match item.get(*a) {
                Some(V::L(x)) => x.clone(),
                _ => Vec::new(),
            };
            if let V::L(more) = v {
                list.extend(more.iter().cloned());
            }
            item.insert((*a).to_owned(), V::L(list));
        }
        Op::DeleteFromSet(a, v) => {
            let next = match (item.get(*a), v) {
                (Some(V::Ss(x)), V::Ss(y)) => Some(V::Ss(
                    x.iter().filter(|e| !y.contains(e)).cloned().collect(),
                )),
                (Some(V::Ns(x)), V::Ns(y)) => Some(V::Ns(
                    x.iter().filter(|e| !y.contains(e)).cloned().collect(),
                )),
                _ => None,
            };
            if let Some(next) = next {
                item.insert((*a).to_owned(), next);
            }
        }
    }
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for e in b {
        if !out.contains(e) {
            out.push(e.clone());
        }
    }
    out
}

/// Adds two decimal numbers exactly when both are integers, else through f64.
fn add_numbers(a: &str, b: &str) -> String {
    match (a.parse::<i128>(), b.parse::<i128>()) {
        (Ok(x), Ok(y)) => (x + y).to_string(),
        _ => (a.parse::<f64>().unwrap_or(0.0) + b.parse::<f64>().unwrap_or(0.0)).to_string(),
    }
}
