//! The column names of a record type, read from its serde derive.
//!
//! `#[derive(Deserialize)]` hands the struct's field names (after `rename`) to
//! `Deserializer::deserialize_struct`; a deserializer that only records them gives the header
//! of the file format without a hand-written list.

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// The serialized field names of the struct `T`, in declaration (= column) order; empty if
/// `T` is not a struct.
pub fn field_names<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    let mut names = None;
    let _ = T::deserialize(FieldNames(&mut names));
    names.unwrap_or(&[])
}

struct FieldNames<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = de::value::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(de::Error::custom("field names recorded"))
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Two {
        a: u8,
        #[serde(rename = "b_renamed")]
        b: Option<f64>,
    }

    #[test]
    fn names_in_declaration_order_after_rename() {
        assert_eq!(field_names::<Two>(), ["a", "b_renamed"]);
        assert!(field_names::<u32>().is_empty());
    }
}
