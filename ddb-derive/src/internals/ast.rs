//! The validated model of an entity, built from syn's input and the raw
//! attributes. Rules that span several attributes are in `valid.rs`.

use quote::ToTokens;
use syn::{Data, DeriveInput, Fields, Ident, Path, Type};

use super::attr;
use super::ctxt::Ctxt;
use super::meta::Attr;
use super::serde_attr::{self, attribute_name};
use super::template::{self, Template};

pub struct Entity<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub table: Path,
    pub entity_type: String,
    /// The primary key first, then one per index; empty when the primary
    /// key could not be read (see `from_input`).
    pub keys: Vec<Key>,
    /// Indexes keyed by the entity's own fields (multi-attribute keys).
    pub multi_attribute_keys: Vec<MultiAttributeKey>,
    pub fields: Vec<Field<'a>>,
    /// `#[serde(skip)]` fields: never stored, so not attributes.
    pub skipped: Vec<&'a Ident>,
    /// The serde attributes of each skipped field (its `default`), in order.
    pub skipped_serde: Vec<serde_attr::SerdeConversion>,
    /// Container serde attributes ddb cannot follow.
    pub serde_refused: Vec<Attr<String>>,
    /// The container's serde attributes, for the generated conversion.
    pub serde_conversion: serde_attr::SerdeConversion,
    /// `schema_version = N`, and the migrations from each older version.
    pub schema: Option<Schema>,
    /// The unique constraints: field-level `unique` first, in field order,
    /// then the container's `unique(a, b)`, in order.
    pub unique: Vec<Unique>,
    /// `scan`: the entity is read by a Scan (`Db::scan`).
    pub scan: bool,
}

/// Fields whose values, together, no two items of the entity share, and
/// how values compare.
pub struct Unique {
    pub fields: Vec<Ident>,
    /// `ignore_case`: values compare lowercased.
    pub ignore_case: Option<Attr<()>>,
    /// `normalize = path`: the function each value goes through first.
    pub normalize: Option<Attr<Path>>,
    /// `allow_empty`: an empty value is a value like any other.
    pub allow_empty: bool,
    /// The attribute that declared it, for errors.
    pub tokens: proc_macro2::TokenStream,
}

impl Unique {
    /// The constraint's name: its fields joined by `_` (`email`,
    /// `tenant_id_email`); its lookup is `by_<name>`.
    pub fn name(&self) -> String {
        let names: Vec<String> = self.fields.iter().map(Ident::to_string).collect();
        names.join("_")
    }
}

/// A versioned entity: today's schema version and the migration from each
/// older one, in order (checked: `from` = 1, 2, ... N-1, each once).
pub struct Schema {
    pub version: u32,
    pub migrations: Vec<(u32, Path)>,
}

/// `index(name = "...", pk(a, b), sk(c, d))`: a global index whose key is
/// the entity's own attributes, which DynamoDB keeps.
pub struct MultiAttributeKey {
    pub index: Attr<String>,
    pub pk: Attr<Vec<Ident>>,
    pub sk: Option<Attr<Vec<Ident>>>,
    pub query: Option<Attr<String>>,
}

impl MultiAttributeKey {
    /// The partition fields, then the sort fields.
    pub fn fields(&self) -> impl Iterator<Item = &Ident> {
        self.pk
            .value
            .iter()
            .chain(self.sk.iter().flat_map(|sk| &sk.value))
    }
}

pub struct Key {
    /// `None` for the primary key.
    pub index: Option<Attr<String>>,
    pub pk: Attr<Template>,
    /// True for a local index: its partition key is the primary key's.
    pub pk_from_primary: bool,
    pub sk: Option<Attr<Template>>,
    pub query: Option<Attr<String>>,
    pub shards: u16,
    /// A sparse index's membership rule.
    pub when: Option<Attr<attr::RawWhen>>,
}

impl Key {
    /// Every field of the partition then the sort key, each once, in order.
    pub fn fields(&self) -> Vec<&str> {
        let mut fields: Vec<&str> = Vec::new();
        let sk = self.sk.iter().flat_map(|sk| sk.value.fields());
        for field in self.pk.value.fields().chain(sk) {
            if !fields.contains(&field) {
                fields.push(field);
            }
        }
        fields
    }

