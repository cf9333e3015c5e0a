//! Every conversion between Python objects and Rust values: the only module that touches
//! numpy. Arrays come in without a copy when they already are contiguous float32 (int64 for
//! parent arrays); anything else that numpy can read — a list, an object with `__array__`
//! (a CPU torch tensor, a CuPy array after `.get()`), one with `__dlpack__` — is converted
//! once. Values must survive the conversion exactly: float64 weights or results that are no
//! f32 are refused, never rounded behind the caller's back. Results go out as numpy arrays
//! that own the Rust vectors (no copy).

use crate::error::input;
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
    if obj.hasattr("__dlpack__")?
        && let Ok(a) = np.call_method1("from_dlpack", (obj,))
    {
        return Ok(a);
    }
    np.call_method1("asarray", (obj,))
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
