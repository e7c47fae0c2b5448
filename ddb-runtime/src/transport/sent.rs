//! What a write sent, read back from the JSON body of its request.
//!
//! A write's item moves into its request. The two things that need it again
//! afterwards are rare: a create whose condition failed compares the item it
//! met with its own, and a transaction sent again after a conflict sends the
//! same actions. Both read them back from the body their attempts kept
//! ([`Attempts::keeping_sent`](super::Attempts::keeping_sent)) instead of
//! copying every item before every send. When the caller's client has
//! interceptors of its own, which may have rewritten the body
//! ([`Sdk::intercepted`](crate::sdk::Sdk::intercepted)), a transaction
//! keeps a copy to send again (its interceptors would rewrite the body a
//! second time), and a create keeps its item too, comparing the item it
//! meets with both.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};
use serde::Deserialize;

use crate::item::Item;

/// An item as DynamoDB's JSON protocol writes it.
type WireItem = HashMap<String, serde_dynamo::AttributeValue>;

fn item(wire: WireItem) -> Item {
    wire.into_iter()
        .map(|(name, value)| (name, AttributeValue::from(value)))
        .collect()
}

/// The item a PutItem body carries, or the first action of a
/// TransactWriteItems body when it is a put (an exactly-once create).
pub(crate) fn put_item(body: &[u8]) -> Option<Item> {
    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct Body {
        item: Option<WireItem>,
        transact_items: Option<Vec<SentAction>>,
    }
    let body: Body = serde_json::from_slice(body).ok()?;
    let wire = match (body.item, body.transact_items) {
        (Some(item), _) => item,
        (None, Some(actions)) => actions.into_iter().next()?.put?.item?,
        (None, None) => return None,
    };
    Some(item(wire))
}

/// The actions of a TransactWriteItems body, to send again. `None` when
/// the body holds anything ddb does not send (refused rather than dropped:
/// an action sent again is exactly the one sent first).
pub(crate) fn transact_items(body: &[u8]) -> Option<Vec<TransactWriteItem>> {
    #[derive(Deserialize)]
    #[serde(rename_all = "PascalCase", deny_unknown_fields)]
    struct Body {
        transact_items: Vec<SentAction>,
        #[allow(dead_code)]
        client_request_token: Option<String>,
        #[allow(dead_code)]
        return_consumed_capacity: Option<String>,
    }
    let body: Body = serde_json::from_slice(body).ok()?;
    body.transact_items
        .into_iter()
        .map(SentAction::into_transact_item)
        .collect()
}

/// One action of a TransactWriteItems body.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct SentAction {
    put: Option<SentWrite>,
    update: Option<SentWrite>,
    delete: Option<SentWrite>,
    condition_check: Option<SentWrite>,
}

/// What every action ddb sends carries (an update its expression, a put its
/// item, the others their key).
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct SentWrite {
    table_name: String,
    item: Option<WireItem>,
    key: Option<WireItem>,
    update_expression: Option<String>,
    condition_expression: Option<String>,
    expression_attribute_names: Option<HashMap<String, String>>,
    expression_attribute_values: Option<WireItem>,
    return_values_on_condition_check_failure: Option<String>,
}

/// The fields every action sets the same way, in the SDK builders'
/// method names.
macro_rules! common {
    ($builder:expr, $write:expr) => {
        $builder
            .table_name($write.table_name)
            .set_condition_expression($write.condition_expression)
            .set_expression_attribute_names($write.expression_attribute_names)
            .set_expression_attribute_values($write.expression_attribute_values.map(item))
            .set_return_values_on_condition_check_failure(
                $write
                    .return_values_on_condition_check_failure
                    .map(|r| ReturnValuesOnConditionCheckFailure::from(r.as_str())),
            )
    };
}

impl SentAction {
    fn into_transact_item(self) -> Option<TransactWriteItem> {
        let action = TransactWriteItem::builder();
        let action = match self {
            Self {
                put: Some(put),
                update: None,
                delete: None,
                condition_check: None,
            } if put.key.is_none() && put.update_expression.is_none() => {
                let item = put.item.map(item);
                action.put(common!(Put::builder().set_item(item), put).build().ok()?)
            }
            Self {
                put: None,
                update: Some(update),
                delete: None,
                condition_check: None,
            } if update.item.is_none() => {
                let key = update.key.map(item);
                let expression = update.update_expression;
                let builder = Update::builder()
                    .set_key(key)
                    .set_update_expression(expression);
                action.update(common!(builder, update).build().ok()?)
            }
            Self {
                put: None,
                update: None,
                delete: Some(delete),
                condition_check: None,
            } if delete.item.is_none() && delete.update_expression.is_none() => {
                let key = delete.key.map(item);
                action.delete(
                    common!(Delete::builder().set_key(key), delete)
                        .build()
                        .ok()?,
                )
            }
            Self {
                put: None,
                update: None,
                delete: None,
                condition_check: Some(check),
            } if check.item.is_none() && check.update_expression.is_none() => {
                let key = check.key.map(item);
                let builder = ConditionCheck::builder().set_key(key);
                action.condition_check(common!(builder, check).build().ok()?)
            }
            _ => return None,
        };
        Some(action.build())
    }
}
