//! The typed errors ftlab returns at its boundaries, and the "did you mean" suggestion their
//! messages use: `FtlabError` (this file), the one type crossing the API, whose variants are
//! the scenario's, the inputs' and the arguments' errors and one enum per operation (the
//! submodules: `run`, `trace`, `capture`, `rt`, `lifetime`). Bugs are not errors: a broken invariant is an
//! `assert!` and panics.

pub mod capture;
pub mod lifetime;
pub mod rt;
pub mod run;
pub mod trace;

pub use capture::{CaptureError, CaptureErrorKind, CaptureInput, RuleError, RuleProblem};
pub use lifetime::LifetimeError;
pub use rt::{ParameterError, RtError, TaskProblem};
pub use run::{RunError, Stage};
use std::fmt;
pub use trace::{TraceError, TraceErrorKind};

/// Every user-facing error: the one type crossing the API boundary (`api`, the bindings).
/// Each names where the problem is (file and line, or key path) and what was expected. No
/// message starts with a blank line or ends with a newline. The scenario's, the inputs' and
/// the arguments' errors are variants here; each operation's own errors are an enum of their
/// own, wrapped (`Run`, `Trace`, `Capture`, `Rt`, `Lifetime`), with typed fields.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FtlabError {
    /// A scenario value is wrong, or a key is unknown or missing: `key` is a dotted path such
    /// as `device.channels` or `tenants.0.queue_depth`; `place` is where it was written.
    #[error("{}: {key}: {reason}", place.prefix(file))]
    Config { file: String, key: String, reason: String, place: Place },
    /// A scenario file is not valid TOML (`line` and `column` are 1-based, 0 if unknown).
    #[error("{file}:{line}:{column}: {reason}")]
    Syntax { file: String, line: u64, column: u64, reason: String },
    /// A file could not be opened or read.
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    /// A command-line argument is wrong.
    #[error("{arg}: {reason}")]
    Usage { arg: String, reason: String },
    /// A valid scenario's run failed: the device ran out of space, or the run stopped
    /// progressing.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A trace line is malformed or out of range (boxed: its kind is large, and every
    /// `Result<_, FtlabError>` would carry its size).
    #[error(transparent)]
    Trace(Box<TraceError>),
    /// A line of `ftlab capture`'s inputs cannot be converted (boxed, as `Trace`).
    #[error(transparent)]
    Capture(Box<CaptureError>),
    /// A task file of `ftlab rt admit` is invalid.
    #[error(transparent)]
    Rt(#[from] RtError),
    /// An input of `ftlab lifetime` is malformed or lacks a value.
    #[error(transparent)]
    Lifetime(#[from] LifetimeError),
}

impl From<TraceError> for FtlabError {
    fn from(e: TraceError) -> Self {
        FtlabError::Trace(Box::new(e))
    }
}

impl From<CaptureError> for FtlabError {
    fn from(e: CaptureError) -> Self {
        FtlabError::Capture(Box::new(e))
    }
}

/// Where the key of a `Config` error was written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Place {
    /// Not located: a key the file leaves out (a default), or not from a file at all.
    #[default]
    Unknown,
    /// In the file, at this 1-based line and column (of the key, or of the array element).
    At { line: u64, column: u64 },
    /// Set by this `--set` override (`key.path=value`, as given).
    Set(String),
}

impl Place {
    /// `file`, `file:line:column` or `--set key.path=value`: what a message starts with.
    fn prefix(&self, file: &str) -> String {
        match self {
            Place::Unknown => file.to_string(),
            Place::At { line, column } => format!("{file}:{line}:{column}"),
            Place::Set(assignment) => format!("--set {assignment}"),
        }
    }
}

/// 1-based (line, column) of byte `offset` in `text` (the column counts characters).
pub(crate) fn line_column(text: &str, offset: usize) -> (u64, u64) {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (before.matches('\n').count() as u64 + 1, before[line_start..].chars().count() as u64 + 1)
}

/// A TOML parse error of `text` (file `file`) with its 1-based line and column (0 if unknown).
pub(crate) fn toml_syntax(file: &str, text: &str, e: &toml::de::Error) -> FtlabError {
    let (line, column) = e.span().map_or((0, 0), |s| line_column(text, s.start));
    let reason = e.message().trim().to_string();
    FtlabError::Syntax { file: file.into(), line, column, reason }
}

/// The candidate closest to `word`, if it is close enough to be a likely typo: at most 2 edits
/// (1 for words of 3 or 4 characters, none for shorter ones), or `word` being a whole `_`/`-`-separated part
/// of it (`theta` for `zipf_theta`, `duration` for `duration_s`). Ties go to the first
/// candidate. The edit distance is written out here (twenty lines) rather than taken from a
/// crate (strsim): not worth a dependency.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = match word.chars().count() {
        0..=2 => 0,
        3..=4 => 1,
        _ => 2,
    };
    let part_of = |c: &str| {
        c.len() > word.len()
            && c.split(['_', '-']).count() > 1
            && (c.starts_with(&format!("{word}_"))
                || c.ends_with(&format!("_{word}"))
                || c.starts_with(&format!("{word}-")))
    };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        let d = if part_of(c) { 0 } else { edit_distance(word, c) };
        if (d <= limit || part_of(c)) && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Edits that turn `a` into `b`: insertions, deletions, substitutions of one character and
