//! Vector indexes in DynamoDB's own types: the `VectorIndexes` of
//! CreateTable and the `VectorIndexUpdates` of UpdateTable.

use crate::transport::table_operation::TableOperation;
use aws_sdk_dynamodb::types::{
    CreateVectorIndexAction, Projection as SdkProjection, ProjectionType, SearchSchemaElement,
    SearchSchemaElementType, VectorAttributeDefinition, VectorDistanceFunction, VectorIndex,
};

use aws_sdk_dynamodb::types::{AttributeDefinition, TableDescription, VectorIndexUpdate};
use aws_sdk_dynamodb::Client;

use crate::declaration::model::{DistanceFunction, IndexProjection, TableDef, VectorIndexDef};
use crate::error::Error;

use super::key_schema::scalar;
use super::projection::non_key_attributes;
use super::sync_plan::{SyncChange, SyncPlan};

/// The index's distance function, as the SDK names it.
pub(super) fn distance(distance: DistanceFunction) -> VectorDistanceFunction {
    match distance {
        DistanceFunction::Cosine => VectorDistanceFunction::Cosine,
        DistanceFunction::Euclidean => VectorDistanceFunction::Euclidean,
        DistanceFunction::DotProduct => VectorDistanceFunction::DotProduct,
    }
}

/// The search schema: the HASH attribute, then the INLINE_FILTER ones;
/// `None` when the index has neither.
fn search_schema(index: &VectorIndexDef) -> Option<Vec<SearchSchemaElement>> {
    let element = |name: &str, kind| {
        SearchSchemaElement::builder()
            .attribute_name(name)
            .search_schema_element_type(kind)
            .build()
            .expect("name and type are set")
    };
    let hash = index
        .hash
        .map(|hash| element(hash.name, SearchSchemaElementType::Hash));
    let filters = index
        .filters
        .iter()
        .map(|filter| element(filter.name, SearchSchemaElementType::InlineFilter));
    let schema: Vec<SearchSchemaElement> = hash.into_iter().chain(filters).collect();
    (!schema.is_empty()).then_some(schema)
}

/// The index's projection: an INCLUDE list names what the index holds
/// beside the table's keys and its search schema (the declared attributes,
/// and the entity type and schema version ddb adds to every list, so that
/// results can be told apart by entity); keys only is such a list of ddb's
/// two alone.
fn projection(index: &VectorIndexDef, table: &TableDef) -> SdkProjection {
    let of_kind = |kind| SdkProjection::builder().projection_type(kind);
    let listed = match index.projection {
        IndexProjection::All => return of_kind(ProjectionType::All).build(),
        IndexProjection::KeysOnly => &[],
        IndexProjection::Include(listed) => listed,
    };
    let table_key =
        |name: &str| name == table.pk.name || table.sk.is_some_and(|sk| sk.name == name);
    let non_key = non_key_attributes(listed, table, table_key);
    of_kind(ProjectionType::Include)
        .set_non_key_attributes(Some(non_key))
        .build()
}

/// The `VectorIndex` of CreateTable for `index`.
pub(crate) fn vector_index(index: &VectorIndexDef, table: &TableDef) -> VectorIndex {
    VectorIndex::builder()
        .index_name(index.name)
        .vector_attribute(vector_attribute(index))
        .set_search_schema(search_schema(index))
        .projection(projection(index, table))
        .dimensions(i64::from(index.dimensions))
        .distance_function(distance(index.distance))
        .build()
        .expect("name, dimensions and distance are set")
}

/// The `CreateVectorIndexAction` of UpdateTable for `index`: the same
/// settings as CreateTable's.
fn create_action(index: &VectorIndexDef, table: &TableDef) -> CreateVectorIndexAction {
    let declared = vector_index(index, table);
    CreateVectorIndexAction::builder()
        .index_name(declared.index_name())
        .set_vector_attribute(declared.vector_attribute().cloned())
        .set_search_schema(declared.search_schema.clone())
        .set_projection(declared.projection().cloned())
        .dimensions(declared.dimensions())
        .distance_function(declared.distance_function().clone())
        .build()
        .expect("name, dimensions and distance are set")
}

