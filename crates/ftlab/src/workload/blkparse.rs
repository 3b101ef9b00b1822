//! PLACEHOLDER parser, to be replaced by the real one.

use super::{TraceError, TraceRecord};
use std::io::BufRead;

pub struct BlkparseReader<R> { _input: R }

impl<R: BufRead> BlkparseReader<R> {
    pub fn new(input: R) -> Self { BlkparseReader { _input: input } }
}

impl<R: BufRead> Iterator for BlkparseReader<R> {
    type Item = Result<TraceRecord, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        Some(Err(TraceError { line: 0, reason: "parser not implemented".into() }))
    }
}
