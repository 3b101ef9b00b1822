//! The trace operation's error: a malformed or out-of-range trace line, as `TraceError` (the
//! file and 1-based line, added where the file was opened) around a `TraceErrorKind` (what is
//! wrong, with typed fields: the column, the text found, what was expected, the range).
//! The parsers (`workload::*`) return the kind; the host (`host::Source`) adds its own kinds
//! for records that parse but do not fit the device. Not the capture's strace and LOG lines
//! (`error::capture`).

use std::fmt;

/// A column of a trace format: its 1-based position and its name. Displayed as
/// `field 6 (Size)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub index: usize,
    pub name: &'static str,
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field {} ({})", self.index, self.name)
    }
}

/// How many fields a line must have: `5`, `at least 8`, `2 or 4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Exactly(usize),
    AtLeast(usize),
    Either(usize, usize),
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Exactly(n) => write!(f, "{n}"),
            Arity::AtLeast(n) => write!(f, "at least {n}"),
            Arity::Either(a, b) => write!(f, "{a} or {b}"),
        }
    }
}

/// A malformed trace line of file `file` at 1-based `line` (the line after the last one for
/// a problem found at the end of the input, such as a missing header).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {kind}")]
pub struct TraceError {
    pub file: String,
    pub line: u64,
    pub kind: TraceErrorKind,
}

