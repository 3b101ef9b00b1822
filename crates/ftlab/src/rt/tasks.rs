//! Task files (`ftlab rt admit TASKS.toml`): the paper's task model written as TOML, parsed
//! from text with errors that name the file and line (syntax) or the key path and the range
//! (values). Not a workload: a scenario's periodic tasks are `[tenants.periodic]`.
//!
//! ```toml
//! [[tasks]]
//! name = "sensor"          # optional, default "task<I>"
//! read_pages = 3           # r_i, default 0
//! read_period_ms = 15.0    # T_i^r, required when read_pages > 0
//! write_pages = 12         # w_i, default 0
//! write_period_ms = 60.0   # T_i^w, required when write_pages > 0
//! ```

use super::Task;
use crate::error::{line_column, RtError, TaskProblem};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TaskFile {
    tasks: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: Option<String>,
    #[serde(default)]
    read_pages: u32,
    read_period_ms: Option<f64>,
    #[serde(default)]
    write_pages: u32,
    write_period_ms: Option<f64>,
}

/// Longest period accepted, in ms (about 115 days).
const PERIOD_MS_MAX: f64 = 1e10;
/// Most tasks a file may hold.
const TASKS_MAX: usize = 1024;

fn task_error(file: &str, key: impl Into<String>, problem: TaskProblem) -> RtError {
    RtError::Task { file: file.to_string(), key: key.into(), problem }
}

/// The named tasks of a task file's `text` (`file` names it in errors).
pub(crate) fn parse(text: &str, file: &str) -> Result<Vec<(String, Task)>, RtError> {
    let de = toml::Deserializer::parse(text).map_err(|e| {
        let (line, column) = e.span().map_or((0, 0), |s| line_column(text, s.start));
        RtError::Syntax { file: file.to_string(), line, column, reason: e.message().trim().to_string() }
    })?;
    let parsed: TaskFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let key = if path == "." { String::new() } else { path };
        task_error(file, key, TaskProblem::Schema { reason: e.inner().message().to_string() })
    })?;
    if parsed.tasks.is_empty() || parsed.tasks.len() > TASKS_MAX {
        let problem = TaskProblem::Count { found: parsed.tasks.len(), max: TASKS_MAX };
        return Err(task_error(file, "tasks", problem));
    }
    parsed.tasks.into_iter().enumerate().map(|(i, e)| entry(file, i, e)).collect()
}

fn entry(file: &str, i: usize, e: Entry) -> Result<(String, Task), RtError> {
    let key = |k: &str| format!("tasks.{i}.{k}");
    if e.read_pages == 0 && e.write_pages == 0 {
        return Err(task_error(file, key("read_pages"), TaskProblem::NoPages));
    }
    let period = |pages: u32, p: Option<f64>, k: &str| -> Result<f64, RtError> {
        match (pages, p) {
            (0, None) => Ok(f64::INFINITY),
            (0, Some(_)) => Err(task_error(file, key(k), TaskProblem::PeriodWithoutPages)),
            (_, None) => Err(task_error(file, key(k), TaskProblem::PeriodMissing)),
            (_, Some(ms)) if ms > 0.0 && ms <= PERIOD_MS_MAX => Ok(ms),
            (_, Some(ms)) => {
                Err(task_error(file, key(k), TaskProblem::PeriodOutOfRange { ms, max_ms: PERIOD_MS_MAX }))
            }
        }
    };
    let task = Task {
        read_pages: e.read_pages,
        read_period_ms: period(e.read_pages, e.read_period_ms, "read_period_ms")?,
        write_pages: e.write_pages,
        write_period_ms: period(e.write_pages, e.write_period_ms, "write_period_ms")?,
    };
    Ok((e.name.unwrap_or_else(|| format!("task{i}")), task))
}
