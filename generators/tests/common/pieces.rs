//! A stream for the stream tests and the fuzzer: what a pipe delivers.

use rand::RngExt;

/// A reader that hands out `data` in pieces of random lengths (1 to 8192 bytes), sometimes
/// failing with `Interrupted` first, and, when `forever`, starts again at the end.
pub struct Pieces<'a> {
    pub data: &'a [u8],
    pub at: usize,
    pub forever: bool,
    pub rng: generators::Rng,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.rng.random_range(0..16) == 0 {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        if self.at == self.data.len() {
            if !self.forever || self.data.is_empty() {
                return Ok(0);
            }
            self.at = 0;
        }
        let n = self
            .rng
            .random_range(1..=8192)
            .min(buf.len())
            .min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
