//! PLACEHOLDER parser, to be replaced by the real one.

use super::{TraceError, TraceRecord};
use std::io::BufRead;

pub struct MsrReader<R> { _input: R }

impl<R: BufRead> MsrReader<R> {
    pub fn new(input: R) -> Self { MsrReader { _input: input } }
}

impl<R: BufRead> Iterator for MsrReader<R> {
    type Item = Result<TraceRecord, TraceError>;
    fn next(&mut self) -> Option<Self::Item> {
        Some(Err(TraceError { line: 0, reason: "parser not implemented".into() }))
    }
}
