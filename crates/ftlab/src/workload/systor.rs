//! PLACEHOLDER parser, to be replaced by the real one.

use super::{TraceError, TraceRecord};
use std::io::BufRead;

pub struct SystorReader<R> { _input: R }

impl<R: BufRead> SystorReader<R> {
    pub fn new(input: R) -> Self { SystorReader { _input: input } }
}

impl<R: BufRead> Iterator for SystorReader<R> {
    type Item = Result<TraceRecord, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        Some(Err(TraceError { line: 0, reason: "parser not implemented".into() }))
    }
}
