//! A typed scan resolved into what its requests send: the segments, the
//! filter (entity type, time to live, the caller's condition), the
//! projection, and the fingerprint its cursors carry.

use std::fmt::Write as _;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expression::{Expression, Placeholders};
use crate::reads::cursor;
use crate::reads::query::Decode;
use crate::reads::scan::request::ScanRequest;
use crate::reads::scan::{Scan, MAX_SEGMENTS};

/// Everything a scan's requests need, resolved from the builder.
pub(super) struct ScanPlan {
    /// Every request's settings, but the segment, the `Limit` and the start.
    pub(super) request: ScanRequest,
    /// The attributes of the table's key: what a cursor's positions hold.
    pub(super) key_attributes: Vec<&'static str>,
    pub(super) fingerprint: String,
    pub(super) cursor_keys: Option<std::sync::Arc<crate::db::CursorKeys>>,
    /// Read one item past a limited page, so that the page knows whether
    /// more follow.
    pub(super) exact_end: bool,
}

impl<E, D> Scan<E, D>
where
    E: Entity + Send + 'static,
    D: Decode<E>,
{
    /// The plan, or why the scan cannot be sent (nothing is).
    pub(super) fn plan(&self) -> Result<ScanPlan> {
        self.plan_of(false)
    }

    /// The plan of a count: `Select: COUNT`, no projection.
    pub(super) fn count_plan(&self) -> Result<ScanPlan> {
        self.plan_of(true)
    }

    fn plan_of(&self, count: bool) -> Result<ScanPlan> {
        let schema = &E::SCHEMA;
        let invalid = |reason: String| Error::InvalidRequest {
            entity: schema.entity_type,
            reason,
        };
        if !(1..=MAX_SEGMENTS).contains(&self.segments) {
            return Err(invalid(format!(
                "a scan reads 1 to {MAX_SEGMENTS} segments, not {}",
                self.segments
            )));
        }
        self.options.check_limit(schema.entity_type)?;
        let table = schema.table;
        let mut key_attributes = vec![table.pk.name];
        key_attributes.extend(table.sk.map(|a| a.name));
        let mut p = Placeholders::default();
        let filter = self.filter_expression().render(&mut p).map_err(invalid)?;
        let projected = self.projected_attributes().filter(|_| !count);
        let projection = projected.map(|attributes| {
            let attributes = attributes.iter().chain(&key_attributes);
            p.projection(attributes.copied())
        });
        p.check(schema.entity_type)?;
        let filter = p.fit(schema.entity_type, "filter", filter)?;
        let projection = projection
            .map(|f| p.fit(schema.entity_type, "projection", f))
            .transpose()?;
        let fingerprint = self.fingerprint(&filter, projection.as_deref());
        let (names, values) = p.into_maps();
        Ok(ScanPlan {
            request: ScanRequest {
                entity: schema.entity_type,
                table_name: self.db.table_name::<E::Table>().to_owned(),
                segments: self.segments,
                consistent: self.consistent,
                filter: Some(filter),
                projection,
                names,
                values,
                count,
                ..Default::default()
            },
            key_attributes,
            fingerprint,
            cursor_keys: self.db.cursor_keys(),
            exact_end: self.options.exact_end,
        })
    }

    /// The entity type (always: the table holds other entities and guard
    /// items), the time to live, and the caller's condition, joined with
    /// `AND`.
    fn filter_expression(&self) -> Expression {
        let schema = &E::SCHEMA;
        let type_filter = Expression::compare(
            schema.table.entity_attribute,
            "=",
            AttributeValue::S(schema.entity_type.to_owned()),
        );
        let ttl = crate::item::timestamp::ttl_attribute(schema);
        self.options.filters(ttl).fold(type_filter, Expression::and)
    }

    /// The attributes of the projection expression, when the decoding reads
    /// only some: its own, the entity type (the decoding checks it) and the
    /// schema version.
    fn projected_attributes(&self) -> Option<Vec<&'static str>> {
        self.decode.attributes().map(|attributes| {
            let mut list = attributes.to_vec();
            list.push(E::SCHEMA.table.entity_attribute);
            list.push(crate::item::stored::SCHEMA_VERSION_ATTRIBUTE);
            list
        })
    }

    /// What a cursor of this scan is checked against: the entity type,
    /// "scan" (no query's cursor matches), the segments, the filter's text
    /// and the projection. The filter's values are left out: a fingerprint
    /// of a few values could be reversed by trying them, and a position is
    /// a table key, valid whatever the values.
    fn fingerprint(&self, filter: &str, projection: Option<&str>) -> String {
        let mut print = cursor::Fingerprint::default();
        print.part(E::SCHEMA.entity_type);
        print.part("scan");
        let _ = write!(print, "{}", self.segments);
        print.end_part();
        print.part(filter);
        print.part(projection.unwrap_or(""));
        print.finish()
    }
}
