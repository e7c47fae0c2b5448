//! The reading of a request a dry run prints: the operation, then each part
//! it sends (table, index, keys, items, expressions, options) on a line of
//! its own, every value of a sensitive attribute redacted.

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::operation::{
    batch_get_item::BatchGetItemInput, batch_write_item::BatchWriteItemInput,
    delete_item::DeleteItemInput, get_item::GetItemInput, put_item::PutItemInput,
    query::QueryInput, scan::ScanInput, search_vectors::SearchVectorsInput,
    transact_get_items::TransactGetItemsInput, transact_write_items::TransactWriteItemsInput,
    update_item::UpdateItemInput,
};
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Put, ReturnConsumedCapacity, ReturnValue,
    ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use super::request::Request;
use super::resolve::{redacts, resolve, Compact, Names, Values};

/// Writes a reading of requests into `out`.
pub(super) struct Reading<'a, 'b> {
    pub(super) out: &'a mut fmt::Formatter<'b>,
    /// `None` when unknown: every value is then redacted.
    pub(super) sensitive: Option<&'a [&'static str]>,
}

impl Reading<'_, '_> {
    pub(super) fn request(&mut self, request: &Request) -> fmt::Result {
        writeln!(self.out, "{}", request.operation())?;
        match request {
            Request::QueryInput(q) => self.query(q),
            Request::ScanInput(s) => self.scan(s),
            Request::GetItemInput(g) => self.get_item(g),
            Request::PutItemInput(p) => self.put_item(p),
            Request::UpdateItemInput(u) => self.update_item(u),
            Request::DeleteItemInput(d) => self.delete_item(d),
            Request::BatchGetItemInput(b) => self.batch_get_item(b),
            Request::BatchWriteItemInput(b) => self.batch_write_item(b),
            Request::TransactGetItemsInput(t) => self.transact_get_items(t),
            Request::TransactWriteItemsInput(t) => self.transact_write_items(t),
            Request::SearchVectorsInput(s) => self.search_vectors(s),
        }
    }

    fn query(&mut self, q: &QueryInput) -> fmt::Result {
        let (n, v) = (
            q.expression_attribute_names(),
            q.expression_attribute_values(),
        );
        self.text("TableName", q.table_name())?;
        self.text("IndexName", q.index_name())?;
        self.expr("KeyConditionExpression", q.key_condition_expression(), n, v)?;
        self.expr("FilterExpression", q.filter_expression(), n, v)?;
        self.expr("ProjectionExpression", q.projection_expression(), n, v)?;
        self.shown("Select", q.select().map(|s| s.as_str()))?;
        self.shown("ScanIndexForward", q.scan_index_forward())?;
        self.shown("ConsistentRead", q.consistent_read())?;
        self.shown("Limit", q.limit())?;
        self.item("ExclusiveStartKey", q.exclusive_start_key())?;
        self.consumed_capacity(q.return_consumed_capacity())
    }

    fn scan(&mut self, s: &ScanInput) -> fmt::Result {
        let (n, v) = (
            s.expression_attribute_names(),
            s.expression_attribute_values(),
        );
        self.text("TableName", s.table_name())?;
        self.text("IndexName", s.index_name())?;
        self.expr("FilterExpression", s.filter_expression(), n, v)?;
        self.expr("ProjectionExpression", s.projection_expression(), n, v)?;
        self.shown("Segment", s.segment())?;
        self.shown("TotalSegments", s.total_segments())?;
        self.shown("ConsistentRead", s.consistent_read())?;
        self.shown("Limit", s.limit())?;
        self.item("ExclusiveStartKey", s.exclusive_start_key())?;
        self.consumed_capacity(s.return_consumed_capacity())
    }

    fn get_item(&mut self, g: &GetItemInput) -> fmt::Result {
        let n = g.expression_attribute_names();
        self.text("TableName", g.table_name())?;
        self.item("Key", g.key())?;
        self.expr("ProjectionExpression", g.projection_expression(), n, None)?;
        self.shown("ConsistentRead", g.consistent_read())?;
        self.consumed_capacity(g.return_consumed_capacity())
    }

    fn put_item(&mut self, p: &PutItemInput) -> fmt::Result {
        let (n, v) = (
            p.expression_attribute_names(),
            p.expression_attribute_values(),
        );
        self.text("TableName", p.table_name())?;
        self.item("Item", p.item())?;
        self.expr("ConditionExpression", p.condition_expression(), n, v)?;
        self.return_values(
            p.return_values(),
            p.return_values_on_condition_check_failure(),
        )?;
        self.consumed_capacity(p.return_consumed_capacity())
    }

