//! A file's bytes, read within the memory a file's text may take ([`super::memory::text_limit`]).
//! A regular file declares its size: a larger one is refused before it is read. A stream
//! declares none — standard input, a pipe, a device file (`/dev/zero`, `/dev/urandom`), a
//! file in `/proc` — so it is read up to the limit and refused at the byte that passes it,
//! never read to an end that may not come. A regular file that grows while it is read is
//! bounded the same way.

use super::error::{ReadError, Reason};
use super::memory;
use std::io::Read;
use std::path::Path;

/// The bytes of the file at `path` (any kind: a regular file, a device, a named pipe), within
/// the text share of `memory_limit` (`None`: no limit).
pub fn read_bytes(path: &Path, memory_limit: Option<u64>) -> Result<Vec<u8>, ReadError> {
    let limit = memory::text_limit(memory_limit);
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(ReadError::File {
            path: path.to_path_buf(),
            reason: Reason::IsDirectory,
        });
    }
    if let Some(limit) = limit.filter(|&l| meta.is_file() && meta.len() > l) {
        return Err(ReadError::File {
            path: path.to_path_buf(),
            reason: Reason::FileTooLarge {
                bytes: meta.len(),
                limit,
            },
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let expected = if meta.is_file() { meta.len() } else { 0 };
    bounded(file, path, limit, expected)
}

/// Standard input's bytes, named `name` in messages, within the text share of `memory_limit`.
pub fn read_stdin(name: &Path, memory_limit: Option<u64>) -> Result<Vec<u8>, ReadError> {
    read_stream(std::io::stdin().lock(), name, memory_limit)
}

/// The bytes of any stream (a pipe, a socket), named `name` in messages, within the text
/// share of `memory_limit`.
pub fn read_stream(
    reader: impl Read,
    name: &Path,
    memory_limit: Option<u64>,
) -> Result<Vec<u8>, ReadError> {
    bounded(reader, name, memory::text_limit(memory_limit), 0)
}

/// Reads `reader` to its end, or to `limit` bytes and one more, which is an error: the
/// buffer never grows past the limit. `expected` (a regular file's size) sizes the buffer
/// at once.
fn bounded(
    reader: impl Read,
    path: &Path,
    limit: Option<u64>,
    expected: u64,
) -> Result<Vec<u8>, ReadError> {
    let cap = limit.unwrap_or(u64::MAX);
    let mut out = Vec::new();
    // One byte past the limit tells a stream that goes on from one that ends exactly there.
    let mut taken = reader.take(cap.saturating_add(1));
    if expected > 0 {
        out.reserve_exact(usize::try_from(expected.min(cap)).unwrap_or(0));
    }
    taken
        .read_to_end(&mut out)
        .map_err(|source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if out.len() as u64 > cap {
        return Err(ReadError::File {
            path: path.to_path_buf(),
            reason: Reason::StreamTooLarge { limit: cap },
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_stops_at_its_limit() {
        let e = bounded(std::io::repeat(b'('), Path::new("<stdin>"), Some(1000), 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "<stdin>: the input goes on past 1 kB, the memory a file's text may take (a third \
             of the 3 kB available): a stream without end (a device such as /dev/zero), or \
             one too large for this machine"
        );
        let ok = bounded(&b"(a,b);"[..], Path::new("t"), Some(6), 0).unwrap();
        assert_eq!(ok, b"(a,b);");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_file_is_read_as_a_stream() {
        let e = read_bytes(Path::new("/dev/zero"), Some(3 << 20)).unwrap_err();
        assert!(
            matches!(e.reason(), Some(Reason::StreamTooLarge { limit }) if *limit == 1 << 20),
            "{e}"
        );
    }
}