/// swaps of two adjacent ones (`dise` -> `dies` is one edit), each substring edited once (the
/// "optimal string alignment" distance).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// serde's "unknown field `x`, expected one of `a`, `b`" (or "unknown variant ...") with a
/// suggestion after the unknown name when one candidate is close: "unknown field `chanels`
/// (did you mean `channels`?), expected one of ...". Other reasons are returned unchanged.
pub(crate) fn suggest_in_reason(reason: &str) -> String {
    let Some(rest) =
        reason.strip_prefix("unknown field `").or_else(|| reason.strip_prefix("unknown variant `"))
    else {
        return reason.to_string();
    };
    let Some((word, tail)) = rest.split_once('`') else { return reason.to_string() };
    let candidates = tail.split('`').skip(1).step_by(2);
    match did_you_mean(word, candidates) {
        Some(best) => {
            let head = &reason[..reason.len() - tail.len()];
            format!("{head} (did you mean `{best}`?){tail}")
        }
        None => reason.to_string(),
    }
}

impl FtlabError {
    pub(crate) fn config(file: impl fmt::Display, key: impl Into<String>, reason: impl Into<String>) -> Self {
        FtlabError::Config {
            file: file.to_string(),
            key: key.into(),
            reason: reason.into(),
            place: Place::Unknown,
        }
    }

    /// The Python exception class name this error maps to (`ftlab._core`): one class per
    /// variant, `RunError`'s two kinds each their own.
    pub fn kind(&self) -> &'static str {
        match self {
            FtlabError::Config { .. } | FtlabError::Syntax { .. } => "ConfigError",
            FtlabError::Io { .. } => "InputError",
            FtlabError::Usage { .. } => "UsageError",
            FtlabError::Run(RunError::OutOfSpace { .. }) => "OutOfSpaceError",
            FtlabError::Run(RunError::NoProgress { .. }) => "NoProgressError",
            FtlabError::Trace(_) => "TraceError",
            FtlabError::Capture(_) => "CaptureError",
            FtlabError::Rt(_) => "RtError",
            FtlabError::Lifetime(_) => "LifetimeError",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let keys = ["preset", "channels", "chips_per_channel", "timing"];
        assert_eq!(did_you_mean("chanels", keys), Some("channels"));
        assert_eq!(did_you_mean("timming", keys), Some("timing"));
        assert_eq!(did_you_mean("bogus", keys), None);
        assert_eq!(did_you_mean("theta", ["zipf_theta", "hot_fraction"]), Some("zipf_theta"));
        assert_eq!(did_you_mean("duration", ["duration_s", "warmup_s"]), Some("duration_s"));
        // Short words: one edit at most, none for two letters ("qd" is not "id").
        assert_eq!(did_you_mean("qd", ["id", "queue_depth"]), None);
        assert_eq!(did_you_mean("upj", ["upi", "unified"]), Some("upi"));
        assert_eq!(did_you_mean("dise", ["kind", "dies"]), Some("dies"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("dise", "dies"), 1);
        assert_eq!(edit_distance("ca", "abc"), 3);
    }

    #[test]
    fn reasons_with_a_suggestion() {
        let r = "unknown field `chanels`, expected one of `preset`, `channels`";
        assert_eq!(
            suggest_in_reason(r),
            "unknown field `chanels` (did you mean `channels`?), expected one of `preset`, `channels`"
        );
        let r = "unknown variant `greedyy`, expected `greedy` or `cost-benefit`";
        assert_eq!(
            suggest_in_reason(r),
            "unknown variant `greedyy` (did you mean `greedy`?), expected `greedy` or `cost-benefit`"
        );
        let r = "unknown field `oracle`, expected `integrity`";
        assert_eq!(suggest_in_reason(r), r);
        assert_eq!(suggest_in_reason("invalid type: string"), "invalid type: string");
    }

    #[test]
    fn places_and_columns() {
        assert_eq!(line_column("a = 1\nbb = 2\n", 6), (2, 1));
        assert_eq!(line_column("a = 1\nbb = 2\n", 11), (2, 6));
        assert_eq!(line_column("é = 1", 2), (1, 2));
        assert_eq!(line_column("é = 1", 3), (1, 3));
        let e = FtlabError::Config {
            file: "s.toml".into(),
            key: "k".into(),
            reason: "r".into(),
            place: Place::At { line: 3, column: 1 },
        };
        assert_eq!(e.to_string(), "s.toml:3:1: k: r");
        let e = FtlabError::Config {
            file: "s.toml".into(),
            key: "k".into(),
            reason: "r".into(),
            place: Place::Set("k=1".into()),
        };
        assert_eq!(e.to_string(), "--set k=1: k: r");
        assert_eq!(FtlabError::config("s.toml", "k", "r").to_string(), "s.toml: k: r");
    }

    #[test]
    fn out_of_space_is_its_own_kind() {
        let e = FtlabError::from(RunError::OutOfSpace {
            file: "s.toml".into(),
            stage: Stage::Run { at_ns: 1_500_000_000 },
            waiting: vec!["a".into()],
            erases: 0,
            n_blocks: 256,
            reason: "writes of a wait".into(),
        });
        assert_eq!(e.to_string(), "s.toml: the device ran out of space at 1.500000 s: writes of a wait");
        assert_eq!(e.kind(), "OutOfSpaceError");
        let e = FtlabError::from(RunError::OutOfSpace {
            file: "s.toml".into(),
            stage: Stage::Precondition,
            waiting: vec!["a".into()],
            erases: 0,
            n_blocks: 256,
            reason: "tenant \"a\": full".into(),
        });
        let text = "s.toml: the device ran out of space while preconditioning: tenant \"a\": full";
        assert_eq!(e.to_string(), text);
        let e = FtlabError::from(RunError::NoProgress {
            file: "s.toml".into(),
            from_ns: 0,
            at_ns: 1,
            waiting: vec!["a".into()],
            events: 1,
            bound: 0,
            erases: 0,
            reason: "the run made no progress".into(),
        });
        assert_eq!(e.to_string(), "s.toml: the run made no progress");
        assert_eq!(e.kind(), "NoProgressError");
    }
}