fn vector_attribute(index: &VectorIndexDef) -> VectorAttributeDefinition {
    VectorAttributeDefinition::builder()
        .attribute_name(index.vector)
        .build()
        .expect("the name is set")
}

/// The table's vector indexes against the code's: a missing one is added;
/// another vector attribute, dimension count, distance function or search
/// schema is a difference (DynamoDB cannot change an index in place), as is
/// one the code does not declare.
pub(super) fn plan_vector_indexes(
    plan: &mut SyncPlan,
    table: &TableDef,
    current: &TableDescription,
) {
    let described = current.vector_indexes();
    for index in table.vector_indexes {
        let Some(found) = described
            .iter()
            .find(|d| d.index_name() == Some(index.name))
        else {
            plan.changes.push(SyncChange::AddVectorIndex(index.name));
            continue;
        };
        let declared = vector_index(index, table);
        let mut differs = Vec::new();
        if found.dimensions() != Some(declared.dimensions()) {
            differs.push(format!(
                "{} dimensions in the table, {} in the code",
                found.dimensions().unwrap_or_default(),
                declared.dimensions()
            ));
        }
        if found.distance_function() != Some(declared.distance_function()) {
            differs.push(format!(
                "distance {} in the table, {} in the code",
                found
                    .distance_function()
                    .map(|d| d.as_str())
                    .unwrap_or_default(),
                declared.distance_function().as_str()
            ));
        }
        let attribute =
            |a: Option<&VectorAttributeDefinition>| a.map(|a| a.attribute_name().to_owned());
        if attribute(found.vector_attribute()) != attribute(declared.vector_attribute()) {
            differs.push("another vector attribute".to_owned());
        }
        let sorted = |schema: &[SearchSchemaElement]| {
            let mut names: Vec<String> = schema
                .iter()
                .map(|e| {
                    format!(
                        "{}:{}",
                        e.attribute_name(),
                        e.search_schema_element_type().as_str()
                    )
                })
                .collect();
            names.sort();
            names
        };
        if sorted(found.search_schema()) != sorted(declared.search_schema()) {
            differs.push("another search schema".to_owned());
        }
        let held = |projection: Option<&SdkProjection>| {
            let projection = projection?;
            let mut names = projection.non_key_attributes().to_vec();
            names.sort();
            Some((projection.projection_type().cloned(), names))
        };
        if held(found.projection()) != held(declared.projection()) {
            differs.push("another projection".to_owned());
        }
        if !differs.is_empty() {
            plan.differences.push(format!(
                "vector index {}: {}",
                index.name,
                differs.join(", ")
            ));
        }
    }
    for found in described {
        let name = found.index_name().unwrap_or_default();
        if table.vector_index(name).is_none() {
            plan.differences.push(format!(
                "vector index {name} is in the table and not in the code"
            ));
        }
    }
}

/// Adds vector index `index` to table `name` with UpdateTable, defining the
/// attributes of its search schema.
pub(super) async fn add_vector_index(
    client: &Client,
    table: &TableDef,
    index: &VectorIndexDef,
    name: &str,
) -> Result<(), Error> {
    let definitions: Vec<AttributeDefinition> = index
        .hash
        .iter()
        .chain(index.filters)
        .map(|a| {
            AttributeDefinition::builder()
                .attribute_name(a.name)
                .attribute_type(scalar(a.ty))
                .build()
                .expect("name and type are set")
        })
        .collect();
    let update = VectorIndexUpdate::builder()
        .create(create_action(index, table))
        .build();
    client
        .update_table()
        .table_name(name)
        .set_attribute_definitions((!definitions.is_empty()).then_some(definitions))
        .vector_index_updates(update)
        .send_on(client, name)
        .await?;
    Ok(())
}
