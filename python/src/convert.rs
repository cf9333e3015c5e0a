//! Every conversion between Python objects and Rust values: the only module that touches
//! numpy. Arrays come in without a copy when they already are contiguous float32 (int64 for
//! parent arrays); anything else that numpy can read — a list, an object with `__array__`
//! (a CPU torch tensor, a CuPy array after `.get()`), one with `__dlpack__` — is converted
//! once. Values must survive the conversion exactly: the dtype names the format (float16,
//! bfloat16, float32, float64), and values are never rounded behind the caller's back. Results go out as numpy arrays
//! that own the Rust vectors (no copy).

use crate::error::input;
use generators::Precision;
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::IntoPyDict;

/// A 1-d array borrowed from Python, read-only while held.
pub struct Borrowed<'py, T: numpy::Element>(PyReadonlyArray1<'py, T>);

impl<T: numpy::Element> Borrowed<'_, T> {
    pub fn as_slice(&self) -> &[T] {
        self.0
            .as_slice()
            .expect("made contiguous by np.ascontiguousarray")
    }
}

/// `obj` as a numpy array: itself, through DLPack, or `np.asarray`.
fn ndarray<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let np = obj.py().import("numpy")?;
    if obj.is_instance(&np.getattr("ndarray")?)? {
        return Ok(obj.clone());
    }
    if obj.hasattr("__dlpack__")? {
        if let Ok(a) = np.call_method1("from_dlpack", (obj,)) {
            return Ok(a);
        }
        if let Some(a) = torch_bfloat16(obj)? {
            return Ok(a);
        }
    }
    np.call_method1("asarray", (obj,))
}

/// A torch bfloat16 tensor as an ml_dtypes bfloat16 array over the same memory: numpy has no
/// bfloat16 to take through DLPack, so the tensor's bits go as int16 and are viewed back.
/// `None` for anything else.
fn torch_bfloat16<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let py = obj.py();
    let is_torch = obj
        .get_type()
        .module()
        .is_ok_and(|m| m.to_string_lossy() == "torch");
    if !is_torch || obj.getattr("dtype")?.str()?.to_string_lossy() != "torch.bfloat16" {
        return Ok(None);
    }
    let int16 = py.import("torch")?.getattr("int16")?;
    let bits = obj.call_method1("view", (int16,))?;
    let np = py.import("numpy")?;
    let bits = np.call_method1("from_dlpack", (bits,))?;
    let bf16 = py.import("ml_dtypes")?.getattr("bfloat16")?;
    Ok(Some(bits.call_method1("view", (bf16,))?))
}

/// A 1-d contiguous array of `dtype` (`"float32"`, `"int64"`) holding exactly `obj`'s values;
/// `what` names the argument in errors.
fn exact_1d<'py, T: numpy::Element>(
    obj: &Bound<'py, PyAny>,
    dtype: &str,
    what: &str,
) -> PyResult<Borrowed<'py, T>> {
    let np = obj.py().import("numpy")?;
    let arr = ndarray(obj)?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    if shape.len() != 1 {
        return Err(input(format!(
            "{what}: expected a 1-d array, got shape {shape:?}"
        )));
    }
    let have = arr.getattr("dtype")?;
    let want = np.call_method1("dtype", (dtype,))?;
    let arr = if have.eq(&want)? {
        arr
    } else {
        let kind: String = have.getattr("kind")?.extract()?;
        if !"fiub".contains(kind.as_str()) {
            return Err(input(format!(
                "{what}: dtype {have} cannot hold {dtype} values"
            )));
        }
        let cast = arr.call_method1("astype", (&want,))?;
        let same = if kind == "f" {
            np.call_method(
                "array_equal",
                (&cast, &arr),
                Some(&[("equal_nan", true)].into_py_dict(obj.py())?),
            )?
        } else {
            np.call_method1("array_equal", (&cast, &arr))?
        };
        if !same.extract::<bool>()? {
            return Err(input(format!(
                "{what}: dtype {have} holds values that are no {dtype} (convert with \
                 .astype(np.{dtype}) if that is what was computed)"
            )));
        }
        cast
    };
    let arr = np.call_method1("ascontiguousarray", (arr,))?;
    let arr = arr
        .cast_into::<PyArray1<T>>()
        .map_err(|e| input(format!("{what}: {e}")))?;
    Ok(Borrowed(arr.try_readonly().map_err(|e| {
        input(format!(
            "{what}: the array is being written elsewhere ({e})"
        ))
    })?))
}