    /// The fields the key is built from: its templates' fields, then those
    /// its membership rule reads, each once (the runtime's
    /// `KeyDef::input_fields`).
    pub fn inputs(&self) -> Vec<String> {
        let mut inputs: Vec<String> = self.fields().iter().map(|f| f.to_string()).collect();
        for field in self.when_reads() {
            let field = field.to_string();
            if !inputs.contains(&field) {
                inputs.push(field);
            }
        }
        inputs
    }

    /// The fields a sparse index's membership rule reads.
    pub fn when_reads(&self) -> Vec<&syn::Ident> {
        match self.when.as_ref().map(|w| &w.value) {
            Some(attr::RawWhen::Field { field, .. }) => vec![field],
            Some(attr::RawWhen::Function { reads, .. }) => reads.iter().collect(),
            None => Vec::new(),
        }
    }
}

pub struct Field<'a> {
    pub ident: &'a Ident,
    pub vis: &'a syn::Visibility,
    pub ty: &'a Type,
    pub attribute: String,
    pub raw: attr::RawField,
}

impl<'a> Entity<'a> {
    pub fn field(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.ident == name)
    }

    /// The model of `input`. When its primary key cannot be read (not a
    /// struct with named fields, no table, a wrong `pk`: each reported),
    /// the model has no keys and serves only the stand-in that
    /// `expand::fallback` emits beside the errors.
    pub fn from_input(cx: &Ctxt, input: &'a DeriveInput) -> Self {
        let mut entity = Entity {
            ident: &input.ident,
            vis: &input.vis,
            table: syn::parse_quote!(::ddb_runtime::__private::NoTable),
            entity_type: input.ident.to_string(),
            keys: Vec::new(),
            multi_attribute_keys: Vec::new(),
            fields: Vec::new(),
            skipped: Vec::new(),
            skipped_serde: Vec::new(),
            serde_refused: Vec::new(),
            serde_conversion: serde_attr::SerdeConversion::default(),
            schema: None,
            unique: Vec::new(),
            scan: false,
        };
        let Some(named) = named_fields(cx, input) else {
            return entity;
        };
        let raw = attr::parse_entity(cx, &input.attrs);
        let StoredFields {
            fields,
            skipped,
            skipped_serde,
        } = stored_fields(cx, named, &raw);
        entity.fields = fields;
        entity.skipped = skipped;
        entity.skipped_serde = skipped_serde;
        entity.serde_conversion = raw.conversion.clone();
        entity.scan = raw.scan.is_some();
        entity.entity_type = entity_type(cx, input, &raw);

        let Some(table) = raw.table.clone() else {
            if !raw.had_unknown_key {
                cx.error_spanned_by(
                    &input.ident,
                    "missing #[ddb(table = ...)]: name the #[derive(Table)] type that stores this entity, e.g. #[ddb(table = Ecommerce, pk = \"CUSTOMER#{customer_id}\")]",
                );
            }
            return entity;
        };
        entity.table = table.value;
        let Some(primary) = primary_key(cx, input, &raw) else {
            return entity;
        };
        let pk = primary.pk.clone();
        entity.keys.push(primary);
        for index in &raw.indexes {
            let Some(name) = &index.name else {
                cx.error_spanned_by(
                    &index.tokens,
                    "index(...) needs `name = \"...\"`, the index name declared on the table",
                );
                continue;
            };
            if let Some(key) = multi_attribute_key(cx, name, index) {
                entity.multi_attribute_keys.extend(key);
                continue;
            }
            entity.keys.extend(template_key(cx, name, index, &pk));
        }
        entity.schema = schema(cx, &raw);
        entity.unique = unique_constraints(&entity.fields, &raw);
        entity.serde_refused = raw.serde_refused;
        entity
    }

    /// Whether the primary key was read: only then is the model whole
    /// enough to check and to generate the entity's code from.
    pub fn has_keys(&self) -> bool {
        !self.keys.is_empty()
    }
}

