//! Vector search: SearchVectors on one of a table's vector indexes, for the
//! items of an entity whose vectors are closest to a search vector, best
//! first.

use std::future::Future;
use std::marker::PhantomData;

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::search_vectors::builders::SearchVectorsFluentBuilder;
use aws_sdk_dynamodb::operation::search_vectors::SearchVectorsError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::db::Db;
use crate::declaration::model::{IndexProjection, ScalarType, VectorIndexDef};
use crate::entity::{Entity, Table};
use crate::error::{Error, Result};
use crate::expression::{Condition, Placeholders};
use crate::item::Item;
use crate::keys::key::Key;
use crate::reads::projection::Projection;
use crate::transport::attempts::Attempts;
use crate::transport::dry_run::sensitive_attributes;

/// DynamoDB's bounds on a search's `TopK`.
pub const MAX_TOP_K: u32 = 100;

/// A vector search as an entity's entry point makes it
/// (`Product::similar(&category, &embedding)`): the index, the value of its
/// search schema's hash attribute, and the search vector. Run it with
/// [`Db::search`].
#[must_use = "a search does nothing until it is sent with Db::search"]
pub struct VectorSearch<E> {
    index: &'static str,
    hash: Option<Result<AttributeValue>>,
    vector: Vec<f32>,
    entity: PhantomData<fn() -> E>,
}

/// The search of the generated entry point (`hash` encoded by its field's
/// own encoder).
#[doc(hidden)]
pub fn vector_search<E>(
    index: &'static str,
    hash: Option<Result<AttributeValue>>,
    vector: &[f32],
) -> VectorSearch<E> {
    VectorSearch {
        index,
        hash,
        vector: vector.to_vec(),
        entity: PhantomData,
    }
}

/// One result: the item (an entity, or a projection of it) and its score.
/// For COSINE and EUCLIDEAN a lower score is closer, for DOT_PRODUCT a
/// higher one ([`DistanceFunction`](crate::model::DistanceFunction)).
#[derive(Debug, Clone, PartialEq)]
pub struct Scored<T> {
    /// The item.
    pub item: T,
    /// Its score against the search vector.
    pub score: f64,
}

/// A search's answer: its results, best first, and what it consumed.
#[derive(Debug, Clone, PartialEq)]
pub struct Searched<T> {
    /// The results in DynamoDB's order, best first.
    pub results: Vec<Scored<T>>,
    /// The vector search request bytes DynamoDB reported (SearchVectors is
    /// billed by the bytes it scans, not by read units).
    pub search_bytes: f64,
}

/// A SearchVectors; set [`top_k`](Search::top_k) and a
/// [`filter`](Search::filter), then [`send`](Search::send),
/// [`project`](Search::project) or [`hydrate`](Search::hydrate).
#[must_use = "a search does nothing until it is sent"]
pub struct Search<E> {
    db: Db,
    search: VectorSearch<E>,
    top_k: u32,
    filter: Option<Condition<E>>,
}

impl Db {
    /// A vector search of `E`'s items (SearchVectors): the `top_k` closest
    /// (10 unless set).
    ///
    /// ```no_run
    /// # async fn demo(db: ddb_runtime::Db) -> ddb_runtime::Result<()> {
    /// # #[derive(ddb_runtime::Table)]
    /// # #[ddb(name = "Catalog", pk = "PK")]
    /// # #[ddb(vector_index(name = "ByEmbedding", vector = "embedding", dimensions = 3, distance = "cosine", hash = "category"))]
    /// # struct Catalog;
    /// # #[derive(ddb_runtime::Entity, serde::Serialize, serde::Deserialize)]
    /// # #[ddb(table = Catalog, entity = "Product", pk = "PRODUCT#{id}")]
    /// # struct Product {
    /// #     id: String,
    /// #     category: String,
    /// #     #[ddb(vector(index = "ByEmbedding", search = "similar", by = category))]
    /// #     embedding: Vec<f32>,
    /// # }
    /// let found = db
    ///     .search(Product::similar(&"lamps".to_string(), &[0.1, 0.7, 0.2]))
    ///     .top_k(5)
    ///     .send()
    ///     .await?;
    /// for hit in found.results {
    ///     println!("{} at {}", hit.item.id, hit.score);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn search<E: Entity + 'static>(&self, search: VectorSearch<E>) -> Search<E> {
        Search {
            db: self.clone(),
            search,
            top_k: 10,
            filter: None,
        }
    }
}

