//! The lifetime model's error (`ftlab lifetime`): an input file of the run it reads
//! (`summary.json`, `scenario.resolved.toml`) that is malformed (`Malformed`: file, 1-based
//! line and column where the parser says, 0 if unknown) or lacks a value the model needs
//! (`Missing`: file and key path). The model's own arguments (`--horizon-days`) are usage
//! errors (`FtlabError::Usage`).

/// An input of `ftlab lifetime` the model cannot read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LifetimeError {
    /// `file` does not parse (JSON or TOML), at `line`:`column`.
    #[error("{file}:{line}:{column}: {reason}")]
    Malformed { file: String, line: u64, column: u64, reason: String },
    /// `file` has no usable value at key path `key`: `what` says what was wrong.
    #[error("{file}: {key}: {what}")]
    Missing { file: String, key: String, what: String },
}

impl LifetimeError {
    /// The input file's name.
    pub fn file(&self) -> &str {
        match self {
            LifetimeError::Malformed { file, .. } | LifetimeError::Missing { file, .. } => file,
        }
    }
}