/// Field-level `unique` first, then the container's `unique(...)`.
fn unique_constraints(fields: &[Field], raw: &attr::RawEntity) -> Vec<Unique> {
    let constraint = |fields: Vec<Ident>, unique: &Attr<attr::RawUnique>| Unique {
        fields,
        ignore_case: unique.value.ignore_case.clone(),
        normalize: unique.value.normalize.clone(),
        allow_empty: unique.value.allow_empty.is_some(),
        tokens: unique.tokens.clone(),
    };
    let on_fields = fields.iter().filter_map(|field| {
        let unique = field.raw.unique.as_ref()?;
        Some(constraint(vec![field.ident.clone()], unique))
    });
    let on_entity = raw
        .unique
        .iter()
        .map(|unique| constraint(unique.value.fields.clone(), unique));
    on_fields.chain(on_entity).collect()
}

/// The struct's named fields; `None` (reported) for any other input. A
/// generic struct is reported and read on.
fn named_fields<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Option<&'a syn::FieldsNamed> {
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => Some(named),
            _ => None,
        },
        _ => None,
    };
    let Some(named) = named else {
        cx.error_spanned_by(
            &input.ident,
            "#[derive(Entity)] needs a struct with named fields",
        );
        return None;
    };
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(
            &input.generics,
            "#[derive(Entity)] does not support generic structs",
        );
    }
    Some(named)
}

/// The fields an item stores, and the `#[serde(skip)]` ones beside.
struct StoredFields<'a> {
    fields: Vec<Field<'a>>,
    skipped: Vec<&'a Ident>,
    skipped_serde: Vec<serde_attr::SerdeConversion>,
}

/// Each field with its attributes and attribute name; a skipped field
/// cannot have a role ddb keeps.
fn stored_fields<'a>(
    cx: &Ctxt,
    named: &'a syn::FieldsNamed,
    raw: &attr::RawEntity,
) -> StoredFields<'a> {
    let mut skipped = Vec::new();
    let mut skipped_serde = Vec::new();
    let fields = named
        .named
        .iter()
        .filter_map(|field| {
            let ident = field.ident.as_ref()?;
            let raw_field = attr::parse_field(cx, &field.attrs);
            if let Some(skip) = &raw_field.serde_skip {
                let roles = [
                    &raw_field.version,
                    &raw_field.ttl,
                    &raw_field.created_at,
                    &raw_field.updated_at,
                ];
                if roles.iter().any(|r| r.is_some()) {
                    cx.error_spanned_by(
                        &skip.tokens,
                        format!("field `{ident}` is #[serde(skip)], never stored, so ddb cannot keep its version, time to live or timestamps; remove one of the two"),
                    );
                }
                skipped.push(ident);
                skipped_serde.push(raw_field.conversion.clone());
                return None;
            }
            let attribute = attribute_name(
                ident,
                raw_field.serde_rename.as_deref(),
                raw.serde_rename_all.as_deref(),
            );
            Some(Field {
                ident,
                vis: &field.vis,
                ty: &field.ty,
                attribute,
                raw: raw_field,
            })
        })
        .collect();
    StoredFields {
        fields,
        skipped,
        skipped_serde,
    }
}

/// The primary key, from the container's `pk`, `sk` and `query`; `None`
/// when `pk` is missing or wrong (reported unless an unknown key was).
fn primary_key(cx: &Ctxt, input: &DeriveInput, raw: &attr::RawEntity) -> Option<Key> {
    let Some(pk) = raw
        .pk
        .as_ref()
        .and_then(|pk| parse_template(cx, pk, "pk template"))
    else {
        if raw.pk.is_none() && !raw.had_unknown_key {
            cx.error_spanned_by(
                &input.ident,
                "missing #[ddb(pk = \"...\")]: give the partition key template, e.g. pk = \"CUSTOMER#{customer_id}\"",
            );
        }
        return None;
    };
    let sk = raw
        .sk
        .as_ref()
        .map(|sk| parse_template(cx, sk, "sk template"));
    Some(Key {
        index: None,
        pk,
        pk_from_primary: false,
        sk: sk.flatten(),
        query: raw.query.as_ref().map(string_attr),
        shards: 1,
        when: None,
    })
}

