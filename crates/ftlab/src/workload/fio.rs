//! PLACEHOLDER parser, to be replaced by the real one.

use super::{TraceError, TraceRecord};
use std::io::BufRead;

pub struct FioReader<R> { _input: R }

impl<R: BufRead> FioReader<R> {
    pub fn new(input: R) -> Self { FioReader { _input: input } }
}

impl<R: BufRead> Iterator for FioReader<R> {
    type Item = Result<TraceRecord, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        Some(Err(TraceError { line: 0, reason: "parser not implemented".into() }))
    }
}
