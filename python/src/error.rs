//! The library's typed errors as Python exceptions: one base class, `TreefixError`, and a
//! subclass per kind, each carrying the one-line message `accuracy` prints.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use treefix_accuracy::Error;

create_exception!(
    treefix_accuracy,
    TreefixError,
    PyException,
    "Base class of every error treefix_accuracy raises."
);
create_exception!(
    treefix_accuracy,
    ReadError,
    TreefixError,
    "A tree or weights file that cannot be read: 'FILE:LINE:COL: reason'."
);
create_exception!(
    treefix_accuracy,
    TreeError,
    TreefixError,
    "A parent array that is no tree (no root, two roots, a cycle, a parent out of range)."
);
create_exception!(
    treefix_accuracy,
    InputError,
    TreefixError,
    "Arguments that do not fit: array lengths, dtypes, names, condition numbers."
);
create_exception!(
    treefix_accuracy,
    GpuError,
    TreefixError,
    "No GPU adapter, a GPU failure, or a tree beyond the adapter's limits."
);
create_exception!(
    treefix_accuracy,
    AccuracyError,
    TreefixError,
    "assert_accurate: results less accurate than required (the message names the worst vertex)."
);

/// The exception of an [`Error`], with its message.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Read(_) | Error::Io { .. } | Error::Csv { .. } | Error::Json { .. } => {
            ReadError::new_err(msg)
        }
        Error::Tree(_) => TreeError::new_err(msg),
        Error::Gpu(_) | Error::GpuLimit(_) => GpuError::new_err(msg),
        Error::Usage(_) | Error::Generate(_) | Error::Memory(_) => InputError::new_err(msg),
        Error::Gate(_) => AccuracyError::new_err(msg),
        _ => TreefixError::new_err(msg),
    }
}

/// An argument that does not fit, as [`InputError`].
pub fn input(msg: impl Into<String>) -> PyErr {
    InputError::new_err(msg.into())
}

/// Shows a library notice as a Python warning: `RuntimeWarning` for a warning, `UserWarning`
/// for information (a fallback taken, weights changed), with the notice's text.
pub fn warn(py: Python<'_>, notice: &treefix_accuracy::Notice) -> PyResult<()> {
    use pyo3::exceptions::{PyRuntimeWarning, PyUserWarning};
    let category = match notice.kind {
        treefix_accuracy::notice::NoticeKind::Warning => py.get_type::<PyRuntimeWarning>(),
        treefix_accuracy::notice::NoticeKind::Info => py.get_type::<PyUserWarning>(),
    };
    let text = std::ffi::CString::new(notice.to_string().replace('\0', " "))
        .expect("no NUL is left in the text");
    PyErr::warn(py, &category, &text, 1)
}

/// Registers the exception classes in the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("TreefixError", py.get_type::<TreefixError>())?;
    m.add("ReadError", py.get_type::<ReadError>())?;
    m.add("TreeError", py.get_type::<TreeError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("GpuError", py.get_type::<GpuError>())?;
    m.add("AccuracyError", py.get_type::<AccuracyError>())?;
    Ok(())
}
