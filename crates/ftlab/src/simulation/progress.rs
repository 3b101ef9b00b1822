//! `Progress`, the engine's part that counts what the progress guards need: events handled,
//! erases and events since the last progress, the watchdog's bounds, epochs queued. Data
//! only: the guards' paths and errors are `watchdog.rs`'s; not the loop itself (`run`).

use crate::flash::geometry::Geometry;
use crate::policy::N_JOB_KINDS;
use crate::sim::time::SimTime;

/// The progress watchdog's event bound (see `watchdog`): events handled while requests are
/// outstanding and no tenant completed one or placed a host unit, per flash page of the
/// device, plus a floor for small devices. Relocating every valid page of the device once
/// takes about 4 events per page (read, transfer, program, their completions); the erase
/// bound of `livelock_error` ends a copy-in-circles livelock first, this one ends cycles
/// without erases (epochs ticking, copy-only jobs).
const WATCHDOG_EVENTS_PER_PAGE: u64 = 16;
const WATCHDOG_EVENTS_FLOOR: u64 = 1 << 22;
/// The watchdog's simulated-time bound: no request of any tenant completes and no host unit
/// is placed for this long while requests are outstanding (a real SSD answers in ms).
const WATCHDOG_NS: u64 = 600_000_000_000;

/// What the guards count. Invariant: `events_at <= events_handled`.
pub(super) struct Progress {
    /// Events the timed loop handled.
    pub(super) events_handled: u64,
    /// Blocks erased while requests were outstanding, since any tenant last completed one or
    /// placed a host unit, per `JobKind` of the job that erased (see `livelock_error`).
    pub(super) erases_without_progress_by_kind: [u64; N_JOB_KINDS],
    /// `events_handled` and the simulated time when a tenant last completed a request or
    /// placed a host unit (the progress watchdog, see `watchdog`).
    pub(super) events_at: u64,
    pub(super) at: SimTime,
    /// The watchdog's event bound for this device.
    pub(super) watchdog_events: u64,
    /// `Event::Epoch` and `Event::MapperEpoch` in the queue: epochs alone do not keep a run
    /// going (each would otherwise see the other pending and tick for ever).
    pub(super) epochs_queued: usize,
}

impl Progress {
    /// Blocks erased since the last progress, by any job.
    pub(super) fn erases_without_progress(&self) -> u64 {
        self.erases_without_progress_by_kind.iter().sum()
    }

    pub(super) fn new(g: &Geometry) -> Progress {
        Progress {
            events_handled: 0,
            erases_without_progress_by_kind: [0; N_JOB_KINDS],
            events_at: 0,
            at: SimTime::ZERO,
            watchdog_events: WATCHDOG_EVENTS_FLOOR
                + WATCHDOG_EVENTS_PER_PAGE * g.n_blocks as u64 * g.pages_per_block as u64,
            epochs_queued: 0,
        }
    }

    /// Whether the watchdog's bounds passed at `now` (checked after every event).
    #[inline]
    pub(super) fn due(&self, now: SimTime) -> bool {
        debug_assert!(self.events_at <= self.events_handled);
        self.events_handled - self.events_at > self.watchdog_events || (now - self.at).ns() > WATCHDOG_NS
    }
}
