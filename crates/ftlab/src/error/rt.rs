//! The real-time analysis's error (`ftlab rt admit`): a task file that is not valid TOML
//! (`Syntax`: file, line, column) or whose tasks are invalid (`Task`: file, key path such as
//! `tasks.0.read_period_ms`, and a typed `TaskProblem` with the value found and the range).
//! The analysis's arguments (`--scheme`, `--sets`, `--read-share`) are usage errors
//! (`FtlabError::Usage`), as every operation's are.

/// A task file of `ftlab rt admit` that cannot be analysed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RtError {
    /// The task file is not valid TOML (`line` and `column` 1-based, 0 if unknown).
    #[error("{file}:{line}:{column}: {reason}")]
    Syntax { file: String, line: u64, column: u64, reason: String },
    /// A task's value at key path `key` (empty for the whole file) is wrong.
    #[error("{file}: {key}: {problem}")]
    Task { file: String, key: String, problem: TaskProblem },
}

/// What is wrong with a task file's value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TaskProblem {
    /// The file does not fit the task schema (serde's reason: an unknown key, a wrong type).
    #[error("{reason}")]
    Schema { reason: String },
    /// `found` tasks where 1 to `max` are allowed.
    #[error("must hold 1 to {max} tasks, got {found}")]
    Count { found: usize, max: usize },
    /// A task with neither read nor write pages.
    #[error("a task must read or write: set read_pages or write_pages above 0")]
    NoPages,
    /// A period given for a side without pages.
    #[error("given, but the task has no pages on this side")]
    PeriodWithoutPages,
    /// A side with pages and no period.
    #[error("required when the task has pages on this side")]
    PeriodMissing,
    /// A period outside (0, `max_ms`] ms.
    #[error("must be in (0, {max_ms}] ms, got {ms}")]
    PeriodOutOfRange { ms: f64, max_ms: f64 },
}

impl RtError {
    /// The task file's name.
    pub fn file(&self) -> &str {
        match self {
            RtError::Syntax { file, .. } | RtError::Task { file, .. } => file,
        }
    }
}

impl TaskProblem {
    /// The problem's name in snake case: the `problem` attribute of Python's `RtError`.
    pub fn name(&self) -> &'static str {
        match self {
            TaskProblem::Schema { .. } => "schema",
            TaskProblem::Count { .. } => "count",
            TaskProblem::NoPages => "no_pages",
            TaskProblem::PeriodWithoutPages => "period_without_pages",
            TaskProblem::PeriodMissing => "period_missing",
            TaskProblem::PeriodOutOfRange { .. } => "period_out_of_range",
        }
    }
}

/// A parameter `name` of the schedulability experiment (`ftlab rt schedulability`,
/// `rt::schedulability::Experiment`) out of its range: the value found and the range. The API
/// reports it as a usage error on the option that set it (`--sets`, `--read-share`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("must be in {range}, got {value}")]
pub struct ParameterError {
    pub name: &'static str,
    pub value: String,
    pub range: &'static str,
}
