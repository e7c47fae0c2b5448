//! Item conversion the derive generates: each field straight to and from its
//! `AttributeValue`, without going through serde for the types DynamoDB
//! stores as they are (strings, booleans, integers, and `Option`s of them);
//! any other type goes through serde_dynamo, field by field, so the item is
//! exactly the one serde_dynamo would write.
//!
//! `(&&Conv::<T>::NEW).encode(&x, entity)` resolves to the direct conversion when
//! `T: Direct`, and to serde_dynamo otherwise (autoref specialisation).

use crate::declaration::model::TableDef;
use crate::item::stored::check_entity_type;
use crate::item::Item;

use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::Error;

/// A type stored as one `AttributeValue` of its own, converted directly.
pub trait Direct: Sized {
    /// The value as serde_dynamo writes it.
    fn to_value(&self) -> AttributeValue;
    /// The value back, or the value itself when it is not of this type's
    /// form (then serde_dynamo decodes it, with its own result or error).
    fn from_value(value: AttributeValue) -> Result<Self, AttributeValue>;
}

impl Direct for String {
    fn to_value(&self) -> AttributeValue {
        AttributeValue::S(self.clone())
    }
    fn from_value(value: AttributeValue) -> Result<Self, AttributeValue> {
        match value {
            AttributeValue::S(text) => Ok(text),
            other => Err(other),
        }
    }
}

impl Direct for bool {
    fn to_value(&self) -> AttributeValue {
        AttributeValue::Bool(*self)
    }
    fn from_value(value: AttributeValue) -> Result<Self, AttributeValue> {
        match value {
            AttributeValue::Bool(flag) => Ok(flag),
            other => Err(other),
        }
    }
}

macro_rules! direct_integers {
    ($($ty:ty),*) => {$(
        impl Direct for $ty {
            fn to_value(&self) -> AttributeValue {
                AttributeValue::N(self.to_string())
            }
            fn from_value(value: AttributeValue) -> Result<Self, AttributeValue> {
                match value {
                    AttributeValue::N(ref number) => number.parse().map_err(|_| value),
                    other => Err(other),
                }
            }
        }
    )*};
}
direct_integers!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: Direct> Direct for Option<T> {
    fn to_value(&self) -> AttributeValue {
        match self {
            Some(value) => value.to_value(),
            None => AttributeValue::Null(true),
        }
    }
    fn from_value(value: AttributeValue) -> Result<Self, AttributeValue> {
        match value {
            AttributeValue::Null(true) => Ok(None),
            other => T::from_value(other).map(Some),
        }
    }
}

/// Picks a field type's conversion; see the module documentation.
pub struct Conv<T>(PhantomData<fn() -> T>);

impl<T> Conv<T> {
    /// The picker.
    pub const NEW: Self = Conv(PhantomData);
}

/// The direct conversion, chosen when `T: Direct`.
pub trait DirectConv<T> {
    /// The field's value.
    fn encode(&self, value: &T, entity: &'static str) -> Result<AttributeValue, Error>;
    /// The field back from its value.
    fn decode(&self, value: AttributeValue, entity: &'static str) -> Result<T, Error>;
}

impl<T: Direct + DeserializeOwned> DirectConv<T> for &Conv<T> {
    fn encode(&self, value: &T, _: &'static str) -> Result<AttributeValue, Error> {
        Ok(value.to_value())
    }
    fn decode(&self, value: AttributeValue, entity: &'static str) -> Result<T, Error> {
        T::from_value(value).or_else(|value| from_serde(value, entity))
    }
}

/// serde_dynamo, for any other type: writing needs `Serialize` only.
pub trait SerdeConv<T> {
    /// The field's value.
    fn encode(&self, value: &T, entity: &'static str) -> Result<AttributeValue, Error>;
}

impl<T: Serialize> SerdeConv<T> for Conv<T> {
    fn encode(&self, value: &T, entity: &'static str) -> Result<AttributeValue, Error> {
        to_serde(value, entity)
    }
}

/// serde_dynamo, for any other type: reading needs `Deserialize` only (a
/// projection's field need not be `Serialize`).
pub trait SerdeDecode<T> {
    /// The field back from its value.
    fn decode(&self, value: AttributeValue, entity: &'static str) -> Result<T, Error>;
}

impl<T: DeserializeOwned> SerdeDecode<T> for Conv<T> {
    fn decode(&self, value: AttributeValue, entity: &'static str) -> Result<T, Error> {
        from_serde(value, entity)
    }
}

/// A value through serde: a string, an integer or a boolean (what a `with`
/// module writes for a timestamp, say) straight to its `AttributeValue`,
/// anything else through serde_dynamo. Both write the same value.
pub fn to_serde<T: Serialize + ?Sized>(
    value: &T,
    entity: &'static str,
) -> Result<AttributeValue, Error> {
    match value.serialize(Scalar) {
        Ok(value) => Ok(value),
        Err(NotScalar) => serde_dynamo::to_attribute_value(value)
            .map_err(|source| Error::Encode { entity, source }),
    }
}

/// A serializer of one string, integer or boolean, written as serde_dynamo
/// writes it; anything else (or an error) is [`NotScalar`], left to
/// serde_dynamo.
struct Scalar;

#[derive(Debug)]
struct NotScalar;

impl std::fmt::Display for NotScalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a string, integer or boolean")
    }
}

impl std::error::Error for NotScalar {}

impl serde::ser::Error for NotScalar {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        NotScalar
    }
}

macro_rules! scalar_numbers {
    ($($method:ident: $ty:ty),* $(,)?) => {$(
        fn $method(self, value: $ty) -> Result<AttributeValue, NotScalar> {
            Ok(AttributeValue::N(value.to_string()))
        }
    )*};
}

macro_rules! not_scalar {
    ($($method:ident($($arg:ty),*) -> $ok:ty),* $(,)?) => {$(
        fn $method(self, $(_: $arg),*) -> Result<$ok, NotScalar> {
            Err(NotScalar)
        }
    )*};
}

impl serde::Serializer for Scalar {
    type Ok = AttributeValue;
    type Error = NotScalar;
    type SerializeSeq = serde::ser::Impossible<AttributeValue, NotScalar>;
    type SerializeTuple = serde::ser::Impossible<AttributeValue, NotScalar>;
    type SerializeTupleStruct = serde::ser::Impossible<AttributeValue, NotScalar>;
    type SerializeTupleVariant = serde::ser::Impossible<AttributeValue, NotScalar>;
    type SerializeMap = serde::ser::Impossible<AttributeValue, NotScalar>;
    type SerializeStruct = serde::ser::Impossible<AttributeValue, NotScalar>;
    type SerializeStructVariant = serde::ser::Impossible<AttributeValue, NotScalar>;

