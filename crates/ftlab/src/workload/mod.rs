//! Workload inputs: trace parsers (one file per format, each over `impl BufRead`) and
//! synthetic generators. Everything here produces plain `TraceRecord`s; nothing here knows
//! about the device, the FTL or the scheme, and nothing here opens a file.

pub mod alibaba;
pub mod blkparse;
pub mod fio;
pub mod generator;
pub mod msr;
pub mod mqsim;
pub mod spc;
pub mod stats;
pub mod systor;
pub mod tencent;

use crate::sim::time::SimTime;
use serde::{Deserialize, Serialize};
use std::io::BufRead;

/// The operation a host request performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoOp {
    Read,
    Write,
    Trim,
}

/// One host request as read from a trace or produced by a generator.
///
/// `time` is the trace's own timestamp converted to nanoseconds; it is not rebased (the
/// host subtracts the first record's time). For closed-loop generators it is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    pub time: SimTime,
    pub op: IoOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    /// Virtual stream id (a trace column or a rule); 0 when the source has none.
    pub stream: u16,
}

/// A malformed trace line. The file name is added at the edge that opened the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct TraceError {
    /// 1-based line number in the input.
    pub line: u64,
    pub reason: String,
}

/// A stream of trace records. Each parser is one of these over any `BufRead`.
pub type RecordStream<'a> = Box<dyn Iterator<Item = Result<TraceRecord, TraceError>> + Send + 'a>;

/// The trace formats ftlab reads. The names are the ones a user types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// MSR Cambridge CSV.
    Msr,
    /// MQSim / DiskSim / SSDsim ASCII.
    Mqsim,
    /// SNIA SYSTOR'17 CSV.
    Systor,
    /// SPC / UMass (Financial, WebSearch).
    Spc,
    /// Tencent CBS CSV.
    Tencent,
    /// Alibaba block-trace CSV.
    Alibaba,
    /// blkparse default text output (D events).
    Blkparse,
    /// fio iolog v2 / v3.
    Fio,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 8] = [
        TraceFormat::Msr,
        TraceFormat::Mqsim,
        TraceFormat::Systor,
        TraceFormat::Spc,
        TraceFormat::Tencent,
        TraceFormat::Alibaba,
        TraceFormat::Blkparse,
        TraceFormat::Fio,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Systor => "systor",
            TraceFormat::Spc => "spc",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Fio => "fio",
        }
    }

    /// Parse a user-typed format name; `disksim` and `ssdsim` are aliases of `mqsim`.
    pub fn from_name(name: &str) -> Option<TraceFormat> {
        match name {
            "disksim" | "ssdsim" => Some(TraceFormat::Mqsim),
            _ => TraceFormat::ALL.into_iter().find(|f| f.name() == name),
        }
    }
}

/// Open a streaming parser for `format` over `input`.
pub fn read_trace<'a, R: BufRead + Send + 'a>(format: TraceFormat, input: R) -> RecordStream<'a> {
    match format {
        TraceFormat::Msr => Box::new(msr::MsrReader::new(input)),
        TraceFormat::Mqsim => Box::new(mqsim::MqsimReader::new(input)),
        TraceFormat::Systor => Box::new(systor::SystorReader::new(input)),
        TraceFormat::Spc => Box::new(spc::SpcReader::new(input)),
        TraceFormat::Tencent => Box::new(tencent::TencentReader::new(input)),
        TraceFormat::Alibaba => Box::new(alibaba::AlibabaReader::new(input)),
        TraceFormat::Blkparse => Box::new(blkparse::BlkparseReader::new(input)),
        TraceFormat::Fio => Box::new(fio::FioReader::new(input)),
    }
}
