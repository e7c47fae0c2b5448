//! Code generation for `#[derive(Entity)]`. Works on a validated model and
//! never fails; every path it emits is absolute.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Entity, Key};
use crate::attr::{Compare, RawWhen};
use crate::template::{Part, Template};

mod multi_attribute;

/// Literal prefixes and names of one key, for messages and method names.
struct Names {
    pk_label: String,
    sk_label: String,
    key_fn: syn::Ident,
    pk_fn: syn::Ident,
    const_prefix: String,
}

fn names(key: &Key) -> Names {
    match &key.index {
        None => Names {
            pk_label: "partition key".into(),
            sk_label: "sort key".into(),
            key_fn: format_ident!("key"),
            pk_fn: format_ident!("pk"),
            const_prefix: String::new(),
        },
        Some(index) => {
            let snake = snake_case(&index.value);
            Names {
                pk_label: format!("{} partition key", index.value),
                sk_label: format!("{} sort key", index.value),
                key_fn: format_ident!("{}_key", snake),
                pk_fn: format_ident!("{}_pk", snake),
                const_prefix: format!("{}_", snake.to_uppercase()),
            }
        }
    }
}

/// `ProductOrdersIndex` -> `product_orders_index`, `GSI1` -> `gsi1`.
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

fn template_const(template: &Template) -> TokenStream {
    let source = &template.source;
    let parts = template.parts.iter().map(|part| match part {
        Part::Literal(text) => quote!(::ddb_runtime::__private::Part::Literal(#text)),
        Part::Field(name) => quote!(::ddb_runtime::__private::Part::Field(#name)),
    });
    quote!(::ddb_runtime::__private::Template { source: #source, parts: &[#(#parts),*] })
}

/// The literal prefix of a template (text before its first field).
fn literal_prefix(template: &Template) -> String {
    match template.parts.first() {
        Some(Part::Literal(text)) => text.clone(),
        _ => String::new(),
    }
}

/// The codec of a field's key segment type, bound in the enclosing function
/// by `codecs`.
fn codec_of(field: &str) -> syn::Ident {
    format_ident!("__codec_{}", field)
}

/// `let` bindings of the codecs of `fields`: `(&&Codec::<T>::NEW).codec()`
/// resolves to the real codec when `T` is a key segment, so a type that is not
/// is reported once, by the bound at the field, and not at every use.
fn codecs<'a>(entity: &Entity, fields: impl IntoIterator<Item = &'a str>) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let mut seen = Vec::new();
    let mut out = quote! {
        #[allow(unused_imports)]
        use #p::{IsSegment as _, NotSegment as _};
    };
    for name in fields {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if let Some(field) = entity.field(name) {
            let ty = field.ty;
            let codec = codec_of(name);
            out.extend(quote! {
                let #codec = (&&#p::Codec::<#ty>::NEW).codec();
            });
        }
    }
    out
}

/// Expression building one key value from the fields in scope as references.
fn write_template(
    entity: &str,
    label: &str,
    template: &Template,
    ty: TokenStream,
    limit: TokenStream,
) -> TokenStream {
    if let [Part::Field(field)] = template.parts.as_slice() {
        let ident = format_ident!("{}", field);
        let codec = codec_of(field);
        return quote! {
            ::ddb_runtime::__private::raw_key(#entity, #label, #field, #ident, #codec, #ty, #limit)?
        };
    }
    let steps = template.parts.iter().map(|part| match part {
        Part::Literal(text) => quote!(.literal(#text)),
        Part::Field(field) => {
            let ident = format_ident!("{}", field);
            let codec = codec_of(field);
            quote!(.field(#field, #ident, #codec)?)
        }
    });
    quote! {
        ::ddb_runtime::__private::KeyWriter::new(#entity, #label) #(#steps)* .finish(#limit)?
    }
}

/// Statements reading one key value back into `let` bindings of its fields.
fn read_template(
    entity: &Entity,
    label: &str,
    template: &Template,
    value: TokenStream,
    bound: &mut Vec<String>,
) -> TokenStream {
    let name = &entity.entity_type;
    let source = &template.source;
    let mut binding = |field: &str| {
        let ty = entity.field(field).map(|f| f.ty.clone());
        let ident = if bound.iter().any(|b| b == field) {
            format_ident!("_")
        } else {
            bound.push(field.to_owned());
            format_ident!("{}", field)
        };
        (ident, ty)
    };
    if let [Part::Field(field)] = template.parts.as_slice() {
        let (ident, ty) = binding(field);
        let codec = codec_of(field);
        return quote! {
            let #ident: #ty = ::ddb_runtime::__private::read_raw_key(#name, #label, #source, #value, #codec)?;
        };
    }
    let count = template.parts.len();
    let steps = template
        .parts
        .iter()
        .enumerate()
        .map(|(i, part)| match part {
            Part::Literal(text) => quote!(__reader = __reader.literal(#text)?;),
            Part::Field(field) => {
                let (ident, ty) = binding(field);
                let last = i + 1 == count;
                let codec = codec_of(field);
                quote!(let #ident: #ty = __reader.field(#field, #last, #codec)?;)
            }
        });
    quote! {
        let mut __reader = ::ddb_runtime::__private::KeyReader::new(#name, #label, #source, #value)?;
        #(#steps)*
        __reader.finish()?;
    }
}

/// Whether a sparse index's rule holds, reading each field through `access`.
fn membership(when: &RawWhen, access: impl Fn(&syn::Ident) -> TokenStream) -> TokenStream {
    match when {
        RawWhen::Field {
            field,
            compare,
            value,
        } => {
            let field = access(field);
            // An invisible group keeps the value's precedence without parentheses.
            let value = proc_macro2::Group::new(
                proc_macro2::Delimiter::None,
                quote::ToTokens::to_token_stream(value),
            );
            match compare {
                Compare::Eq => quote_spanned!(value.span()=> #field == #value),
                Compare::Ne => quote_spanned!(value.span()=> #field != #value),
                Compare::In => {
                    quote_spanned!(value.span()=> #value.iter().any(|__v| &#field == __v))
                }
            }
        }
        RawWhen::Function { path, .. } => quote_spanned!(path.span()=> (#path)(self)),
    }
}

/// One arm of `index_key_from`: index `position`'s key from the primary key
/// and the values of the other fields it reads, without the whole item.
fn index_key_from(entity: &Entity, position: usize, key: &Key, key_fn: &syn::Ident) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let Some(when) = key.when.as_ref().map(|w| &w.value) else {
        return arm(entity, position, key, key_fn, quote!());
    };
    if let RawWhen::Function { .. } = when {
        // A function of the whole entity: the runtime reads the item instead.
        return quote! {
            #position => ::core::result::Result::Err(#p::no_such_index(#entity_type, __position)),
        };
    }
    let holds = membership(when, |field| quote!(#field));
    arm(
        entity,
        position,
        key,
        key_fn,
        quote!(if !(#holds) { return ::core::result::Result::Ok(::core::option::Option::None); }),
    )
}

fn arm(
    entity: &Entity,
    position: usize,
    key: &Key,
    key_fn: &syn::Ident,
    check: TokenStream,
) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let entity_type = &entity.entity_type;
    let primary: Vec<&str> = entity.keys[0].fields();
    let primary_idents = primary
        .iter()
        .filter_map(|name| entity.field(name))
        .map(|f| f.ident);
    let inputs = key.inputs();
    let decoded = inputs
        .iter()
        .filter(|name| !primary.contains(&name.as_str()))
        .filter_map(|name| entity.field(name))
        .map(|f| {
            let (ident, ty, attribute) = (f.ident, f.ty, &f.attribute);
            quote!(let #ident: #ty = #p::field_from(#entity_type, #attribute, __values)?;)
        });
    let args = key
        .fields()
        .into_iter()
        .filter_map(|name| entity.field(name))
        .map(|f| {
            let ident = f.ident;
            quote!(&#ident)
        });
    let shard = (key.shards > 1).then(|| {
        let shards = key.shards;
        quote!(__index.pk = #p::with_shard(#entity_type, __index.pk, __key.values(), #shards)?;)
    });
    quote! {
        #position => {
            #[allow(unused_variables)]
            let (#(#primary_idents,)*) = Self::parse_key(__key)?;
            #(#decoded)*
            #check
            #[allow(unused_mut)]
            let mut __index = Self::#key_fn(#(#args),*)?;
            #shard
            ::core::result::Result::Ok(::core::option::Option::Some(__index))
        }
    }
}

pub fn expand(entity: &Entity) -> TokenStream {
    let ident = entity.ident;
    let table = &entity.table;
    let entity_type = &entity.entity_type;
    let rust_name = ident.to_string();
    let p = quote!(::ddb_runtime::__private);
    let table_def = quote!(<#table as #p::Table>::DEF);

    let key_defs = entity.keys.iter().map(|key| {
        let index = match &key.index {
            Some(index) => {
                let name = &index.value;
                quote!(::core::option::Option::Some(#name))
            }
            None => quote!(::core::option::Option::None),
        };
        let pk = template_const(&key.pk.value);
        let sk = match &key.sk {
            Some(sk) => {
                let sk = template_const(&sk.value);
                quote!(::core::option::Option::Some(#sk))
            }
            None => quote!(::core::option::Option::None),
        };
        let query = match &key.query {
            Some(query) => {
                let query = &query.value;
                quote!(::core::option::Option::Some(#query))
            }
            None => quote!(::core::option::Option::None),
        };
        let shards = key.shards;
        let membership = match &key.when {
            Some(when) => {
                let reads = key.when_reads().into_iter().map(|f| f.to_string());
                let evaluable = matches!(when.value, RawWhen::Field { .. });
                quote!(::core::option::Option::Some(#p::Membership { reads: &[#(#reads),*], evaluable: #evaluable }))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!(#p::KeyDef { index: #index, pk: #pk, sk: #sk, query: #query, shards: #shards, membership: #membership })
    });

    let field_defs = entity.fields.iter().map(|field| {
        let name = field.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name).to_owned();
        let attribute = &field.attribute;
        let raw = &field.raw;
        let (version, ttl, created_at, updated_at, sensitive) = (
            raw.version.is_some(),
            raw.ttl.is_some(),
            raw.created_at.is_some(),
            raw.updated_at.is_some(),
            raw.sensitive.is_some(),
        );
        quote!(#p::FieldDef {
            name: #name,
            attribute: #attribute,
            role: #p::FieldRole {
                version: #version, ttl: #ttl, created_at: #created_at,
                updated_at: #updated_at, sensitive: #sensitive,
            },
        })
    });

    // Each field used in a key must be a key segment: checked at its type.
    let mut key_fields: Vec<&str> = Vec::new();
    for key in &entity.keys {
        for field in key.fields() {
            if !key_fields.contains(&field) {
                key_fields.push(field);
            }
        }
    }
    let segment_asserts = key_fields
        .iter()
        .filter_map(|name| entity.field(name))
        .map(|field| {
            let ty = field.ty;
            quote_spanned!(ty.span()=> #p::assert_key_segment::<#ty>();)
        });

    let key_checks = entity.keys.iter().enumerate().map(|(k, key)| {
        let flag = |template: Option<&Template>| match template.map(|t| t.parts.as_slice()) {
            Some([Part::Field(field)]) => match entity.field(field) {
                Some(f) => {
                    let ty = f.ty;
                    quote!(#p::is_numeric::<#ty>())
                }
                None => quote!(false),
            },
            _ => quote!(false),
        };
        let pk = flag(Some(&key.pk.value));
        let sk = flag(key.sk.as_ref().map(|sk| &sk.value));
        let span = match &key.index {
            Some(index) => index.tokens.clone(),
            None => quote!(#ident),
        };
        let span = span
            .into_iter()
            .next()
            .map(|t| t.span())
            .unwrap_or_else(Span::call_site);
        quote_spanned! {span=>
            const _: () = if let ::core::option::Option::Some(__message) =
                #p::check_key(&<#ident as #p::Entity>::SCHEMA, #k, [#pk, #sk])
            {
                ::core::panic!("{}", __message.as_str())
            };
        }
    });

    let vis = entity.vis;
    let fields_type = format_ident!("{}Fields", ident);
    let primary_fields = entity.keys[0].fields();
    let field_attrs: Vec<TokenStream> = entity
        .fields
        .iter()
        .map(|field| {
            let name = field.ident;
            let vis = field.vis;
            let ty = field.ty;
            let attribute = &field.attribute;
            let (doc, marker) = if primary_fields.contains(&name.to_string().as_str()) {
                (
                    format!("The `{attribute}` attribute, part of the primary key: readable, never updated."),
                    quote!(#p::KeyPart),
                )
            } else {
                (format!("The `{attribute}` attribute."), quote!(#p::Value))
            };
            quote! {
                #[doc = #doc]
                #vis #name: #p::Attr<#ident, #ty, #marker>
            }
        })
        .collect();
    let field_values = entity.fields.iter().map(|field| {
        let name = field.ident;
        let attribute = &field.attribute;
        quote!(#name: #p::Attr::new(#attribute))
    });
    let fields_doc = format!(
        "The attributes of `{ident}`, to build filters and conditions from: `{ident}::fields()`."
    );
    let fields_struct = quote! {
        #[doc = #fields_doc]
        #[derive(Debug, Clone, Copy)]
        #[allow(dead_code)]
        #vis struct #fields_type {
            #(#field_attrs,)*
        }

        #[automatically_derived]
        impl #ident {
            /// The entity's attributes, typed, for filters and conditions.
            #vis const fn fields() -> #fields_type {
                #fields_type { #(#field_values,)* }
            }
        }
    };

    let version_fn = entity
        .fields
        .iter()
        .find(|f| f.raw.version.is_some())
        .map(|field| {
            let name = field.ident;
            quote! {
                fn version(&self) -> ::core::option::Option<u64> {
                    ::core::convert::TryFrom::try_from(self.#name).ok()
                }
            }
        });
    let stamps = entity.fields.iter().filter_map(|field| {
        let ty = field.ty;
        let attribute = &field.attribute;
        if field.raw.created_at.is_some() {
            Some(quote! {
                if __created {
                    __stamps.push((#attribute, (&&#p::Stamp::<#ty>::NEW).stamp(__now)));
                }
            })
        } else if field.raw.updated_at.is_some() {
            Some(quote! {
                __stamps.push((#attribute, (&&#p::Stamp::<#ty>::NEW).stamp(__now)));
            })
        } else {
            None
        }
    });
    let stamps: Vec<TokenStream> = stamps.collect();
    let stamps_fn = (!stamps.is_empty()).then(|| {
        quote! {
            fn stamps(
                __created: bool,
                __now: #p::std::time::SystemTime,
            ) -> #p::std::vec::Vec<(&'static str, #p::AttributeValue)> {
                #[allow(unused_imports)]
                use #p::{IsStamp as _, NotStamp as _};
                let mut __stamps = #p::std::vec::Vec::new();
                #(#stamps)*
                __stamps
            }
        }
    });
    let type_checks = entity.fields.iter().filter_map(|field| {
        let ty = field.ty;
        let raw = &field.raw;
        if raw.created_at.is_some() || raw.updated_at.is_some() {
            Some(quote_spanned!(ty.span()=> #p::assert_timestamp_field::<#ty>();))
        } else if raw.ttl.is_some() {
            Some(quote_spanned!(ty.span()=> #p::assert_ttl_field::<#ty>();))
        } else {
            None
        }
    });

    let fields_check = quote_spanned! {ident.span()=>
        const _: () = if let ::core::option::Option::Some(__message) =
            #p::check_fields(&<#ident as #p::Entity>::SCHEMA)
        {
            ::core::panic!("{}", __message.as_str())
        };
    };

    let mut builders = Vec::new();
    let mut index_pushes = Vec::new();
    let mut index_from_values = Vec::new();
    let mut needs_primary = false;
    for (k, key) in entity.keys.iter().enumerate() {
        let n = names(key);
        let (pk_label, sk_label) = (&n.pk_label, &n.sk_label);
        let index_name = key.index.as_ref().map(|i| i.value.clone());
        let types = match &index_name {
            Some(name) => quote!(#p::key_types(&#table_def, ::core::option::Option::Some(#name))),
            None => quote!(#p::key_types(&#table_def, ::core::option::Option::None)),
        };
        let pk_limit = quote!(#p::PARTITION_KEY_LIMIT);
        let sk_limit = quote!(#p::SORT_KEY_LIMIT);
        let pk_value = write_template(
            entity_type,
            pk_label,
            &key.pk.value,
            quote!(__TYPES.0),
            pk_limit,
        );
        let sk_value = match &key.sk {
            Some(sk) => {
                let value = write_template(
                    entity_type,
                    sk_label,
                    &sk.value,
                    quote!(__TYPES.1),
                    sk_limit,
                );
                quote!(::core::option::Option::Some(#value))
            }
            None => quote!(::core::option::Option::None),
        };
        let params = |fields: Vec<&str>| -> Vec<TokenStream> {
            fields
                .iter()
                .filter_map(|name| entity.field(name))
                .map(|field| {
                    let ident = field.ident;
                    let ty = field.ty;
                    quote!(#ident: &#ty)
                })
                .collect()
        };
        let all_params = params(key.fields());
        let all_codecs = codecs(entity, key.fields());
        let pk_codecs = codecs(entity, key.pk.value.fields());
        let pk_params = params(key.pk.value.fields().collect());
        let key_fn = &n.key_fn;
        let pk_fn = &n.pk_fn;
        let doc_key = format!(
            "The {} of a `{}` item: `{}`{}.",
            if key.index.is_some() {
                "index key"
            } else {
                "primary key"
            },
            rust_name,
            key.pk.value.source,
            key.sk
                .as_ref()
                .map(|sk| format!(" / `{}`", sk.value.source))
                .unwrap_or_default()
        );
        let doc_pk = format!("The partition key value `{}`.", key.pk.value.source);
        let key_ret = if key.index.is_none() {
            quote!(#p::Key<Self>)
        } else {
            quote!(#p::KeyValues)
        };
        let wrap = if key.index.is_none() {
            quote!(#p::Key::from_values)
        } else {
            quote!(::core::convert::identity)
        };
        let pk_prefix_const = format_ident!("{}PK_PREFIX", n.const_prefix);
        let pk_prefix = literal_prefix(&key.pk.value);
        let sk_prefix = key.sk.as_ref().map(|sk| {
            let name = format_ident!("{}SK_PREFIX", n.const_prefix);
            let value = literal_prefix(&sk.value);
            quote! {
                #[doc = "The literal text the sort key template starts with."]
                pub const #name: &'static str = #value;
            }
        });
        builders.push(quote! {
            #[doc = "The literal text the partition key template starts with."]
            pub const #pk_prefix_const: &'static str = #pk_prefix;
            #sk_prefix

            #[doc = #doc_key]
            #[allow(clippy::needless_question_mark)]
            pub fn #key_fn(#(#all_params),*) -> ::core::result::Result<#key_ret, #p::Error> {
                #[allow(dead_code)]
                const __TYPES: (#p::ScalarType, #p::ScalarType) = #types;
                #all_codecs
                ::core::result::Result::Ok(#wrap(#p::KeyValues { pk: #pk_value, sk: #sk_value }))
            }

            #[doc = #doc_pk]
            #[allow(clippy::needless_question_mark)]
            pub fn #pk_fn(#(#pk_params),*) -> ::core::result::Result<#p::KeyValue, #p::Error> {
                #[allow(dead_code)]
                const __TYPES: (#p::ScalarType, #p::ScalarType) = #types;
                #pk_codecs
                ::core::result::Result::Ok(#pk_value)
            }
        });
        if let Some(query) = &key.query {
            let query_fn = format_ident!("{}", query.value);
            let mut sort_fields: Vec<&str> = Vec::new();
            for field in key.sk.iter().flat_map(|sk| sk.value.fields()) {
                if !sort_fields.contains(&field) {
                    sort_fields.push(field);
                }
            }
            let sort_types = sort_fields
                .iter()
                .filter_map(|name| entity.field(name))
                .map(|f| f.ty);
            let pk_args = key
                .pk
                .value
                .fields()
                .filter_map(|name| entity.field(name))
                .map(|f| f.ident);
            let index_expr = match &index_name {
                Some(name) => quote!(::core::option::Option::Some(#name)),
                None => quote!(::core::option::Option::None),
            };
            let doc = format!(
                "Query `{}`: the partition `{}`{}. Run it with `Db::query`.",
                query.value,
                key.pk.value.source,
                key.sk
                    .as_ref()
                    .map(|sk| format!(", sort key `{}`", sk.value.source))
                    .unwrap_or_default()
            );
            builders.push(quote! {
                #[doc = #doc]
                #[allow(clippy::self_named_constructors)]
                pub fn #query_fn(#(#pk_params),*) -> #p::QueryKey<
                    #ident,
                    (#(#sort_types,)*),
                    <#p::IndexKindOf<{ #p::is_global(&#table_def, #index_expr) }> as #p::Select>::Type,
                    <#p::ProjectionOf<{ #p::carries_all(&<#ident as #p::Entity>::SCHEMA, #index_expr) }> as #p::Select>::Type,
                    #k,
                > {
                    #p::QueryKey::new(Self::#pk_fn(#(#pk_args),*))
                }
            });
        }
        if let Some(index_name) = index_name {
            let args = key
                .fields()
                .into_iter()
                .filter_map(|name| entity.field(name))
                .map(|f| {
                    let ident = f.ident;
                    quote!(&self.#ident)
                });
            let mut compute = quote!(let mut __values = Self::#key_fn(#(#args),*)?;);
            if key.shards > 1 {
                needs_primary = true;
                let shards = key.shards;
                compute.extend(quote! {
                    __values.pk = #p::with_shard(#entity_type, __values.pk, __primary.values(), #shards)?;
                });
            }
            let push = quote! {
                #compute
                __keys.push((#index_name, __values));
            };
            index_pushes.push(match &key.when {
                Some(when) => {
                    let holds = membership(&when.value, |field| quote!(self.#field));
                    quote!(if #holds { #push })
                }
                None => push,
            });
            index_from_values.push(index_key_from(entity, k, key, &n.key_fn));
        }
    }

    let primary = &entity.keys[0];
    let primary_args = primary
        .fields()
        .into_iter()
        .filter_map(|name| entity.field(name))
        .map(|f| {
            let ident = f.ident;
            quote!(&self.#ident)
        });
    let parse_codecs = codecs(entity, primary.fields());
    let mut bound = Vec::new();
    let pk_read = read_template(
        entity,
        "partition key",
        &primary.pk.value,
        quote!(__key.pk()),
        &mut bound,
    );
    let sk_read = primary.sk.as_ref().map(|sk| {
        let read = read_template(entity, "sort key", &sk.value, quote!(__sk), &mut bound);
        quote! {
            let __sk = #p::require_sort_key(#entity_type, __key.sk())?;
            #read
        }
    });
    let parsed_fields: Vec<_> = primary
        .fields()
        .into_iter()
        .filter_map(|name| entity.field(name))
        .collect();
    let parsed_types = parsed_fields.iter().map(|f| f.ty);
    let parsed_idents = parsed_fields.iter().map(|f| f.ident);
    let parse_doc = format!(
        "Parses a `{rust_name}` primary key back into its typed fields ({}).",
        parsed_fields
            .iter()
            .map(|f| f.ident.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let primary_value = needs_primary.then(|| quote!(let __primary = self.primary_key()?;));
    let multi_attribute_defs = multi_attribute::schema_defs(entity);
    let multi_attribute_checks = multi_attribute::checks(entity);
    let attribute_keys = multi_attribute::attribute_keys(entity);
    let check_attribute_key = multi_attribute::check_attribute_key(entity);
    builders.extend(multi_attribute::query_builders(entity));

    quote! {
        #[automatically_derived]
        impl #p::Entity for #ident {
            type Table = #table;

            const SCHEMA: #p::EntitySchema = #p::EntitySchema {
                rust_name: #rust_name,
                entity_type: #entity_type,
                table: &#table_def,
                keys: &[#(#key_defs),*],
                multi_attribute_keys: &[#(#multi_attribute_defs),*],
                fields: &[#(#field_defs),*],
            };

            fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::Error> {
                Self::key(#(#primary_args),*)
            }

            fn index_keys(&self) -> ::core::result::Result<#p::std::vec::Vec<(&'static str, #p::KeyValues)>, #p::Error> {
                #primary_value
                let mut __keys = #p::std::vec::Vec::new();
                #(#index_pushes)*
                ::core::result::Result::Ok(__keys)
            }

            fn to_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
                #p::to_item(self, #p::Entity::primary_key(self)?, #p::Entity::index_keys(self)?, #attribute_keys)
            }

            fn from_item(item: #p::Item) -> ::core::result::Result<Self, #p::Error> {
                #p::item_to_fields(#entity_type, &#table_def, item)
            }

            fn check_key(key: &#p::Key<Self>) -> ::core::result::Result<(), #p::Error> {
                Self::parse_key(key).map(|_| ())
            }

            fn index_key_from(
                __position: usize,
                __key: &#p::Key<Self>,
                __values: &#p::Item,
            ) -> ::core::result::Result<::core::option::Option<#p::KeyValues>, #p::Error> {
                match __position {
                    #(#index_from_values)*
                    _ => ::core::result::Result::Err(#p::no_such_index(#entity_type, __position)),
                }
            }

            #version_fn

            #stamps_fn

            #check_attribute_key
        }

        #fields_struct

        #[automatically_derived]
        impl #ident {
            #(#builders)*

            #[doc = #parse_doc]
            pub fn parse_key(__key: &#p::Key<Self>) -> ::core::result::Result<(#(#parsed_types,)*), #p::Error> {
                #parse_codecs
                #pk_read
                #sk_read
                ::core::result::Result::Ok((#(#parsed_idents,)*))
            }
        }

        const _: () = {
            #(#segment_asserts)*
            #(#type_checks)*
        };
        #(#key_checks)*
        #multi_attribute_checks
        #fields_check
    }
}

/// What is emitted when the attributes are wrong: the trait impl, so the
/// user sees the real error and not a cascade of missing items.
pub fn fallback(ident: &syn::Ident, table: Option<&syn::Path>) -> TokenStream {
    let p = quote!(::ddb_runtime::__private);
    let table = match table {
        Some(table) => quote!(#table),
        None => quote!(#p::NoTable),
    };
    let name = ident.to_string();
    let span = Span::call_site();
    quote_spanned! {span=>
        #[automatically_derived]
        impl #p::Entity for #ident {
            type Table = #table;
            const SCHEMA: #p::EntitySchema = #p::EntitySchema {
                rust_name: #name,
                entity_type: #name,
                table: &<#table as #p::Table>::DEF,
                keys: &[],
                multi_attribute_keys: &[],
                fields: &[],
            };
            fn primary_key(&self) -> ::core::result::Result<#p::Key<Self>, #p::Error> {
                ::core::unreachable!()
            }
            fn index_keys(&self) -> ::core::result::Result<#p::std::vec::Vec<(&'static str, #p::KeyValues)>, #p::Error> {
                ::core::unreachable!()
            }
            fn to_item(&self) -> ::core::result::Result<#p::Item, #p::Error> {
                ::core::unreachable!()
            }
            fn from_item(_: #p::Item) -> ::core::result::Result<Self, #p::Error> {
                ::core::unreachable!()
            }
            fn check_key(_: &#p::Key<Self>) -> ::core::result::Result<(), #p::Error> {
                ::core::unreachable!()
            }
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
    }
}