    fn serialize_bool(self, value: bool) -> Result<AttributeValue, NotScalar> {
        Ok(AttributeValue::Bool(value))
    }

    fn serialize_str(self, value: &str) -> Result<AttributeValue, NotScalar> {
        Ok(AttributeValue::S(value.to_owned()))
    }

    scalar_numbers!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
    );

    not_scalar!(
        serialize_f32(f32) -> AttributeValue,
        serialize_f64(f64) -> AttributeValue,
        serialize_char(char) -> AttributeValue,
        serialize_bytes(&[u8]) -> AttributeValue,
        serialize_none() -> AttributeValue,
        serialize_unit() -> AttributeValue,
        serialize_unit_struct(&'static str) -> AttributeValue,
        serialize_unit_variant(&'static str, u32, &'static str) -> AttributeValue,
        serialize_seq(Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(usize) -> Self::SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
        serialize_map(Option<usize>) -> Self::SerializeMap,
        serialize_struct(&'static str, usize) -> Self::SerializeStruct,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant,
    );

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<AttributeValue, NotScalar> {
        Err(NotScalar)
    }

    // serde_dynamo reads some newtype names as set markers: its own call.
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<AttributeValue, NotScalar> {
        Err(NotScalar)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<AttributeValue, NotScalar> {
        Err(NotScalar)
    }
}

/// A value back through serde_dynamo.
pub fn from_serde<T: DeserializeOwned>(
    value: AttributeValue,
    entity: &'static str,
) -> Result<T, Error> {
    serde_dynamo::from_attribute_value(value).map_err(|source| Error::Decode {
        entity,
        key: None,
        source,
    })
}

/// A field the item does not have, as serde decides: a type that reads an
/// option (`Option<T>`, under any name) is `None`, any other is the
/// missing-field error.
pub fn missing<T: DeserializeOwned>(
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    T::deserialize(MissingField(attribute)).map_err(|source| Error::Decode {
        entity,
        key: None,
        source,
    })
}

/// A deserializer of a field that is not there: `None` to an option, the
/// missing-field error to anything else.
struct MissingField(&'static str);

impl<'de> serde::Deserializer<'de> for MissingField {
    type Error = serde_dynamo::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(<serde_dynamo::Error as serde::de::Error>::missing_field(
            self.0,
        ))
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The error serde gives for a required field the item does not have.
pub fn missing_field(entity: &'static str, attribute: &'static str) -> Error {
    Error::Decode {
        entity,
        key: None,
        source: <serde_dynamo::Error as serde::de::Error>::missing_field(attribute),
    }
}

/// The entity's fields as serde_dynamo writes them: the conversion of an
/// entity the derive cannot convert field by field.
pub fn serde_item<E: serde::Serialize>(entity: &E, name: &'static str) -> Result<Item, Error> {
    serde_dynamo::to_item(entity).map_err(|source| Error::Encode {
        entity: name,
        source,
    })
}

/// Checks the entity type, then deserializes with serde_dynamo.
pub fn item_to_fields<T: serde::de::DeserializeOwned>(
    entity: &'static str,
    table: &TableDef,
    item: Item,
) -> Result<T, Error> {
    check_entity_type(entity, table, &item)?;
    serde_dynamo::from_item(item).map_err(|source| Error::Decode {
        entity,
        key: None,
        source,
    })
}
