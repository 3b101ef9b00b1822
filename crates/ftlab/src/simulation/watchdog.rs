//! The progress guards' paths: what ends a run that cannot go on, with a precise error
//! instead of a hang. A run stalled with writes waiting for space (`stall_error`) and jobs
//! erasing more blocks than the device has while no request progresses (`livelock_error`),
//! and a job's copy that finds no free block where it goes (`no_copy_room_error`), end with
//! `RunError::OutOfSpace`; the watchdog's event and simulated-time bounds without progress
//! (`watchdog`) end with `RunError::NoProgress`. The counters are `Progress` (`progress.rs`);
//! not the loop itself (`run`).

use super::engine::{Engine, Executor};
use super::host_port::Tenant;
use super::job_table::NoCopyRoom;
use crate::error::{FtlabError, RunError, Stage};
use crate::policy::{JobKind, N_JOB_KINDS};

/// The fix every error of this file ends with: more spare space, or less data.
const MORE_SPACE: &str = "raise device.over_provisioning or lower precondition.fill_fraction";

impl<X: Executor> Engine<'_, X> {
    /// The run cannot go on: with writes stalled for space it is the scenario's capacity (a
    /// config error); anything else is a simulator bug.
    pub(super) fn stall_error(&self) -> FtlabError {
        let stalled: Vec<String> = self
            .host
            .tenants
            .iter()
            .zip(&self.host.names)
            .filter(|(t, _)| !t.stalled.is_empty())
            .map(|(_, n)| n.clone())
            .collect();
        assert!(
            !stalled.is_empty(),
            "simulation stalled at {:?} with host work left and no write waiting (deadlock)",
            self.now
        );
        let reason = format!(
            "writes of {} wait for free blocks, and GC finds no block with invalid data to collect; \
             {MORE_SPACE}",
            stalled.join(", ")
        );
        self.out_of_space(Stage::Run { at_ns: self.now.ns() }, stalled, 0, reason)
    }

    /// `RunError::OutOfSpace` of this device (the API's edge names the scenario's file).
    fn out_of_space(&self, stage: Stage, waiting: Vec<String>, erases: u64, reason: String) -> FtlabError {
        let n_blocks = self.ftl.geometry.n_blocks;
        FtlabError::from(RunError::OutOfSpace {
            file: "scenario".into(),
            stage,
            waiting,
            erases,
            n_blocks,
            reason,
        })
    }

    /// A job's copy found no free block (`NoCopyRoom`): the run's error, at the time of the
    /// timed run or while preconditioning.
    pub(super) fn no_copy_room_error(&self, n: NoCopyRoom) -> FtlabError {
        let stage = match X::write_time(self) {
            Some(t) => Stage::Run { at_ns: t.ns() },
            None => Stage::Precondition,
        };
        let name = self.host.names[n.owner as usize].clone();
        let reason = format!("tenant {name:?}: {}; {MORE_SPACE}", self.no_copy_room_reason(n));
        self.out_of_space(stage, vec![name], 0, reason)
    }

    /// What `NoCopyRoom` says, without the tenant's name or the fix. A copy onto its own die
    /// finds room by GC's reserve argument, unless copies the scheme sent there from other
    /// dies took the reserve first; a copy sent to another die has no such guarantee.
    pub(super) fn no_copy_room_reason(&self, n: NoCopyRoom) -> String {
        let reserve = self.ftl.params.host_reserve_blocks;
        let what = format!("a {} copy of its data from die {}", n.kind.name(), n.victim_die.0);
        if n.die == n.victim_die {
            format!(
                "{what} found no free block on that die: jobs' copies had used up its reserve \
                 (ftl.gc_reserve_blocks = {reserve} blocks, which host writes may not take)"
            )
        } else {
            format!(
                "{what} found no free block on die {}, where the scheme sends it (GC's reserve, \
                 ftl.gc_reserve_blocks = {reserve}, covers copies onto their own die only)",
                n.die.0
            )
        }
    }

    /// Requests were outstanding while jobs (GC, wear leveling, the scheme's migrations) erased
    /// more blocks than the device has, and no tenant completed one or placed a host unit
    /// meanwhile: every block could have been reclaimed once, so the jobs only move valid data
    /// in circles (a device full of valid data under a placement that leaves the writers no
    /// room, their operations queued for ever behind urgent jobs on dies they never free, or a
    /// scheme asking for more migrations than the device has room for). The reason counts the
    /// erases per job kind and names the migrations when they were most. Without this bound
    /// such a run never ends: its jobs keep the event queue alive. The bound is device-wide:
    /// one tenant starved while another progresses is slow, not stuck.
    fn livelock_error(&self) -> FtlabError {
        let waiting: Vec<(&String, String)> = self
            .host
            .tenants
            .iter()
            .zip(&self.host.names)
            .filter(|(t, _)| t.outstanding > 0)
            .map(|(t, n)| {
                (
                    n,
                    if t.stalled.is_empty() {
                        format!("{} requests of {n} wait behind GC and wear leveling", t.outstanding)
                    } else {
                        format!("writes of {n} wait for free blocks")
                    },
                )
            })
            .collect();
        assert!(!waiting.is_empty(), "livelock with nothing outstanding");
        let (erases, n_blocks) = (self.progress.erases_without_progress(), self.ftl.geometry.n_blocks);
        let what: Vec<&str> = waiting.iter().map(|(_, w)| w.as_str()).collect();
        let reason = livelock_reason(&what, &self.progress.erases_without_progress_by_kind, n_blocks);
        let waiting = waiting.into_iter().map(|(n, _)| n.clone()).collect();
        self.out_of_space(Stage::Run { at_ns: self.now.ns() }, waiting, erases, reason)
    }

    /// A tenant completed a request or placed a host unit: the livelock bound and the
    /// progress watchdog start over.
    #[inline]
    pub(super) fn progressed(&mut self) {
        self.progress.erases_without_progress_by_kind = [0; N_JOB_KINDS];
        self.progress.events_at = self.progress.events_handled;
        self.progress.at = self.now;
    }

    /// Whether `t`'s next request is due and not submitted although its queue has room: the
    /// scheme's admission holds it (`Admission::Defer`, re-asked at each of its deferrals).
    /// Strictly past its arrival, so a request arriving now, not yet pumped, is not counted.
    fn held(&self, t: &Tenant) -> bool {
        self.now > t.start
            && t.outstanding < t.queue_depth
            && t.next.is_some_and(|r| t.closed_loop || r.arrival < self.now)
    }

    /// The progress watchdog fired: `watchdog_events` events or `WATCHDOG_NS` of simulated time
    /// passed since the last progress. With nothing outstanding and nothing held by admission
    /// (an idle gap between arrivals) that is no fault and the count starts over; with
    /// requests outstanding or held the run ends with an error instead of running for ever.
    /// (Held requests used to count as idle: a part-ftl run whose writes were deferred at
    /// every poll ran 25,000 simulated seconds without ending, soak seed 76.)
    #[cold]
    pub(super) fn watchdog(&mut self) -> Result<(), FtlabError> {
        if self.host.tenants.iter().all(|t| t.outstanding == 0 && !self.held(t)) {
            self.progress.events_at = self.progress.events_handled;
            self.progress.at = self.now;
            return Ok(());
        }
        let outstanding: Vec<(&String, String)> = self
            .host
            .tenants
            .iter()
            .zip(&self.host.names)
            .filter(|(t, _)| t.outstanding > 0 || self.held(t))
            .map(|(t, n)| {
                (
                    n,
                    match (t.outstanding, self.held(t)) {
                        (k, false) => format!("{k} requests of {n} outstanding"),
                        (0, true) => format!("{n}'s next request held by the scheme's admission"),
                        (k, true) => {
                            format!(
                                "{k} requests of {n} outstanding and its next one held by the scheme's \
                                 admission"
                            )
                        }
                    },
                )
            })
            .collect();
        let counts: Vec<String> = outstanding.iter().map(|(_, d)| d.clone()).collect();
        let p = &self.progress;
        let events = p.events_handled - p.events_at;
        Err(FtlabError::from(RunError::NoProgress {
            file: "scenario".into(),
            from_ns: p.at.ns(),
            at_ns: self.now.ns(),
            waiting: outstanding.iter().map(|(n, _)| (*n).clone()).collect(),
            events,
            bound: p.watchdog_events,
            erases: p.erases_without_progress(),
            reason: format!(
                "the run made no progress from {:.6} s to {:.6} s: {}, and in {events} events (bound {}) no \
                 request completed and no host unit was placed; the jobs erased {} blocks meanwhile; \
                 {MORE_SPACE}",
                p.at.as_secs_f64(),
                self.now.as_secs_f64(),
                counts.join(", "),
                p.watchdog_events,
                p.erases_without_progress(),
            ),
        }))
    }

    /// The livelock bound: an erase (by a job of `kind`) while requests are outstanding counts
    /// against progress.
    pub(super) fn count_erase_without_progress(&mut self, kind: JobKind) -> Result<(), FtlabError> {
        if self.host.tenants.iter().all(|t| t.outstanding == 0) {
            return Ok(());
        }
        self.progress.erases_without_progress_by_kind[kind as usize] += 1;
        if self.progress.erases_without_progress() > self.ftl.geometry.n_blocks as u64 {
            return Err(self.livelock_error());
        }
        Ok(())
    }
}

