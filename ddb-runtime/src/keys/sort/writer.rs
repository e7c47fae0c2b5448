//! The writer of a sort condition's values, in the template's text or as the
//! attributes of a multi-attribute sort key, and the prefixes of a sort key's
//! fields it takes (`&A`, `(&A, &B)`, ...).

use crate::declaration::model::{Part, ScalarType, Template};
use crate::error::Error;
use crate::keys::key::KeyValue;
use crate::keys::segment::{KeySegment, SegmentCodec};

use super::SORT_KEY_BYTES;

/// Writes a prefix of a sort-key template's fields, or of the attributes of
/// a multi-attribute sort key.
pub struct SortWriter<'t> {
    template: &'t Template,
    pub(super) raw: Option<ScalarType>,
    part: usize,
    pub(super) text: String,
    fields: usize,
    /// A multi-attribute sort key: each field is its own attribute, written
    /// as its own value.
    attributes: Option<&'t [(&'static str, ScalarType)]>,
    pub(super) values: Vec<KeyValue>,
    pub(super) error: Option<Error>,
    entity: &'static str,
}

/// The template of a multi-attribute sort key, which has none.
const NO_TEMPLATE: Template = Template {
    source: "",
    parts: &[],
};

impl<'t> SortWriter<'t> {
    pub(super) fn new(entity: &'static str, template: &'t Template, ty: ScalarType) -> Self {
        Self {
            template,
            raw: template.is_single_field().then_some(ty),
            part: 0,
            text: String::new(),
            fields: 0,
            attributes: None,
            values: Vec::new(),
            error: None,
            entity,
        }
    }

    pub(super) fn for_attributes(
        entity: &'static str,
        attributes: &'t [(&'static str, ScalarType)],
    ) -> Self {
        Self {
            attributes: Some(attributes),
            ..Self::new(entity, &NO_TEMPLATE, ScalarType::S)
        }
    }

    /// A multi-attribute key's next value, as its attribute stores it.
    fn attribute<T: KeySegment>(&mut self, value: &T, attributes: &[(&'static str, ScalarType)]) {
        let Some(&(field, ty)) = attributes.get(self.values.len()) else {
            self.error = Some(self.invalid("more values than the sort key has attributes".into()));
            return;
        };
        let codec = SegmentCodec::<T>::of();
        let key = "sort key condition";
        match crate::keys::key::raw_key(self.entity, key, field, value, codec, ty, SORT_KEY_BYTES) {
            Ok(value) => self.values.push(value),
            Err(error) => self.error = Some(error),
        }
    }

    /// Writes the next field (and the literal text before it).
    pub fn field<T: KeySegment>(&mut self, value: &T) {
        if self.error.is_some() {
            return;
        }
        if let Some(attributes) = self.attributes {
            return self.attribute(value, attributes);
        }
        let codec = SegmentCodec::<T>::of();
        while let Some(Part::Literal(text)) = self.template.parts.get(self.part) {
            self.text.push_str(text);
            self.part += 1;
        }
        let Some(Part::Field(name)) = self.template.parts.get(self.part) else {
            self.error =
                Some(self.invalid("more values than the sort key template has fields".into()));
            return;
        };
        let written = match self.raw {
            Some(ScalarType::N) => (codec.to_number)(value)
                .map(|n| self.text.push_str(&n))
                .ok_or_else(|| {
                    crate::keys::segment::SegmentError::new("this type cannot be a Number")
                }),
            Some(ScalarType::S) => (codec.write)(value, &mut self.text),
            None => codec.write_escaped(value, &mut self.text),
        };
        if let Err(source) = written {
            self.error = Some(Error::InvalidKeySegment {
                entity: self.entity,
                key: "sort key condition",
                field: name,
                source,
            });
        }
        self.part += 1;
        self.fields += 1;
    }

    fn invalid(&self, reason: String) -> Error {
        Error::InvalidSortCondition {
            entity: self.entity,
            reason,
        }
    }

    /// The literal right after the written fields, if any.
    pub(super) fn next_literal(&self) -> Option<&'static str> {
        match self.template.parts.get(self.part) {
            Some(Part::Literal(text)) => Some(text),
            _ => None,
        }
    }

    pub(super) fn complete(&self) -> bool {
        !self.template.parts[self.part..]
            .iter()
            .any(|p| matches!(p, Part::Field(_)))
    }
}