    fn update_item(&mut self, u: &UpdateItemInput) -> fmt::Result {
        let (n, v) = (
            u.expression_attribute_names(),
            u.expression_attribute_values(),
        );
        self.text("TableName", u.table_name())?;
        self.item("Key", u.key())?;
        self.expr("UpdateExpression", u.update_expression(), n, v)?;
        self.expr("ConditionExpression", u.condition_expression(), n, v)?;
        self.return_values(
            u.return_values(),
            u.return_values_on_condition_check_failure(),
        )?;
        self.consumed_capacity(u.return_consumed_capacity())
    }

    fn delete_item(&mut self, d: &DeleteItemInput) -> fmt::Result {
        let (n, v) = (
            d.expression_attribute_names(),
            d.expression_attribute_values(),
        );
        self.text("TableName", d.table_name())?;
        self.item("Key", d.key())?;
        self.expr("ConditionExpression", d.condition_expression(), n, v)?;
        self.return_values(
            d.return_values(),
            d.return_values_on_condition_check_failure(),
        )?;
        self.consumed_capacity(d.return_consumed_capacity())
    }

    /// Each table's keys, tables in order of name.
    fn batch_get_item(&mut self, b: &BatchGetItemInput) -> fmt::Result {
        let mut tables: Vec<_> = b.request_items().into_iter().flatten().collect();
        tables.sort_by(|a, b| a.0.cmp(b.0));
        for (table, keys) in tables {
            writeln!(self.out, "  RequestItems[{table}]")?;
            for key in keys.keys() {
                self.item("  Key", Some(key))?;
            }
            let n = keys.expression_attribute_names();
            self.expr(
                "  ProjectionExpression",
                keys.projection_expression(),
                n,
                None,
            )?;
            self.shown("  ConsistentRead", keys.consistent_read())?;
        }
        self.consumed_capacity(b.return_consumed_capacity())
    }

    /// Each table's puts and deletes, tables in order of name.
    fn batch_write_item(&mut self, b: &BatchWriteItemInput) -> fmt::Result {
        let mut tables: Vec<_> = b.request_items().into_iter().flatten().collect();
        tables.sort_by(|a, b| a.0.cmp(b.0));
        for (table, writes) in tables {
            writeln!(self.out, "  RequestItems[{table}]")?;
            for write in writes {
                if let Some(put) = write.put_request() {
                    self.item("  PutRequest.Item", Some(put.item()))?;
                }
                if let Some(delete) = write.delete_request() {
                    self.item("  DeleteRequest.Key", Some(delete.key()))?;
                }
            }
        }
        self.consumed_capacity(b.return_consumed_capacity())
    }

    fn transact_get_items(&mut self, t: &TransactGetItemsInput) -> fmt::Result {
        for get in t.transact_items().iter().filter_map(|i| i.get()) {
            writeln!(self.out, "  Get")?;
            self.text("  TableName", Some(get.table_name()))?;
            self.item("  Key", Some(get.key()))?;
            let n = get.expression_attribute_names();
            self.expr(
                "  ProjectionExpression",
                get.projection_expression(),
                n,
                None,
            )?;
        }
        self.consumed_capacity(t.return_consumed_capacity())
    }

    fn transact_write_items(&mut self, t: &TransactWriteItemsInput) -> fmt::Result {
        for action in t.transact_items() {
            self.transact_action(action)?;
        }
        self.text("ClientRequestToken", t.client_request_token())?;
        self.consumed_capacity(t.return_consumed_capacity())
    }

    fn search_vectors(&mut self, s: &SearchVectorsInput) -> fmt::Result {
        let (n, v) = (
            s.expression_attribute_names(),
            s.expression_attribute_values(),
        );
        self.text("TableName", s.table_name())?;
        self.text("IndexName", s.index_name())?;
        writeln!(
            self.out,
            "  SearchVector: <{} dimensions>",
            s.search_vector().len()
        )?;
        self.shown("TopK", s.top_k())?;
        let condition = s.search_condition_expression();
        self.expr("SearchConditionExpression", condition, n, v)?;
        self.expr("ProjectionExpression", s.projection_expression(), n, v)?;
        self.consumed_capacity(s.return_consumed_capacity())
    }

    /// One action of a transaction: whichever of put, update, delete and
    /// condition check it holds.
    fn transact_action(&mut self, action: &TransactWriteItem) -> fmt::Result {
        if let Some(p) = action.put() {
            self.transact_put(p)?;
        }
        if let Some(u) = action.update() {
            self.transact_update(u)?;
        }
        if let Some(d) = action.delete() {
            self.transact_delete(d)?;
        }
        if let Some(c) = action.condition_check() {
            self.condition_check(c)?;
        }
        Ok(())
    }