/// The livelock error's reason: what the tenants wait for (`what`), the blocks each kind of
/// job erased meanwhile, and the fix. Names the scheme's migrations when they did most of the
/// erasing.
fn livelock_reason(what: &[&str], by_kind: &[u64; N_JOB_KINDS], n_blocks: u32) -> String {
    let erases: u64 = by_kind.iter().sum();
    let kinds: Vec<String> = JobKind::ALL
        .iter()
        .filter(|&&k| by_kind[k as usize] > 0)
        .map(|&k| format!("{} {}", k.name(), by_kind[k as usize]))
        .collect();
    let migrations = if 2 * by_kind[JobKind::Migrate as usize] > erases {
        "; most were the scheme's migrations (copies they kept on their own die are the job \
         counters' fallback_copies): it asks for more moves than the device has room for"
    } else {
        ""
    };
    format!(
        "{}, and the jobs erased {erases} blocks ({}; more than the device's {n_blocks}) while no \
         request progressed, moving valid data in circles{migrations}; {MORE_SPACE}",
        what.join("; "),
        kinds.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reason counts the erases by job kind (kinds that erased nothing left out) and names
    /// the migrations only when they were more than half.
    #[test]
    fn the_livelock_reason_counts_erases_by_job_kind() {
        let (gc, wl, migrate) =
            (JobKind::Gc as usize, JobKind::WearLevel as usize, JobKind::Migrate as usize);
        let mut by_kind = [0; N_JOB_KINDS];
        (by_kind[wl], by_kind[migrate]) = (64, 193);
        let r = livelock_reason(&["writes of a wait for free blocks"], &by_kind, 256);
        assert!(r.starts_with("writes of a wait for free blocks, and the jobs erased 257 blocks"), "{r}");
        assert!(r.contains("(wear_level 64, migrate 193; more than the device's 256)"), "{r}");
        assert!(r.contains("circles; most were the scheme's migrations"), "{r}");
        assert!(!r.contains("gc ") && !r.contains("parity "), "{r}");
        // Exactly half is not most.
        (by_kind[gc], by_kind[wl], by_kind[migrate]) = (128, 0, 128);
        let r = livelock_reason(&["a", "b"], &by_kind, 255);
        assert!(r.contains("a; b, and the jobs erased 256 blocks (gc 128, migrate 128;"), "{r}");
        assert!(!r.contains("most were"), "{r}");
    }
}
