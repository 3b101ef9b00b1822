//! fio iologs (`read_iolog` / `write_iolog` files), versions 2 and 3.
//!
//! - The first non-blank line must be `fio version 2 iolog` or `fio version 3 iolog`; any other `fio version
//!   N iolog` is "unsupported", anything else is "missing header".
//! - v2 lines: `filename action` for `add`/`open`/`close`, and `filename action offset length` for
//!   `read`/`write`/`trim`/`sync`/`datasync`/`wait`. v3 lines put a timestamp first: `timestamp filename
//!   action [offset length]`.
//! - `read`, `write` and `trim` become records (offset and length in bytes);
//!   `add`/`open`/`close`/`sync`/`datasync` produce none (sync lines may omit offset and length). The
//!   filename is not used: every file shares one address space, stream 0.
//! - v2 time: fio's documentation says `wait` waits `offset` microseconds, relative to the previous `wait`;
//!   so the clock starts at 0 and each `wait` advances it by that many microseconds (the length, if any, is
//!   ignored). A v2 log without waits is closed-loop: every record is at time 0. (fio's replay code treats
//!   the value as milliseconds since the job start; we follow the documentation.)
//! - v3 time: the timestamp is "relative to the beginning of the run" (fio's documentation gives no unit);
//!   fio writes it with `utime_since_now` and replays differences of it as microsecond delays, so it is read
//!   as microseconds. `wait` is not allowed in v3 (fio documents this): it is an error here.
//!
//! Not here: fio job files, fio's v1 trace format, and blktrace binaries replayed by fio.
//! The shared rules are in the `workload` module doc; nothing here opens a file.

use super::{checked, first_fields, Arity, Field, IoOp, LineFormat, LineReader, TraceErrorKind, TraceRecord};
use crate::sim::time::SimTime;

/// Streaming fio iolog parser over any `BufRead`.
pub(crate) type FioReader<R> = LineReader<R, Fio>;

const V2: &str = "fio version 2 iolog";
const V3: &str = "fio version 3 iolog";
const V2_LAYOUT: &str = "filename action [offset length]";
const V3_LAYOUT: &str = "timestamp filename action [offset length]";
const TIMESTAMP: Field = Field::new(1, "timestamp");

/// The fio iolog grammar; remembers the version and, for v2, the clock advanced by waits.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fio {
    version: Option<u8>,
    now_ns: u64,
}

const HEADERS: &[&str] = &[V2, V3];

fn parse_header(line: &str) -> Result<u8, TraceErrorKind> {
    match line.trim() {
        V2 => Ok(2),
        V3 => Ok(3),
        other if other.starts_with("fio version ") => Err(TraceErrorKind::UnsupportedVersion {
            what: "fio iolog version",
            found: other.to_string(),
            supported: HEADERS,
        }),
        other => Err(TraceErrorKind::MissingHeader { expected: HEADERS, found: Some(other.to_string()) }),
    }
}

/// An action and its arguments: `words` = action, offset, length (padded with `""`),
/// `count` = how many of them the line had, `at` = the action's 1-based field position.
struct Action<'a> {
    words: [&'a str; 3],
    count: usize,
    at: usize,
}

impl Action<'_> {
    /// `field N (action): "read" needs <what>: expected K fields, got M`.
    fn arity_error(&self, needs: &'static str, expected: usize) -> TraceErrorKind {
        TraceErrorKind::ActionArity {
            field: Field::new(self.at, "action"),
            action: self.words[0].to_string(),
            needs,
            expected,
            found: self.at - 1 + self.count,
        }
    }

    /// Fields a line has when the action takes `args` arguments.
    fn fields_with(&self, args: usize) -> usize {
        self.at + args
    }
}

impl Fio {
    fn line_v2(&mut self, words: [&str; 5], count: usize) -> Result<Option<TraceRecord>, TraceErrorKind> {
        if count < 2 {
            let expected = Arity::Either(2, 4);
            return Err(TraceErrorKind::FieldCount { expected, layout: V2_LAYOUT, found: count });
        }
        let action = Action { words: [words[1], words[2], words[3]], count: count - 1, at: 2 };
        self.action(self.now_ns, &action)
    }

    fn line_v3(&mut self, words: [&str; 5], count: usize) -> Result<Option<TraceRecord>, TraceErrorKind> {
        if count < 3 {
            let expected = Arity::Either(3, 5);
            return Err(TraceErrorKind::FieldCount { expected, layout: V3_LAYOUT, found: count });
        }
        let time = TIMESTAMP.scale(TIMESTAMP.u64(words[0])?, 1_000, "microseconds")?;
        let action = Action { words: [words[2], words[3], words[4]], count: count - 2, at: 3 };
        self.action(time, &action)
    }

    fn action(&mut self, time_ns: u64, a: &Action) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let [name, offset, length] = a.words;
        match name {
            "add" | "open" | "close" if a.count == 1 => Ok(None),
            "add" | "open" | "close" => Err(a.arity_error("takes no offset or length", a.fields_with(0))),
            "sync" | "datasync" if a.count == 1 || a.count == 3 => Ok(None),
            "sync" | "datasync" => {
                Err(a.arity_error("takes both or neither of offset and length", a.fields_with(0)))
            }
            "wait" if a.at == 3 => Err(TraceErrorKind::ActionNotAllowed {
                field: Field::new(a.at, "action"),
                action: "wait",
                context: "a version 3 iolog (timestamps replace it)",
            }),
            "wait" if a.count == 2 || a.count == 3 => self.wait(Field::new(a.at + 1, "offset"), offset),
            "wait" => Err(a.arity_error("needs a time in microseconds", a.fields_with(1))),
            "read" | "write" | "trim" if a.count == 3 => Fio::io(time_ns, name, offset, length, a.at),
            "read" | "write" | "trim" => Err(a.arity_error("needs an offset and a length", a.fields_with(2))),
            _ => Err(Field::new(a.at, "action")
                .error("add, open, close, read, write, trim, sync, datasync or wait", name)),
        }
    }

    /// A v2 `wait`: advance the clock by `usec` microseconds.
    fn wait(&mut self, field: Field, usec: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let delay = field.scale(field.u64(usec)?, 1_000, "microseconds")?;
        self.now_ns = self.now_ns.checked_add(delay).ok_or(TraceErrorKind::WaitOverflow { field })?;
        Ok(None)
    }

    fn io(
        time_ns: u64,
        name: &str,
        offset: &str,
        length: &str,
        at: usize,
    ) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let op = match name {
            "read" => IoOp::Read,
            "write" => IoOp::Write,
            _ => IoOp::Trim,
        };
        let length_field = Field::new(at + 2, "length");
        let record = TraceRecord {
            time: SimTime::from_ns(time_ns),
            op,
            offset_bytes: Field::new(at + 1, "offset").u64(offset)?,
            size_bytes: length_field.u64(length)?,
            stream: 0,
        };
        checked(record, length_field)
    }
}

impl LineFormat for Fio {
    fn parse_line(&mut self, line: &str) -> Result<Option<TraceRecord>, TraceErrorKind> {
        let Some(version) = self.version else {
            self.version = Some(parse_header(line)?);
            return Ok(None);
        };
        let (words, count) = first_fields::<5>(line.split_ascii_whitespace());
        if version == 3 {
            self.line_v3(words, count)
        } else {
            self.line_v2(words, count)
        }
    }

    fn finish(&mut self) -> Result<(), TraceErrorKind> {
        match self.version {
            Some(_) => Ok(()),
            None => Err(TraceErrorKind::MissingHeader { expected: HEADERS, found: None }),
        }
    }
}