/// An index keyed by templates; `None` when one is wrong (reported). With
/// no `pk` it is a local index, on the primary partition key `pk`.
fn template_key(
    cx: &Ctxt,
    name: &Attr<syn::LitStr>,
    index: &attr::RawIndex,
    pk: &Attr<Template>,
) -> Option<Key> {
    let what = |part: &str| format!("{part} template of index `{}`", name.value.value());
    let (index_pk, pk_from_primary) = match &index.pk {
        Some(template) => (parse_template(cx, template, &what("pk"))?, false),
        // A local secondary index shares the table's partition key.
        None => (pk.clone(), true),
    };
    let index_sk = match &index.sk {
        Some(template) => Some(parse_template(cx, template, &what("sk"))?),
        None => None,
    };
    let shards = shards(cx, index);
    if shards > 1 && pk_from_primary {
        cx.error_spanned_by(
            &index.tokens,
            "a local index (no `pk`) shares the table's partition key and cannot be sharded",
        );
    }
    Some(Key {
        index: Some(string_attr(name)),
        pk: index_pk,
        pk_from_primary,
        sk: index_sk,
        query: index.query.as_ref().map(string_attr),
        shards,
        when: index.when.clone(),
    })
}

/// An index's `shards`: 1 when absent, or out of range (reported, and 1
/// stands in).
fn shards(cx: &Ctxt, index: &attr::RawIndex) -> u16 {
    match &index.shards {
        Some(shards) => match shards.value.base10_parse::<u16>() {
            Ok(n) if (1..=1000).contains(&n) => n,
            _ => {
                cx.error_with_stand_in(
                    &shards.tokens,
                    "shards must be a whole number from 1 to 1000",
                );
                1
            }
        },
        None => 1,
    }
}

/// The entity type stored in every item: `entity = "..."`, required, not
/// empty, not ddb's own, and without the key delimiter `#`. When it is
/// missing or wrong (reported), the struct's name stands in, so the rest
/// of the entity's code is generated and the error is the only one.
fn entity_type(cx: &Ctxt, input: &DeriveInput, raw: &attr::RawEntity) -> String {
    let stand_in = input.ident.to_string();
    let Some(entity) = &raw.entity else {
        if !raw.had_unknown_key {
            cx.error_with_stand_in(
                &input.ident,
                format!(
                    "missing `entity = \"...\"` in #[ddb(...)]: ddb stores this name in every item as its \
                     entity type, so it must not change when the struct is renamed; name it once, e.g. \
                     #[ddb(table = ..., entity = \"{}\", ...)] (see the attribute reference on \
                     `ddb_runtime::Entity`)",
                    input.ident
                ),
            );
        }
        return stand_in;
    };
    let entity_type = entity.value.value();
    let wrong = if entity_type.is_empty() {
        "the entity type cannot be empty".to_owned()
    } else if entity_type.starts_with("_ddb") {
        format!(
            "the entity type `{entity_type}` starts with `_ddb`, which ddb keeps for its own items \
             (the guards of unique values and idempotency keys are `_ddb.guard`); choose another name"
        )
    } else if entity_type.contains('#') {
        format!(
            "the entity type `{entity_type}` holds `#`, the delimiter of ddb's keys: the keys of \
             its guards (`_DDB#UNIQUE#{entity_type}#...`) would start with another entity's \
             (`_DDB#UNIQUE#{}#...`), and no IAM policy could grant one without the other; \
             choose a name without `#`",
            entity_type.split('#').next().unwrap_or_default()
        )
    } else {
        return entity_type;
    };
    cx.error_with_stand_in(&entity.tokens, wrong);
    stand_in
}

