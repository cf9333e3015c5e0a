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

/// Serializes an f64 as a number when finite, else as the string `"inf"`, `"-inf"` or `"NaN"`:
/// serde_json would write `null`, which reads as "missing" where it means "infinite".
pub fn number_or_string<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(*x)
    } else {
        s.serialize_str(&x.to_string())
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
    fn infinities_are_strings_in_json() {
        #[derive(serde::Serialize)]
        struct X(#[serde(serialize_with = "number_or_string")] f64);
        let json = |x| serde_json::to_string(&X(x)).unwrap();
        assert_eq!(json(1.5), "1.5");
        assert_eq!(json(f64::INFINITY), "\"inf\"");
        assert_eq!(json(f64::NAN), "\"NaN\"");
    }

    #[test]
    fn names_in_declaration_order_after_rename() {
        assert_eq!(field_names::<Two>(), ["a", "b_renamed"]);
        assert!(field_names::<u32>().is_empty());
    }
}