/// What is wrong with a trace line. Each message names the column (`field 6 (Size)`) where
/// there is one, the text or value found, and what was expected or the range allowed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TraceErrorKind {
    /// The line's bytes are not UTF-8.
    #[error("the line is not valid UTF-8 text")]
    NotUtf8,
    /// The line is longer than `max_bytes` (terminator included).
    #[error("the line is longer than {max_bytes} bytes")]
    LineTooLong { max_bytes: u64 },
    /// Reading the input failed (the I/O error's text).
    #[error("read error: {reason}")]
    Read { reason: String },
    /// The line has `found` fields where the format (`layout`) has `expected`.
    #[error("expected {expected} fields ({layout}), got {found}")]
    FieldCount { expected: Arity, layout: &'static str, found: usize },
    /// The mandatory header (one of `expected`) is not the first line (`found`), or the
    /// input ends before it (`found` None).
    #[error("missing header: expected {}{}", quoted(expected, " or "), found_line(found))]
    MissingHeader { expected: &'static [&'static str], found: Option<String> },
    /// A header of a version this parser does not read.
    #[error("unsupported {what}: {found:?} (supported: {})", quoted(supported, " and "))]
    UnsupportedVersion { what: &'static str, found: String, supported: &'static [&'static str] },
    /// A field's text is not what its column holds.
    #[error("{field}: expected {expected}, got {found:?}")]
    BadField { field: Column, expected: String, found: String },
    /// A negative number where the column holds a non-negative one.
    #[error("{field}: expected {expected}, got the negative number {found:?}")]
    Negative { field: Column, expected: &'static str, found: String },
    /// A number too large for 64 bits (`max`, written in hexadecimal when `hex`).
    #[error("{field}: {found:?} does not fit in 64 bits (at most {})", limit(*max, *hex))]
    TooLarge { field: Column, found: String, max: u64, hex: bool },
    /// A number that parsed but is above the largest `max` its use (`what`) allows.
    #[error("{field}: {value} is too large for {what} (at most {max})")]
    OutOfRange { field: Column, value: u64, max: u64, what: &'static str },
    /// A number that parsed but is not one of the values the column allows (`expected`).
    #[error("{field}: expected {expected}, got {value}")]
    NotAllowed { field: Column, value: u64, expected: &'static str },
    /// A text that parsed as a number but is not a `what` (its range says why).
    #[error("{field}: {found:?} is not {what}")]
    NotA { field: Column, found: String, what: &'static str },
    /// `value` in `unit` overflows 64 bits once converted to bytes or nanoseconds.
    #[error("{field}: {value} {unit} overflow 64 bits")]
    ScaleOverflow { field: Column, value: u64, unit: &'static str },
    /// A time that overflows the 64-bit nanosecond clock.
    #[error("{field}: {found:?} overflows the 64-bit nanosecond clock")]
    ClockOverflow { field: Column, found: String },
    /// fio v2: the waits add up past the 64-bit nanosecond clock.
    #[error("{field}: the total of the waits overflows the 64-bit nanosecond clock")]
    WaitOverflow { field: Column },
    /// A read or write of 0 bytes.
    #[error("{field}: size must be > 0 for a read or write, got 0")]
    ZeroSize { field: Column },
    /// `offset_bytes + size_bytes` overflows 64 bits.
    #[error("{field}: offset {offset_bytes} + size {size_bytes} overflows the 64-bit byte address space")]
    AddressOverflow { field: Column, offset_bytes: u64, size_bytes: u64 },
    /// fio: an `action` with `found` fields where it takes `expected` (`needs` says what).
    #[error("{field}: {action:?} {needs}: expected {expected} fields, got {found}")]
    ActionArity { field: Column, action: String, needs: &'static str, expected: usize, found: usize },
    /// fio: an action the log's version does not allow (`context` says where and why).
    #[error("{field}: {action:?} is not allowed in {context}")]
    ActionNotAllowed { field: Column, action: &'static str, context: &'static str },
    /// msprod: a header line names column `field` `found` instead (`layout` is what is read).
    #[error("{field}: the {event} header names this column {found:?}; this parser reads {layout}")]
    HeaderColumn { field: Column, event: String, found: String, layout: &'static str },
    /// msprod: a header line lists `found` columns where `expected` are read.
    #[error("the {event} header lists {found} columns, expected {expected} ({layout})")]
    HeaderColumnCount { event: String, found: usize, expected: usize, layout: &'static str },
    /// msprod: the header block's markers are out of order.
    #[error("{0}")]
    HeaderBlock(HeaderBlock),
    /// Another kind, with a hint about the likely cause (`hint`).
    #[error("{kind} ({hint})")]
    Hint { kind: Box<TraceErrorKind>, hint: &'static str },
    /// The host: a request arrives at `at_s` (after `time_scale`), past the simulator's clock
    /// limit `limit_s`.
    #[error(
        "request arrives at {at_s:.0} s of simulated time (after time_scale), past the simulator's limit of \
         {limit_s} s"
    )]
    ArrivalPastLimit { at_s: f64, limit_s: u64 },
    /// The host (`address_map = "reject"`): a request at bytes [`start_bytes`, `end_bytes`)
    /// outside the namespace.
    #[error(
        "request at bytes [{start_bytes}, {end_bytes}) lies outside the namespace of {namespace_bytes} \
         bytes (address_map = \"reject\")"
    )]
    OutsideNamespace { start_bytes: u64, end_bytes: u64, namespace_bytes: u64 },
    /// The host: a request covering more mapping units than the whole namespace.
    #[error(
        "request of {size_bytes} bytes covers {n_units} mapping units, more than the whole namespace of \
         {namespace_units} units ({namespace_bytes} bytes); give the tenant a larger namespace"
    )]
    LargerThanNamespace { size_bytes: u64, n_units: u64, namespace_units: u32, namespace_bytes: u64 },
}

/// The markers of msprod's header blocks out of order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HeaderBlock {
    #[error("\"BeginHeader\" inside a header block (no \"EndHeader\" before it)")]
    NestedBegin,
    #[error("\"EndHeader\" without a \"BeginHeader\" before it")]
    EndWithoutBegin,
    #[error("the input ends inside a header block (\"BeginHeader\" without \"EndHeader\")")]
    Unterminated,
}

fn quoted(items: &[&str], sep: &str) -> String {
    items.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(sep)
}

fn found_line(found: &Option<String>) -> String {
    match found {
        Some(line) => format!(" as the first line, got {line:?}"),
        None => ", got the end of the input".to_string(),
    }
}

fn limit(max: u64, hex: bool) -> String {
    if hex {
        format!("{max:#x}")
    } else {
        max.to_string()
    }
}

impl TraceErrorKind {
    /// The kind's name in snake case (`bad_field`, `field_count`, ...): the `kind` attribute
    /// of Python's `TraceError`. A `Hint` has its inner kind's name.
    pub fn name(&self) -> &'static str {
        use TraceErrorKind::*;
        match self {
            NotUtf8 => "not_utf8",
            LineTooLong { .. } => "line_too_long",
            Read { .. } => "read",
            FieldCount { .. } => "field_count",
            MissingHeader { .. } => "missing_header",
            UnsupportedVersion { .. } => "unsupported_version",
            BadField { .. } => "bad_field",
            Negative { .. } => "negative",
            TooLarge { .. } => "too_large",
            OutOfRange { .. } => "out_of_range",
            NotAllowed { .. } => "not_allowed",
            NotA { .. } => "not_a",
            ScaleOverflow { .. } => "scale_overflow",
            ClockOverflow { .. } => "clock_overflow",
            WaitOverflow { .. } => "wait_overflow",
            ZeroSize { .. } => "zero_size",
            AddressOverflow { .. } => "address_overflow",
            ActionArity { .. } => "action_arity",
            ActionNotAllowed { .. } => "action_not_allowed",
            HeaderColumn { .. } => "header_column",
            HeaderColumnCount { .. } => "header_column_count",
            HeaderBlock(_) => "header_block",
            Hint { kind, .. } => kind.name(),
            ArrivalPastLimit { .. } => "arrival_past_limit",
            OutsideNamespace { .. } => "outside_namespace",
            LargerThanNamespace { .. } => "larger_than_namespace",
        }
    }

    /// The column the kind is about, if any.
    pub fn column(&self) -> Option<Column> {
        use TraceErrorKind::*;
        match self {
            BadField { field, .. }
            | Negative { field, .. }
            | TooLarge { field, .. }
            | OutOfRange { field, .. }
            | NotAllowed { field, .. }
            | NotA { field, .. }
            | ScaleOverflow { field, .. }
            | ClockOverflow { field, .. }
            | WaitOverflow { field }
            | ZeroSize { field }
            | AddressOverflow { field, .. }
            | ActionArity { field, .. }
            | ActionNotAllowed { field, .. }
            | HeaderColumn { field, .. } => Some(*field),
            Hint { kind, .. } => kind.column(),
            _ => None,
        }
    }

    /// The text or value found where the kind has one (a field's text, a number, a count).
    pub fn found(&self) -> Option<String> {
        use TraceErrorKind::*;
        match self {
            MissingHeader { found, .. } => found.clone(),
            UnsupportedVersion { found, .. }
            | BadField { found, .. }
            | Negative { found, .. }
            | TooLarge { found, .. }
            | NotA { found, .. }
            | ClockOverflow { found, .. }
            | HeaderColumn { found, .. } => Some(found.clone()),
            OutOfRange { value, .. } | NotAllowed { value, .. } | ScaleOverflow { value, .. } => {
                Some(value.to_string())
            }
            FieldCount { found, .. } | HeaderColumnCount { found, .. } | ActionArity { found, .. } => {
                Some(found.to_string())
            }
            ActionNotAllowed { action, .. } => Some(action.to_string()),
            ZeroSize { .. } => Some("0".to_string()),
            Hint { kind, .. } => kind.found(),
            _ => None,
        }
    }

    /// What was expected, or the range allowed, where the kind says.
    pub fn expected(&self) -> Option<String> {
        use TraceErrorKind::*;
        match self {
            FieldCount { expected, layout, .. } => Some(format!("{expected} fields ({layout})")),
            MissingHeader { expected, .. } => Some(quoted(expected, " or ")),
            UnsupportedVersion { supported, .. } => Some(quoted(supported, " or ")),
            BadField { expected, .. } => Some(expected.clone()),
            Negative { expected, .. } => Some(expected.to_string()),
            TooLarge { max, hex, .. } => Some(format!("at most {}", limit(*max, *hex))),
            OutOfRange { max, .. } => Some(format!("at most {max}")),
            NotAllowed { expected, .. } => Some(expected.to_string()),
            NotA { what, .. } => Some(what.to_string()),
            ZeroSize { .. } => Some("> 0".to_string()),
            ActionArity { expected, .. } => Some(format!("{expected} fields")),
            HeaderColumn { field, .. } => Some(field.name.to_string()),
            HeaderColumnCount { expected, .. } => Some(format!("{expected} columns")),
            Hint { kind, .. } => kind.expected(),
            _ => None,
        }
    }
}