impl<E: Entity + 'static> Search<E> {
    /// How many results, 1 to [`MAX_TOP_K`]; another number is refused at
    /// send, before anything is sent.
    pub fn top_k(mut self, top_k: u32) -> Self {
        self.top_k = top_k;
        self
    }

    /// Keeps only the results `condition` holds for (DynamoDB's
    /// `SearchConditionExpression`, beside the hash value): `eq` comparisons
    /// joined by `&`, on the index's search schema (its `filters(...)`)
    /// only, as SearchVectors takes them; any other condition is refused
    /// before sending.
    pub fn filter(mut self, condition: Condition<E>) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(before) => before & condition,
            None => condition,
        });
        self
    }

    /// Sends it and decodes whole entities from the index, which must
    /// project every attribute (`projection = "all"`, the default); for
    /// another projection use [`project`](Self::project) or
    /// [`hydrate`](Self::hydrate), else it is refused before sending. An
    /// entity with schema versions is hydrated (its migrations may read any
    /// attribute of an older item, which the index does not return
    /// unasked). Items past their time to live are left out.
    pub async fn send(self) -> Result<Searched<E>> {
        self.whole().await
    }

    async fn whole(&self) -> Result<Searched<E>> {
        if E::SCHEMA.schema_version > 1 {
            return self.hydrated().await;
        }
        let (index, attributes) = self.whole_attributes()?;
        let (found, search_bytes) = self.request(index, Some(&attributes)).await?;
        let results = found
            .into_iter()
            .filter(|(item, _)| live_of::<E>(item))
            .map(|(item, score)| E::from_item(item).map(|item| Scored { item, score }))
            .collect::<Result<_>>()?;
        Ok(Searched {
            results,
            search_bytes,
        })
    }

    /// Sends it and decodes projection type `P`, asking the index only for
    /// its attributes; one the index does not carry is refused before
    /// sending. Items past their time to live are left out (when the index
    /// carries the time to live).
    pub async fn project<P: Projection<E>>(self) -> Result<Searched<P>> {
        self.projected().await
    }

    async fn projected<P: Projection<E>>(&self) -> Result<Searched<P>> {
        let (index, attributes) = self.projected_attributes::<P>()?;
        let (found, search_bytes) = self.request(index, Some(&attributes)).await?;
        let results = found
            .into_iter()
            .filter(|(item, _)| live_of::<E>(item))
            .map(|(item, score)| {
                crate::reads::projection::decode::<E, P>(item).map(|item| Scored { item, score })
            })
            .collect::<Result<_>>()?;
        Ok(Searched {
            results,
            search_bytes,
        })
    }

    /// Sends it for the keys, then reads the whole entities from the table
    /// (BatchGetItem): the way to read entities from an index that does not
    /// project them. An item deleted since the index was read is left out.
    pub async fn hydrate(self) -> Result<Searched<E>> {
        self.hydrated().await
    }

    async fn hydrated(&self) -> Result<Searched<E>> {
        let index = self.index()?;
        let attributes = Self::key_attributes();
        let db = &self.db;
        let (found, search_bytes) = self.request(index, Some(&attributes)).await?;
        let found: Vec<(Key<E>, f64)> = found
            .into_iter()
            .filter(|(item, _)| crate::reads::query::of_entity::<E>(item))
            .map(|(item, score)| Key::<E>::read_item(&item).map(|key| (key, score)))
            .collect::<Result<_>>()?;
        let keys: Vec<Key<E>> = found.iter().map(|(key, _)| key.clone()).collect();
        let mut entities: Vec<Option<(Item, E)>> = Vec::new();
        for entity in db.batch_get(keys).await? {
            let key = entity.primary_key()?.to_item();
            entities.push(Some((key, entity)));
        }
        let results = found
            .into_iter()
            .filter_map(|(key, score)| {
                let key = key.to_item();
                let at = entities
                    .iter()
                    .position(|e| e.as_ref().is_some_and(|(k, _)| *k == key))?;
                let (_, item) = entities[at].take()?;
                Some(Scored { item, score })
            })
            .collect();
        Ok(Searched {
            results,
            search_bytes,
        })
    }

    /// The index a search decoding projection `P` reads, checked to carry
    /// its attributes, and the attributes it asks for.
    fn projected_attributes<P: Projection<E>>(
        &self,
    ) -> Result<(&'static VectorIndexDef, Vec<&'static str>)> {
        let index = self.index()?;
        let table = E::SCHEMA.table;
        if let Some(missing) = P::ATTRIBUTES.iter().find(|a| !index.holds(table, a)) {
            return Err(self.invalid(format!(
                "the projection reads `{missing}`, which vector index `{}` does not carry",
                index.name
            )));
        }
        let mut attributes: Vec<&'static str> = P::ATTRIBUTES.to_vec();
        attributes.extend(table.added_to_include());
        let ttl = crate::item::timestamp::ttl_attribute(&E::SCHEMA);
        attributes.extend(ttl.filter(|ttl| index.holds(table, ttl)));
        Ok((index, attributes))
    }

    /// The index a whole-entity search reads, checked to project every
    /// attribute, and the attributes it asks for.
    fn whole_attributes(&self) -> Result<(&'static VectorIndexDef, Vec<&'static str>)> {
        let index = self.index()?;
        if index.projection != IndexProjection::All {
            return Err(self.invalid(format!(
                "vector index `{}` does not project every attribute: read it with \
                 .project::<P>() or .hydrate()",
                index.name
            )));
        }
        // SearchVectors returns the vector only when it is asked for: every
        // attribute the entity reads is.
        let table = E::SCHEMA.table;
        let mut attributes: Vec<&'static str> =
            E::SCHEMA.fields.iter().map(|f| f.attribute).collect();
        attributes.extend(
            [table.pk.name]
                .into_iter()
                .chain(table.sk.map(|sk| sk.name)),
        );
        attributes.extend(table.added_to_include());
        Ok((index, attributes))
    }

    /// The attributes a hydrating search asks of the index: the keys.
    fn key_attributes() -> Vec<&'static str> {
        let table = E::SCHEMA.table;
        let mut attributes: Vec<&'static str> = vec![table.pk.name, table.entity_attribute];
        attributes.extend(table.sk.map(|sk| sk.name));
        attributes
    }

    /// The SearchVectors [`send`](Self::send) (and [`hydrate`](Self::hydrate))
    /// sends first, not sent; checked as `send` checks it.
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(search: ddb_runtime::Search<E>) -> ddb_runtime::Result<()> {
    /// println!("{}", search.top_k(5).dry_run()?); // SearchVectors, TopK: 5
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run(&self) -> Result<crate::transport::dry_run::DryRun> {
        self.dry_run_of(self.whole())
    }

    /// The SearchVectors [`project::<P>()`](Self::project) sends, not sent;
    /// checked as `project` checks it.
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static, P: ddb_runtime::Projection<E>>(search: ddb_runtime::Search<E>) -> ddb_runtime::Result<()> {
    /// println!("{}", search.dry_run_project::<P>()?); // ProjectionExpression: P's attributes
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run_project<P: Projection<E>>(&self) -> Result<crate::transport::dry_run::DryRun> {
        self.dry_run_of(self.projected::<P>())
    }

    /// The SearchVectors [`hydrate`](Self::hydrate) sends first (for the
    /// keys; the BatchGetItem after it reads what it finds), not sent.
    ///
    /// ```no_run
    /// # fn demo<E: ddb_runtime::Entity + 'static>(search: ddb_runtime::Search<E>) -> ddb_runtime::Result<()> {
    /// println!("{}", search.dry_run_hydrate()?); // ProjectionExpression: the keys
    /// # Ok(())
    /// # }
    /// ```
    pub fn dry_run_hydrate(&self) -> Result<crate::transport::dry_run::DryRun> {
        self.dry_run_of(self.hydrated())
    }

    /// The dry run of `search`, a search of this one.
    fn dry_run_of<T>(
        &self,
        search: impl Future<Output = Result<T>>,
    ) -> Result<crate::transport::dry_run::DryRun> {
        let sensitive = sensitive_attributes(&E::SCHEMA).collect();
        self.db.dry_run(search, sensitive, false)
    }

    /// The index the search names, as the table declares it.
    fn index(&self) -> Result<&'static VectorIndexDef> {
        let table = &<E::Table as Table>::DEF;
        table
            .vector_indexes
            .iter()
            .find(|index| index.name == self.search.index)
            .ok_or_else(|| self.invalid(format!("no vector index `{}`", self.search.index)))
    }

    fn invalid(&self, reason: String) -> Error {
        Error::InvalidRequest {
            entity: E::SCHEMA.entity_type,
            reason,
        }
    }

    /// The SearchVectors request, checked.
    fn search_request(
        &self,
        index: &'static VectorIndexDef,
        attributes: Option<&[&str]>,
    ) -> Result<SearchVectorsFluentBuilder> {
        let entity = E::SCHEMA.entity_type;
        if !(1..=MAX_TOP_K).contains(&self.top_k) {
            return Err(self.invalid(format!(
                "a search returns 1 to {MAX_TOP_K} results, not {}",
                self.top_k
            )));
        }
        let vector = crate::item::vector::search_vector(entity, index, &self.search.vector)?;
        let mut p = Placeholders::default();
        let condition = match self.condition(index, &mut p)? {
            Some(text) => Some(p.fit(entity, "search condition", text)?),
            None => None,
        };
        let projection = match attributes {
            Some(a) => {
                let text = p.projection(a.iter().copied());
                Some(p.fit(entity, "projection", text)?)
            }
            None => None,
        };
        p.check(entity)?;
        let (names, values) = p.into_maps();
        Ok(self
            .db
            .client()
            .search_vectors()
            .table_name(self.db.table_name::<E::Table>())
            .index_name(index.name)
            .set_search_vector(Some(vector))
            .top_k(self.top_k as i32)
            .set_search_condition_expression(condition)
            .set_projection_expression(projection)
            .set_expression_attribute_names(names)
            .set_expression_attribute_values(values)
            .return_consumed_capacity(ReturnConsumedCapacity::Total))
    }

    /// The SearchVectors request, checked, sent: each result's item and
    /// score, and the search bytes consumed.
    async fn request(
        &self,
        index: &'static VectorIndexDef,
        attributes: Option<&[&str]>,
    ) -> Result<(Vec<(Item, f64)>, f64)> {
        let entity = E::SCHEMA.entity_type;
        let name = self.db.table_name::<E::Table>();
        let request = self.search_request(index, attributes)?;
        let span = self
            .db
            .span("SearchVectors", name, Some(index.name), entity);
        // A filling index refuses searches: ddb's reading of DynamoDB's
        // answer, which the span records both of.
        let failure = async |refused: SdkError<SearchVectorsError, HttpResponse>| {
            use aws_sdk_dynamodb::error::ProvideErrorMetadata;
            let filling = refused
                .as_service_error()
                .and_then(|service| service.message())
                .is_some_and(|m| m.starts_with("Cannot search backfilling vector index"));
            match filling {
                true => Error::IndexNotSearchable {
                    table: name.to_owned(),
                    index: index.name,
                },
                false => Error::sdk("SearchVectors", refused),
            }
        };
        let attempts = Attempts::default();
        let sdk = self.db.sdk();
        let output = sdk.send(&span, &attempts, request, failure).await?;
        let bytes = output
            .consumed_capacity
            .and_then(|c| c.vector_search_request_bytes)
            .unwrap_or(0.0);
        let found: Vec<(Item, f64)> = output
            .search_results
            .unwrap_or_default()
            .into_iter()
            .map(|hit| (hit.item.unwrap_or_default(), hit.score))
            .collect();
        Ok((found, bytes))
    }

    /// The `SearchConditionExpression`: the hash value (required when the
    /// index has a hash attribute), the entity type when the index filters
    /// on it, and the caller's filter, which may read only the search
    /// schema.
    fn condition(&self, index: &VectorIndexDef, p: &mut Placeholders) -> Result<Option<String>> {
        let table = E::SCHEMA.table;
        let mut parts: Vec<Condition<E>> = Vec::new();
        match (&index.hash, &self.search.hash) {
            (Some(hash), Some(value)) => {
                let value = match value {
                    Ok(value) => value.clone(),
                    Err(error) => return Err(self.invalid(error.to_string())),
                };
                let typed = match hash.ty {
                    ScalarType::S => value.is_s(),
                    ScalarType::N => value.is_n(),
                };
                if matches!(&value, AttributeValue::S(s) if s.is_empty()) {
                    return Err(self.invalid(format!(
                        "vector index `{}` partitions by `{}`: the search's value cannot be empty",
                        index.name, hash.name
                    )));
                }
                if !typed {
                    return Err(self.invalid(format!(
                        "vector index `{}` partitions by `{}`, a {}; the search's value is another type",
                        index.name,
                        hash.name,
                        hash.ty.as_str()
                    )));
                }
                parts.push(Condition::compare_value(hash.name, "=", value));
            }
            (Some(hash), None) => {
                return Err(self.invalid(format!(
                    "vector index `{}` partitions every search by `{}`: give its value",
                    index.name, hash.name
                )))
            }
            (None, _) => {}
        }
        if index
            .filters
            .iter()
            .any(|f| f.name == table.entity_attribute)
        {
            let own = AttributeValue::S(E::SCHEMA.entity_type.to_owned());
            parts.push(Condition::compare_value(table.entity_attribute, "=", own));
        }
        if let Some(filter) = &self.filter {
            self.check_filter(index, filter)?;
            parts.push(filter.clone());
        }
        let Some(condition) = parts.into_iter().reduce(|all, one| all & one) else {
            return Ok(None);
        };
        condition
            .render(p)
            .map(Some)
            .map_err(|reason| self.invalid(reason))
    }

    /// The filter is `=` comparisons on the index's search schema, each
    /// attribute once, none the hash attribute or an attribute ddb
    /// conditions itself (SearchVectors takes one condition per attribute).
    fn check_filter(&self, index: &VectorIndexDef, filter: &Condition<E>) -> Result<()> {
        filter
            .render(&mut Placeholders::default())
            .map_err(|reason| self.invalid(reason))?;
        if !filter.is_equalities() {
            return Err(self.invalid(
                "a vector search filters with `eq` comparisons joined by `&` only".into(),
            ));
        }
        let table = E::SCHEMA.table;
        let filters: Vec<&str> = index.filters.iter().map(|a| a.name).collect();
        let mut seen: Vec<&str> = Vec::new();
        for name in filter.compared() {
            let own = index.hash.is_some_and(|h| h.name == name) || name == table.entity_attribute;
            if own {
                return Err(self.invalid(format!(
                    "the filter compares `{name}`, which the search conditions itself (the \
                     hash value, or the entity type)"
                )));
            }
            if !filters.contains(&name) {
                return Err(self.invalid(format!(
                    "the filter reads `{name}`, which is not among vector index `{}`'s filters \
                     ({}); declare it in the index's filters(...)",
                    index.name,
                    filters.join(", ")
                )));
            }
            if seen.contains(&name) {
                return Err(self.invalid(format!(
                    "the filter compares `{name}` twice; SearchVectors takes one condition per \
                     attribute"
                )));
            }
            seen.push(name);
        }
        Ok(())
    }
}

/// Whether a result is an `E` that has not expired.
fn live_of<E: Entity>(item: &Item) -> bool {
    crate::reads::query::of_entity::<E>(item) && !crate::item::timestamp::expired(&E::SCHEMA, item)
}