/// An index declared with field lists, `pk(a, b)` and `sk(c, d)`: `None`
/// when it uses templates; `Some(None)` when it mixes the two (reported).
fn multi_attribute_key(
    cx: &Ctxt,
    name: &Attr<syn::LitStr>,
    index: &attr::RawIndex,
) -> Option<Option<MultiAttributeKey>> {
    if index.pk_fields.is_none() && index.sk_fields.is_none() {
        return None;
    }
    let index_name = name.value.value();
    let mixed = [index.pk.as_ref(), index.sk.as_ref()].into_iter().flatten();
    for template in mixed {
        cx.error_spanned_by(
            &template.tokens,
            format!(
                "index `{index_name}` names its key fields, pk(a, b) and sk(c, d), so it cannot also take a template; \
                 use fields for a multi-attribute key, or templates for a synthetic key"
            ),
        );
    }
    if let Some(shards) = &index.shards {
        cx.error_spanned_by(
            &shards.tokens,
            "a multi-attribute key is the items' own attributes and cannot be write-sharded; shard a synthetic key (pk = \"...\") instead",
        );
    }
    if let Some(when) = &index.when {
        cx.error_spanned_by(
            &when.tokens,
            "a multi-attribute key holds exactly the items that have all its attributes: leave an attribute out (None) to keep an item out, rather than when(...)",
        );
    }
    let Some(pk) = index.pk_fields.clone() else {
        cx.error_spanned_by(
            &index.tokens,
            format!("index `{index_name}` names sort key fields but no partition key fields: add pk(field, ...)"),
        );
        return Some(None);
    };
    let sides = [Some(&pk), index.sk_fields.as_ref()];
    for side in sides.into_iter().flatten() {
        if side.value.is_empty() || side.value.len() > 4 {
            cx.error_spanned_by(
                &side.tokens,
                format!(
                    "a multi-attribute key takes 1 to 4 fields a side, and this one has {}",
                    side.value.len()
                ),
            );
        }
    }
    Some(Some(MultiAttributeKey {
        index: string_attr(name),
        pk,
        sk: index.sk_fields.clone(),
        query: index.query.as_ref().map(string_attr),
    }))
}

/// `schema_version` and its `migrate(...)` chain: every version below it
/// has exactly one migration, which leads to the next version.
fn schema(cx: &Ctxt, raw: &attr::RawEntity) -> Option<Schema> {
    let Some(declared) = &raw.schema_version else {
        for migration in &raw.migrations {
            cx.error_spanned_by(
                &migration.tokens,
                "migrate(...) needs #[ddb(schema_version = N)], the version items are written at today",
            );
        }
        return None;
    };
    let version = match declared.value.base10_parse::<u32>() {
        Ok(n) if n >= 1 => n,
        _ => {
            cx.error_spanned_by(
                &declared.tokens,
                "schema_version must be a whole number from 1: items without one are version 1",
            );
            return None;
        }
    };
    let (mut migrations, reported) = migrations(cx, raw, version);
    if !reported {
        check_every_version_migrates(cx, declared, version, &migrations);
    }
    migrations.sort_by_key(|(from, _)| *from);
    Some(Schema {
        version,
        migrations,
    })
}

/// Each `migrate(...)` as `(from, with)`, in the order written, and whether
/// one was wrong (reported).
fn migrations(cx: &Ctxt, raw: &attr::RawEntity, version: u32) -> (Vec<(u32, Path)>, bool) {
    let mut migrations: Vec<(u32, Path)> = Vec::new();
    let mut reported = false;
    for migration in &raw.migrations {
        let (Some(from), Some(with)) = (&migration.from, &migration.with) else {
            cx.error_spanned_by(
                &migration.tokens,
                "migrate(...) needs `from = N` (the stored version) and `with = path::to_fn` (a fn(&mut ddb_runtime::Item) -> Result<(), String>)",
            );
            reported = true;
            continue;
        };
        let Ok(from_version) = from.value.base10_parse::<u32>() else {
            cx.error_spanned_by(&from.tokens, "`from` must be a whole number");
            reported = true;
            continue;
        };
        if from_version == 0 || from_version >= version {
            let message = if from_version == 0 {
                "there is no schema version 0: items without one are version 1, so the first migration is `from = 1`".to_owned()
            } else {
                format!(
                    "migrate(from = {from_version}) would lead to version {}, past schema_version = {version}: \
                     raise schema_version to {}, or remove this migration",
                    from_version + 1,
                    from_version + 1
                )
            };
            cx.error_spanned_by(&from.tokens, message);
            reported = true;
            continue;
        }
        if migrations.iter().any(|(f, _)| *f == from_version) {
            cx.error_spanned_by(
                &from.tokens,
                format!("a second migration from version {from_version}: each version has one"),
            );
            reported = true;
            continue;
        }
        migrations.push((from_version, with.value.clone()));
    }
    (migrations, reported)
}

