//! The run operation's errors: a scenario that passed validation and still could not be run
//! to its end. A device that ran out of space is its own error (`OutOfSpace`), distinct from
//! a run that stopped progressing on a device that need not be full (`NoProgress`). An
//! invalid scenario is not a run error (`FtlabError::Config`/`Syntax`), nor is a malformed
//! trace line met during the run (`FtlabError::Trace`).

/// A run that failed after validation.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The device of scenario `file` ran out of space (`stage`: while preconditioning, or at
    /// a simulated time of the timed run): the `waiting` tenants had data that could not be
    /// placed or requests that could not progress, writes waiting for free blocks GC could not
    /// reclaim, a job's copy that found no free block on the die it goes to, or the jobs (GC,
    /// wear leveling, the scheme's migrations) erased `erases` blocks (more than the device's
    /// `n_blocks`) while no request progressed, moving valid data in circles (`erases` is 0
    /// for the other kinds). `reason` says which, and the fix. Not a `Config` error: the
    /// scenario passed validation, preconditioning or the run itself found the shortage.
    #[error("{file}: the device ran out of space {}: {reason}", stage.when())]
    OutOfSpace {
        file: String,
        stage: Stage,
        waiting: Vec<String>,
        erases: u64,
        n_blocks: u32,
        reason: String,
    },
    /// The progress watchdog of the timed run of scenario `file` fired: from `from_ns` to
    /// `at_ns` (simulated) requests of the `waiting` tenants were outstanding and in `events`
    /// events (its bound, `bound`) no request completed and no host unit was placed, while the
    /// jobs erased `erases` blocks. `reason` gives the counts and the fix. Neither a `Config` error
    /// (the scenario passed validation) nor `OutOfSpace` (the device need not be full).
    #[error("{file}: {reason}")]
    NoProgress {
        file: String,
        from_ns: u64,
        at_ns: u64,
        waiting: Vec<String>,
        events: u64,
        bound: u64,
        erases: u64,
        reason: String,
    },
}

impl RunError {
    /// This error of scenario `file` (the run names the scenario only at the API's edge).
    pub(crate) fn in_file(mut self, name: &str) -> RunError {
        match &mut self {
            RunError::OutOfSpace { file, .. } | RunError::NoProgress { file, .. } => *file = name.to_string(),
        }
        self
    }
}

/// When a device ran out of space (`RunError::OutOfSpace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Filling or warming the device before the timed run (no simulated time).
    Precondition,
    /// The timed run, at this simulated time in nanoseconds.
    Run { at_ns: u64 },
}

impl Stage {
    /// "while preconditioning" or "at 1.500000 s": the words of an `OutOfSpace` message.
    fn when(&self) -> String {
        match self {
            Stage::Precondition => "while preconditioning".to_string(),
            Stage::Run { at_ns } => format!("at {:.6} s", *at_ns as f64 * 1e-9),
        }
    }
}
