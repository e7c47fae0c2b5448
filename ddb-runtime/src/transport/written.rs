//! What a write request writes: each item it puts, updates or deletes,
//! named by its table and its key (or, for a put, the whole item), read
//! from the request ddb built.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemInputBuilder;
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::types::AttributeValue;

/// Called with each item a request writes: its table, and its key or the
/// whole item.
pub(crate) type Each<'a> = &'a mut dyn FnMut(&str, &HashMap<String, AttributeValue>);

fn one(table: &Option<String>, item: &Option<HashMap<String, AttributeValue>>, each: Each<'_>) {
    if let (Some(table), Some(item)) = (table, item) {
        each(table, item);
    }
}

pub(crate) fn put(input: &PutItemInputBuilder, each: Each<'_>) {
    one(input.get_table_name(), input.get_item(), each);
}

pub(crate) fn update(input: &UpdateItemInputBuilder, each: Each<'_>) {
    one(input.get_table_name(), input.get_key(), each);
}

pub(crate) fn delete(input: &DeleteItemInputBuilder, each: Each<'_>) {
    one(input.get_table_name(), input.get_key(), each);
}

pub(crate) fn batch(input: &BatchWriteItemInputBuilder, each: Each<'_>) {
    for (table, requests) in input.get_request_items().iter().flatten() {
        for request in requests {
            if let Some(put) = &request.put_request {
                each(table, &put.item);
            }
            if let Some(delete) = &request.delete_request {
                each(table, &delete.key);
            }
        }
    }
}

/// A transaction's puts, updates and deletes; a condition check writes
/// nothing.
pub(crate) fn transaction(input: &TransactWriteItemsInputBuilder, each: Each<'_>) {
    for action in input.get_transact_items().iter().flatten() {
        if let Some(put) = &action.put {
            each(&put.table_name, &put.item);
        }
        if let Some(update) = &action.update {
            each(&update.table_name, &update.key);
        }
        if let Some(delete) = &action.delete {
            each(&delete.table_name, &delete.key);
        }
    }
}