    fn transact_put(&mut self, p: &Put) -> fmt::Result {
        let (n, v) = (
            p.expression_attribute_names(),
            p.expression_attribute_values(),
        );
        writeln!(self.out, "  Put")?;
        self.text("  TableName", Some(p.table_name()))?;
        self.item("  Item", Some(p.item()))?;
        self.expr("  ConditionExpression", p.condition_expression(), n, v)
    }

    fn transact_update(&mut self, u: &Update) -> fmt::Result {
        let (n, v) = (
            u.expression_attribute_names(),
            u.expression_attribute_values(),
        );
        writeln!(self.out, "  Update")?;
        self.text("  TableName", Some(u.table_name()))?;
        self.item("  Key", Some(u.key()))?;
        self.expr("  UpdateExpression", Some(u.update_expression()), n, v)?;
        self.expr("  ConditionExpression", u.condition_expression(), n, v)
    }

    fn transact_delete(&mut self, d: &Delete) -> fmt::Result {
        let (n, v) = (
            d.expression_attribute_names(),
            d.expression_attribute_values(),
        );
        writeln!(self.out, "  Delete")?;
        self.text("  TableName", Some(d.table_name()))?;
        self.item("  Key", Some(d.key()))?;
        self.expr("  ConditionExpression", d.condition_expression(), n, v)
    }

    fn condition_check(&mut self, c: &ConditionCheck) -> fmt::Result {
        let (n, v) = (
            c.expression_attribute_names(),
            c.expression_attribute_values(),
        );
        writeln!(self.out, "  ConditionCheck")?;
        self.text("  TableName", Some(c.table_name()))?;
        self.item("  Key", Some(c.key()))?;
        self.expr(
            "  ConditionExpression",
            Some(c.condition_expression()),
            n,
            v,
        )
    }

    /// What a single write asks back: `ReturnValues`, and
    /// `ReturnValuesOnConditionCheckFailure`.
    fn return_values(
        &mut self,
        values: Option<&ReturnValue>,
        on_failure: Option<&ReturnValuesOnConditionCheckFailure>,
    ) -> fmt::Result {
        self.shown("ReturnValues", values.map(|r| r.as_str()))?;
        self.shown(
            "ReturnValuesOnConditionCheckFailure",
            on_failure.map(|r| r.as_str()),
        )
    }

    fn consumed_capacity(&mut self, capacity: Option<&ReturnConsumedCapacity>) -> fmt::Result {
        self.shown("ReturnConsumedCapacity", capacity.map(|c| c.as_str()))
    }

    fn text(&mut self, label: &str, text: Option<&str>) -> fmt::Result {
        match text {
            Some(text) => writeln!(self.out, "  {label}: {text}"),
            None => Ok(()),
        }
    }

    fn shown(&mut self, label: &str, value: Option<impl fmt::Display>) -> fmt::Result {
        match value {
            Some(value) => writeln!(self.out, "  {label}: {value}"),
            None => Ok(()),
        }
    }

    /// A sensitive attribute, or an idempotency guard's fingerprint (a hash
    /// of the whole item: printed beside the other attributes, it would let
    /// a reader confirm a guessed sensitive value).
    fn is_sensitive(&self, attribute: &str) -> bool {
        attribute == crate::keys::guard::FINGERPRINT || redacts(self.sensitive, attribute)
    }

    /// An item or key, each sensitive attribute's value redacted.
    fn item(&mut self, label: &str, item: Option<&HashMap<String, AttributeValue>>) -> fmt::Result {
        let Some(item) = item else { return Ok(()) };
        let mut attributes: Vec<_> = item.iter().collect();
        attributes.sort_by(|a, b| a.0.cmp(b.0));
        write!(self.out, "  {label}: {{")?;
        for (i, (name, value)) in attributes.into_iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            if self.sensitive.is_none() {
                write!(self.out, "{sep}{name}: <value>")?;
            } else if self.is_sensitive(name) {
                write!(self.out, "{sep}{name}: <sensitive>")?;
            } else {
                write!(self.out, "{sep}{name}: {}", Compact(value))?;
            }
        }
        writeln!(self.out, " }}")
    }

    /// An expression, its placeholders resolved.
    fn expr(
        &mut self,
        label: &str,
        text: Option<&str>,
        names: Option<&Names>,
        values: Option<&Values>,
    ) -> fmt::Result {
        let Some(text) = text else { return Ok(()) };
        let resolved = resolve(text, names, values, self.sensitive);
        writeln!(self.out, "  {label}: {resolved}")
    }
}
