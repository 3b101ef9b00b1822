//! The typed errors ftlab returns at its boundaries (scenario, trace, CLI input).
//! Bugs are not errors: a broken invariant is an `assert!` and panics.

use std::fmt;

/// Every user-facing error. Each names where the problem is (file and line, or key path)
/// and what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FtlabError {
    /// A scenario value is wrong, or a key is unknown or missing: `key` is a dotted path such
    /// as `device.channels` or `tenants.0.queue_depth`.
    #[error("{file}: {key}: {reason}")]
    Config { file: String, key: String, reason: String },
    /// A scenario file is not valid TOML (`line` is 1-based, 0 if unknown).
    #[error("{file}:{line}: {reason}")]
    Syntax { file: String, line: u64, reason: String },
    /// A trace line is malformed or out of range.
    #[error("{file}:{line}: {reason}")]
    Trace { file: String, line: u64, reason: String },
    /// A file could not be opened or read.
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    /// A command-line argument is wrong.
    #[error("{arg}: {reason}")]
    Usage { arg: String, reason: String },
}

/// A TOML parse error of `text` (file `file`) with its 1-based line (0 if unknown).
pub fn toml_syntax(file: &str, text: &str, e: &toml::de::Error) -> FtlabError {
    let line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() as u64 + 1).unwrap_or(0);
    FtlabError::Syntax { file: file.into(), line, reason: e.message().to_string() }
}

impl FtlabError {
    pub fn config(file: impl fmt::Display, key: impl Into<String>, reason: impl Into<String>) -> Self {
        FtlabError::Config { file: file.to_string(), key: key.into(), reason: reason.into() }
    }

    /// The Python exception class name this error maps to.
    pub fn kind(&self) -> &'static str {
        match self {
            FtlabError::Config { .. } | FtlabError::Syntax { .. } => "ConfigError",
            FtlabError::Trace { .. } => "TraceError",
            FtlabError::Io { .. } => "InputError",
            FtlabError::Usage { .. } => "UsageError",
        }
    }
}