/// f32 values (weights, results): float32 arrays are borrowed, others converted exactly.
pub fn f32s<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Borrowed<'py, f32>> {
    exact_1d(obj, "float32", what)
}

/// Values of a storage format: float32 and float64 arrays borrowed, float16 and bfloat16 ones
/// widened to the f32 that carries them (exactly).
pub enum Values<'py> {
    Borrowed(Borrowed<'py, f32>),
    Owned(Vec<f32>),
    F64(Borrowed<'py, f64>),
}

impl Values<'_> {
    /// Values of a format f32 carries (f16, bf16, f32).
    ///
    /// # Panics
    /// For f64 values ([`Values::as_f64`]).
    pub fn as_slice(&self) -> &[f32] {
        match self {
            Values::Borrowed(b) => b.as_slice(),
            Values::Owned(v) => v,
            Values::F64(_) => panic!("f64 values are read by as_f64"),
        }
    }

    /// f64 values; None for the formats f32 carries.
    pub fn as_f64(&self) -> Option<&[f64]> {
        match self {
            Values::F64(b) => Some(b.as_slice()),
            _ => None,
        }
    }
}

/// Weights or results and their format, read from the dtype: numpy float16, ml_dtypes
/// bfloat16 (and torch tensors of either, through DLPack), float32, float64; anything else
/// (integers, lists of them) as [`f32s`] takes it.
pub fn values<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<(Values<'py>, Precision)> {
    let arr = ndarray(obj)?;
    let name: String = arr.getattr("dtype")?.getattr("name")?.extract()?;
    let narrow = match name.as_str() {
        "float16" => Precision::F16,
        "bfloat16" => Precision::Bf16,
        "float64" => {
            let v = exact_1d::<f64>(&arr, "float64", what)?;
            return Ok((Values::F64(v), Precision::F64));
        }
        _ => return Ok((Values::Borrowed(f32s(&arr, what)?), Precision::F32)),
    };
    // Both are 2-byte formats: their bits, read as uint16 without a copy.
    let bits = exact_1d::<u16>(&arr.call_method1("view", ("uint16",))?, "uint16", what)?;
    let widen: fn(u16) -> f32 = match narrow {
        Precision::F16 => |b| half::f16::from_bits(b).to_f32(),
        _ => |b| half::bf16::from_bits(b).to_f32(),
    };
    let v = bits.as_slice().iter().map(|&b| widen(b)).collect();
    Ok((Values::Owned(v), narrow))
}

/// Values of `storage` (carried as f32) as a numpy array of that dtype: float32 as it is,
/// float16 through numpy, bfloat16 through ml_dtypes.
pub fn stored<'py>(
    py: Python<'py>,
    v: Vec<f32>,
    storage: Precision,
) -> PyResult<Bound<'py, PyAny>> {
    let narrow: fn(f32) -> u16 = match storage {
        Precision::F32 | Precision::F64 => return Ok(array(py, v).into_any()),
        Precision::F16 => |x| half::f16::from_f32(x).to_bits(),
        Precision::Bf16 => |x| half::bf16::from_f32(x).to_bits(),
    };
    let bits = array(py, v.into_iter().map(narrow).collect::<Vec<u16>>());
    let dtype: Bound<'py, PyAny> = match storage {
        Precision::F16 => py.import("numpy")?.getattr("float16")?,
        _ => py.import("ml_dtypes")?.getattr("bfloat16")?,
    };
    bits.call_method1("view", (dtype,))
}

/// A parent array (int64; a negative value at the root).
pub fn parents<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Borrowed<'py, i64>> {
    exact_1d(obj, "int64", "parents")
}

/// Vertex ids (int64, converted exactly); `what` names the argument in errors.
pub fn ids<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Borrowed<'py, i64>> {
    exact_1d(obj, "int64", what)
}

/// A Rust vector as a numpy array that owns it.
pub fn array<'py, T: numpy::Element>(py: Python<'py>, v: Vec<T>) -> Bound<'py, PyArray1<T>> {
    v.into_pyarray(py)
}

/// An owned array kept in a Python object's field.
pub type Owned<T> = Py<PyArray1<T>>;

/// [`array`], unbound from the interpreter's lifetime.
pub fn owned<T: numpy::Element>(py: Python<'_>, v: Vec<T>) -> Owned<T> {
    array(py, v).unbind()
}
