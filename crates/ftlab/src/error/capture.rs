//! The capture operation's error (`ftlab capture`): a line of the strace log or of RocksDB's
//! info LOG that cannot be read, or a call the file-system model cannot follow, as
//! `CaptureError` (file, input, 1-based line) around a `CaptureErrorKind` (what, with typed
//! fields: the syscall, the argument, the text found). Capture's settings are configuration
//! (`FtlabError::Config`, key and range); a failed write of the output is `FtlabError::Io`.

use super::trace::TraceErrorKind;

/// Which input of the capture a line is from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureInput {
    /// The strace log (`strace -f -ttt -y`).
    Strace,
    /// RocksDB's info LOG (its `EVENT_LOG_v1` lines).
    Log,
}

impl CaptureInput {
    /// `strace` or `log`: the `input` attribute of Python's `CaptureError`.
    pub fn name(self) -> &'static str {
        match self {
            CaptureInput::Strace => "strace",
            CaptureInput::Log => "log",
        }
    }
}

/// A capture input line `line` (1-based) of file `file` that cannot be converted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {kind}")]
pub struct CaptureError {
    pub file: String,
    pub input: CaptureInput,
    pub line: u64,
    pub kind: CaptureErrorKind,
}

/// What is wrong with a capture input line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CaptureErrorKind {
    /// Reading the input failed (the I/O error's text).
    #[error("read error: {reason}")]
    Read { reason: String },
    /// A part of an strace line is not in the shape `expected` describes.
    #[error("expected {expected}, got {found:?}")]
    Malformed { expected: &'static str, found: String },
    /// The strace time column is not a number of seconds.
    #[error("{0} (run strace with -ttt)")]
    Time(TraceErrorKind),
    /// A `<... NAME resumed>` line without the `resumed>` marker.
    #[error("a malformed resumed call: {found:?}")]
    MalformedResumed { found: String },
    /// A call's return value cannot be read.
    #[error("a malformed return value in {found:?}")]
    MalformedReturn { found: String },
    /// A call with `found` arguments where the model reads at least `expected`.
    #[error("{call}: expected at least {expected} arguments, got {found}")]
    TooFewArguments { call: String, expected: usize, found: usize },
    /// Argument `index` (1-based; `what` it holds, if named) is not `expected`.
    #[error("{call}: argument {index}{} must be {expected}, got {found:?}", named(what))]
    BadArgument {
        call: String,
        index: usize,
        what: Option<&'static str>,
        expected: &'static str,
        found: String,
    },
    /// A relative path without the directory strace's `-y` prints.
    #[error("{call}: the relative path {path:?} needs its directory: run strace with -y")]
    RelativePath { call: String, path: String },
    /// An open whose returned fd has no path (strace ran without `-y`).
    #[error("{call}: the returned fd has no path: run strace with -y")]
    FdWithoutPath { call: String },
    /// A write whose end overflows 64 bits.
    #[error("{call}: offset {offset_bytes} + {size_bytes} bytes overflows 64 bits")]
    OffsetOverflow { call: String, offset_bytes: u64, size_bytes: u64 },
    /// The modelled file system has no room for a write or an allocation.
    #[error(
        "the modelled file system is full: {wanted_blocks} more blocks of 4 KiB wanted, {free_blocks} free \
         of {device_blocks} (raise device_bytes)"
    )]
    FileSystemFull { wanted_blocks: u64, free_blocks: u64, device_blocks: u64 },
    /// An `EVENT_LOG_v1` line whose JSON does not parse (serde_json's reason).
    #[error("the EVENT_LOG_v1 JSON is malformed: {reason}")]
    EventJson { reason: String },
    /// An `EVENT_LOG_v1` object without its `event` name.
    #[error("an EVENT_LOG_v1 object without \"event\"")]
    EventWithoutName,
    /// An event whose `key` is missing or not an unsigned integer.
    #[error("event {event:?}: \"{key}\" missing or not an unsigned integer")]
    EventField { event: String, key: &'static str },
    /// A `compaction_finished` whose `output_level` does not fit 32 bits.
    #[error("output_level out of range: {value} (at most {})", u32::MAX)]
    LevelOutOfRange { value: u64 },
}

fn named(what: &Option<&'static str>) -> String {
    what.map_or(String::new(), |w| format!(" ({w})"))
}

impl CaptureErrorKind {
    /// The kind's name in snake case: the `kind` attribute of Python's `CaptureError`.
    pub fn name(&self) -> &'static str {
        use CaptureErrorKind::*;
        match self {
            Read { .. } => "read",
            Malformed { .. } => "malformed",
            Time(_) => "time",
            MalformedResumed { .. } => "malformed_resumed",
            MalformedReturn { .. } => "malformed_return",
            TooFewArguments { .. } => "too_few_arguments",
            BadArgument { .. } => "bad_argument",
            RelativePath { .. } => "relative_path",
            FdWithoutPath { .. } => "fd_without_path",
            OffsetOverflow { .. } => "offset_overflow",
            FileSystemFull { .. } => "file_system_full",
            EventJson { .. } => "event_json",
            EventWithoutName => "event_without_name",
            EventField { .. } => "event_field",
            LevelOutOfRange { .. } => "level_out_of_range",
        }
    }

    /// The syscall the kind is about, if any: the `call` attribute of Python's `CaptureError`.
    pub fn call(&self) -> Option<&str> {
        use CaptureErrorKind::*;
        match self {
            TooFewArguments { call, .. }
            | BadArgument { call, .. }
            | RelativePath { call, .. }
            | FdWithoutPath { call }
            | OffsetOverflow { call, .. } => Some(call),
            _ => None,
        }
    }
}

/// A stream rule of `ftlab capture --rule` that does not parse (`PATTERN=STREAM` or
/// `PATTERN=STREAM+level`): the rule as given and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("rule {rule:?}: {problem}")]
pub struct RuleError {
    pub(crate) rule: String,
    pub(crate) problem: RuleProblem,
}

/// What is wrong with a stream rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleProblem {
    #[error("expected PATTERN=STREAM or PATTERN=STREAM+level")]
    NoStream,
    #[error("the stream must be an integer in [0, 65535], got {found:?}")]
    Stream { found: String },
    #[error("the pattern must be a non-empty file name pattern without '/'")]
    Pattern,
}