/// Every version below `version` has a migration from it.
fn check_every_version_migrates(
    cx: &Ctxt,
    declared: &Attr<syn::LitInt>,
    version: u32,
    migrations: &[(u32, Path)],
) {
    let missing: Vec<String> = (1..version)
        .filter(|v| !migrations.iter().any(|(f, _)| f == v))
        .map(|v| v.to_string())
        .collect();
    if !missing.is_empty() {
        cx.error_spanned_by(
            &declared.tokens,
            format!(
                "schema_version = {version} has no migration from version {}: add \
                 #[ddb(migrate(from = {}, with = ...))], or items stored at that version cannot be read",
                missing.join(", "),
                missing[0]
            ),
        );
    }
}

/// An index name in snake_case, the stem of its key functions:
/// `ProductOrdersIndex` -> `product_orders_index`, `GSI1` -> `gsi1`
/// (`gsi1_key`, `gsi1_pk`, `GSI1_PK_PREFIX`).
pub fn snake_case(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || next_lower) && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else if c.is_alphanumeric() {
            out.push(*c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_owned()
}

fn string_attr(attr: &Attr<syn::LitStr>) -> Attr<String> {
    Attr {
        value: attr.value.value(),
        tokens: attr.value.to_token_stream(),
    }
}

fn parse_template(cx: &Ctxt, attr: &Attr<syn::LitStr>, what: &str) -> Option<Attr<Template>> {
    match template::parse(&attr.value.value(), what) {
        Ok(template) => Some(Attr {
            value: template,
            tokens: attr.tokens.clone(),
        }),
        Err(message) => {
            cx.error_spanned_by(&attr.tokens, message);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::snake_case;

    #[test]
    fn index_names_become_snake_case() {
        assert_eq!(snake_case("GSI1"), "gsi1");
        assert_eq!(snake_case("ProductOrdersIndex"), "product_orders_index");
        assert_eq!(snake_case("order-id.index"), "order_id_index");
        assert_eq!(snake_case("Idx-1"), snake_case("Idx_1"));
    }
}

#[cfg(test)]
mod stand_in_tests {
    use super::Entity;
    use crate::internals::ctxt::Ctxt;

    /// A missing `entity` is reported, and the struct's name stands in: the
    /// model is whole, and its code is generated beside the one error.
    #[test]
    fn a_missing_entity_type_has_a_stand_in() {
        let input: syn::DeriveInput = syn::parse_quote! {
            #[ddb(table = Shop, pk = "ORDER#{id}")]
            struct Order { id: String }
        };
        let cx = Ctxt::default();
        let entity = Entity::from_input(&cx, &input);
        assert!(cx.has_errors() && cx.only_stand_ins());
        assert!(entity.has_keys());
        assert_eq!(entity.entity_type, "Order");
        drop(cx.into_compile_errors());
    }

    /// A primary key that cannot be read leaves a model without keys, its
    /// fields read all the same for the stand-in.
    #[test]
    fn a_wrong_primary_key_leaves_the_fields() {
        let input: syn::DeriveInput = syn::parse_quote! {
            #[ddb(table = Shop, entity = "Order", pk = "ORDER#{id")]
            struct Order { id: String, #[serde(rename = "Total")] total: u64 }
        };
        let cx = Ctxt::default();
        let entity = Entity::from_input(&cx, &input);
        assert!(!cx.only_stand_ins());
        assert!(!entity.has_keys());
        let attributes: Vec<&str> = entity.fields.iter().map(|f| f.attribute.as_str()).collect();
        assert_eq!(attributes, ["id", "Total"]);
        drop(cx.into_compile_errors());
    }
}
