//! The treefix operations: rootfix (path sums) and leaffix (subtree sums).

use serde::{Deserialize, Serialize};

/// A treefix operation (inclusive, as in the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    /// Σ w(u) over the path root → v, v included.
    Rootfix,
    /// Σ w(u) over the subtree of v, v included.
    Leaffix,
}

impl Op {
    pub const ALL: [Op; 2] = [Op::Rootfix, Op::Leaffix];
    pub fn name(self) -> &'static str {
        match self {
            Op::Rootfix => "rootfix",
            Op::Leaffix => "leaffix",
        }
    }
}

macro_rules! name_impls {
    ($t:ty, $what:literal) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
        impl std::str::FromStr for $t {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL
                    .into_iter()
                    .find(|x| x.name() == s)
                    .ok_or_else(|| {
                        let names: Vec<&str> = Self::ALL.iter().map(|x| x.name()).collect();
                        format!(
                            concat!("unknown ", $what, " '{}' (expected one of: {})"),
                            s,
                            names.join(", ")
                        )
                    })
            }
        }
    };
}
/// `Display` and `FromStr` by `name()` over `ALL`, for the named enumerations (ops, algorithms).
pub(crate) use name_impls;

name_impls!(Op, "operation");
