//! PLACEHOLDER parser, to be replaced by the real one.

use super::{TraceError, TraceRecord};
use std::io::BufRead;

pub struct SpcReader<R> { _input: R }

impl<R: BufRead> SpcReader<R> {
    pub fn new(input: R) -> Self { SpcReader { _input: input } }
}

impl<R: BufRead> Iterator for SpcReader<R> {
    type Item = Result<TraceRecord, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        Some(Err(TraceError { line: 0, reason: "parser not implemented".into() }))
    }
}