/// A prefix of the sort-key fields `S` (a tuple of the field types): `&A`,
/// `(&A,)`, `(&A, &B)`, ...
pub trait SortPrefix<S> {
    /// Writes the values, in template order.
    fn write(&self, writer: &mut SortWriter<'_>);
}

macro_rules! sort_prefixes {
    // One impl per (full tuple, prefix length).
    ($($full:ident),+ ; $($given:ident),+) => {
        impl<$($full: KeySegment),+> SortPrefix<($($full,)+)> for ($(&$given,)+) {
            #[allow(non_snake_case)]
            fn write(&self, writer: &mut SortWriter<'_>) {
                let ($($given,)+) = self;
                $(writer.field(*$given);)+
            }
        }
    };
}

sort_prefixes!(A; A);
sort_prefixes!(A, B; A);
sort_prefixes!(A, B; A, B);
sort_prefixes!(A, B, C; A);
sort_prefixes!(A, B, C; A, B);
sort_prefixes!(A, B, C; A, B, C);
sort_prefixes!(A, B, C, D; A);
sort_prefixes!(A, B, C, D; A, B);
sort_prefixes!(A, B, C, D; A, B, C);
sort_prefixes!(A, B, C, D; A, B, C, D);

macro_rules! single_prefix {
    ($($full:ident),+) => {
        impl<A: KeySegment, $($full),*> SortPrefix<(A, $($full,)*)> for &A {
            fn write(&self, writer: &mut SortWriter<'_>) {
                writer.field(*self);
            }
        }
    };
}

impl<A: KeySegment> SortPrefix<(A,)> for &A {
    fn write(&self, writer: &mut SortWriter<'_>) {
        writer.field(*self);
    }
}
single_prefix!(B);
single_prefix!(B, C);
single_prefix!(B, C, D);

/// The leading fields of a sort key `S` held equal, with a field left after
/// them for a range: `&A` or `(&A,)` on `(A, B, ..)`, `(&A, &B)` on
/// `(A, B, C, ..)`, ... The range applies to [`Next`](Self::Next).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a run of leading sort-key fields of `{S}` with a field left for the range",
    label = "give the leading fields held equal, in key order, as `&a` or `(&a, &b)`",
    note = "the range applies to the field after them; a condition on every field is `.eq(...)`, a range on the first field is `.gt(...)`, `.between(...)` and the others"
)]
pub trait EqualThen<S> {
    /// The type of the field the range applies to.
    type Next: KeySegment;
    /// Writes the leading values, in key order.
    fn write(&self, writer: &mut SortWriter<'_>);
}

macro_rules! equal_then {
    // One impl per (full tuple, leading fields as a tuple, next field).
    ($($full:ident),+ ; $($given:ident),+ ; $next:ident) => {
        impl<$($full: KeySegment),+> EqualThen<($($full,)+)> for ($(&$given,)+) {
            type Next = $next;
            #[allow(non_snake_case)]
            fn write(&self, writer: &mut SortWriter<'_>) {
                let ($($given,)+) = self;
                $(writer.field(*$given);)+
            }
        }
    };
    // The first field alone, as a reference.
    ($($full:ident),+ ; $next:ident) => {
        impl<$($full: KeySegment),+> EqualThen<($($full,)+)> for &A {
            type Next = $next;
            fn write(&self, writer: &mut SortWriter<'_>) {
                writer.field(*self);
            }
        }
    };
}

equal_then!(A, B; B);
equal_then!(A, B; A; B);
equal_then!(A, B, C; B);
equal_then!(A, B, C; A; B);
equal_then!(A, B, C; A, B; C);
equal_then!(A, B, C, D; B);
equal_then!(A, B, C, D; A; B);
equal_then!(A, B, C, D; A, B; C);
equal_then!(A, B, C, D; A, B, C; D);
