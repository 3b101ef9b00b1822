//! NVMe Predictable Latency Mode (PLM) for one NVM Set: the set alternates between a
//! Deterministic Window (DTWIN: no background work, reads at their best) and a
//! Non-Deterministic Window (NDWIN: the device does its background work), and reports itself in
//! the Predictable Latency Per NVM Set log page (Log Identifier 0Ah), whose fields `LogPage`
//! names as libnvme's `struct nvme_nvmset_predictable_lat_log` does (docs/schemes/iod.md).
//!
//! The window changes:
//! - autonomous, DTWIN -> NDWIN, when the DTWIN's reads or writes reach the typical values the
//!   set declares or its time reaches the maximum (event bit 14, "DTWIN exceeded"), or when the
//!   device must do background work at once (a deterministic excursion, bit 15);
//! - autonomous, NDWIN -> DTWIN, once the NDWIN has lasted its declared minimum
//!   (`WindowMode::Autonomous`);
//! - host-requested (the Predictable Latency Mode Window feature, 14h), either way; a request
//!   for a DTWIN before the NDWIN's minimum has passed is held until it has.
//!
//! What this is not: it defers nothing itself (the `iod` scheme asks it whether a die of the
//! set may run background work) and counts no I/O of its own (the scheme hands it the set's
//! reads and writes).

use crate::sim::time::SimTime;

/// Event Type bits of the log page (libnvme `enum nvme_nvmset_pl_events`).
pub(crate) const EVENT_DTWIN_READ_WARN: u16 = 1 << 0;
pub(crate) const EVENT_DTWIN_WRITE_WARN: u16 = 1 << 1;
pub(crate) const EVENT_DTWIN_TIME_WARN: u16 = 1 << 2;
/// "Autonomous transition from DTWIN to NDWIN due to typical or maximum value exceeded".
pub(crate) const EVENT_DTWIN_EXCEEDED: u16 = 1 << 14;
/// "Autonomous transition from DTWIN to NDWIN due to Deterministic Excursion".
pub(crate) const EVENT_DTWIN_EXCURSION: u16 = 1 << 15;

/// Log page Status (libnvme `enum nvme_nvmeset_pl_status`).
pub(crate) const STATUS_DTWIN: u8 = 1;
pub(crate) const STATUS_NDWIN: u8 = 2;

/// Which window a set is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Window {
    Deterministic,
    NonDeterministic,
}

/// The limits a set declares (the log page's typical and maximum/minimum fields). Reads and
/// writes are counted in 4 KiB units (mapping units of 4 KiB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Limits {
    pub(crate) reads_typical: u64,
    pub(crate) writes_typical: u64,
    pub(crate) dtwin_time_max: SimTime,
    pub(crate) ndwin_time_min: SimTime,
    /// Warnings (bits 0-2) fire when a DTWIN has used this fraction of a limit.
    pub(crate) warn_fraction: f64,
}

/// What the set counted over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PlmCounters {
    pub(crate) dtwins: u64,
    pub(crate) ndwins: u64,
    pub(crate) exceeded_reads: u64,
    pub(crate) exceeded_writes: u64,
    pub(crate) exceeded_time: u64,
    pub(crate) excursions: u64,
    pub(crate) host_requests: u64,
    /// Host requests for a DTWIN that waited for the NDWIN's minimum.
    pub(crate) host_requests_held: u64,
    pub(crate) dtwin_ns_total: u64,
    pub(crate) ndwin_ns_total: u64,
}

/// The Predictable Latency Per NVM Set log page (LID 0Ah), libnvme's field names; times in
/// milliseconds (`dtwin_tmax`, `ndwin_tmin_*`, `dtwin_te`), reads and writes in 4 KiB units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LogPage {
    pub(crate) status: u8,
    pub(crate) event_type: u16,
    pub(crate) dtwin_rt: u64,
    pub(crate) dtwin_wt: u64,
    pub(crate) dtwin_tmax: u64,
    pub(crate) ndwin_tmin_hi: u64,
    pub(crate) ndwin_tmin_lo: u64,
    pub(crate) dtwin_re: u64,
    pub(crate) dtwin_we: u64,
    pub(crate) dtwin_te: u64,
}

/// One set's windows.
#[derive(Clone, Debug)]
pub(crate) struct SetWindows {
    limits: Limits,
    window: Window,
    since: SimTime,
    reads: u64,
    writes: u64,
    event_type: u16,
    dtwin_requested: bool,
    counters: PlmCounters,
}

impl SetWindows {
    /// A set that enters PLM at `now` in an NDWIN: the device may first do the background work
    /// the run left (the scheme's choice, docs/schemes/iod.md).
    pub(crate) fn new(limits: Limits, now: SimTime) -> SetWindows {
        assert!(limits.warn_fraction > 0.0 && limits.warn_fraction <= 1.0, "warn fraction in (0, 1]");
        SetWindows {
            limits,
            window: Window::NonDeterministic,
            since: now,
            reads: 0,
            writes: 0,
            event_type: 0,
            dtwin_requested: false,
            counters: PlmCounters { ndwins: 1, ..PlmCounters::default() },
        }
    }

    pub(crate) fn window(&self) -> Window {
        self.window
    }

    /// The set's reads and writes since the last call (4 KiB units); in a DTWIN, they count
    /// toward its limits. Returns the new window if a limit was reached.
    pub(crate) fn on_io(&mut self, reads: u64, writes: u64, now: SimTime) -> Option<Window> {
        if self.window != Window::Deterministic {
            return None;
        }
        self.reads += reads;
        self.writes += writes;
        let l = self.limits;
        self.warn(self.reads, l.reads_typical, EVENT_DTWIN_READ_WARN);
        self.warn(self.writes, l.writes_typical, EVENT_DTWIN_WRITE_WARN);
        if self.reads >= l.reads_typical {
            self.counters.exceeded_reads += 1;
        } else if self.writes >= l.writes_typical {
            self.counters.exceeded_writes += 1;
        } else {
            return None;
        }
        self.enter(Window::NonDeterministic, now, EVENT_DTWIN_EXCEEDED);
        Some(Window::NonDeterministic)
    }

    /// The passing of time: a DTWIN at its maximum ends; an NDWIN past its minimum ends when
    /// the windows change autonomously (`autonomous`) or the host asked for a DTWIN, and no die
    /// of the set runs background work (`quiet`).
    pub(crate) fn tick(&mut self, now: SimTime, autonomous: bool, quiet: bool) -> Option<Window> {
        assert!(now >= self.since, "time went back");
        let elapsed = now - self.since;
        match self.window {
            Window::Deterministic => {
                let max = self.limits.dtwin_time_max;
                self.warn(elapsed.0, max.0, EVENT_DTWIN_TIME_WARN);
                if elapsed < max {
                    return None;
                }
                self.counters.exceeded_time += 1;
                self.enter(Window::NonDeterministic, now, EVENT_DTWIN_EXCEEDED);
                Some(Window::NonDeterministic)
            }
            Window::NonDeterministic => {
                if elapsed < self.limits.ndwin_time_min || !(autonomous || self.dtwin_requested) || !quiet {
                    return None;
                }
                self.enter(Window::Deterministic, now, 0);
                Some(Window::Deterministic)
            }
        }
    }

    /// Whether the set is due a DTWIN at `now` (an NDWIN past its minimum that the device ends
    /// itself, `autonomous`, or that the host asked to end): the scheme then lets no new
    /// background work start, and `tick` opens the DTWIN once the set is quiet.
    pub(crate) fn wants_dtwin(&self, now: SimTime, autonomous: bool) -> bool {
        self.window == Window::NonDeterministic
            && now - self.since >= self.limits.ndwin_time_min
            && (autonomous || self.dtwin_requested)
    }

    /// The DTWIN just opened declares `n` as its writes limit (DTWIN Writes Typical, derived
    /// by the scheme from its free space): the window ends once its writes reach it.
    pub(crate) fn set_writes_typical(&mut self, n: u64) {
        assert_eq!(self.window, Window::Deterministic, "a writes limit is declared as a DTWIN opens");
        self.limits.writes_typical = n;
    }

    /// The host asks for `window` (Set Features 14h). An NDWIN starts at once; a DTWIN at once
    /// if the NDWIN has lasted its minimum and the set is `quiet`, else when both hold
    /// (`tick`). Returns the new window if it changed now.
    pub(crate) fn request(&mut self, window: Window, now: SimTime, quiet: bool) -> Option<Window> {
        self.counters.host_requests += 1;
        if window == self.window {
            self.dtwin_requested = false;
            return None;
        }
        if window == Window::NonDeterministic {
            self.enter(Window::NonDeterministic, now, 0);
            return Some(window);
        }
        if now - self.since < self.limits.ndwin_time_min || !quiet {
            self.counters.host_requests_held += 1;
            self.dtwin_requested = true;
            return None;
        }
        self.enter(Window::Deterministic, now, 0);
        Some(window)
    }

    /// The device must do background work on the set now (a die out of free blocks): a DTWIN
    /// ends in a deterministic excursion. Returns whether the window changed.
    pub(crate) fn excursion(&mut self, now: SimTime) -> bool {
        if self.window != Window::Deterministic {
            return false;
        }
        self.counters.excursions += 1;
        self.enter(Window::NonDeterministic, now, EVENT_DTWIN_EXCURSION);
        true
    }

    /// The log page as the host would read it at `now` (the times in the window so far
    /// counted in the totals).
    pub(crate) fn log_page(&self, now: SimTime) -> LogPage {
        let l = self.limits;
        let ms = |t: SimTime| t.0 / 1_000_000;
        let in_dt = self.window == Window::Deterministic;
        let used = |n: u64| if in_dt { n } else { 0 };
        let elapsed = if in_dt { now - self.since } else { SimTime::ZERO };
        LogPage {
            status: if in_dt { STATUS_DTWIN } else { STATUS_NDWIN },
            event_type: self.event_type,
            dtwin_rt: l.reads_typical,
            dtwin_wt: l.writes_typical,
            dtwin_tmax: ms(l.dtwin_time_max),
            ndwin_tmin_hi: ms(l.ndwin_time_min),
            ndwin_tmin_lo: ms(l.ndwin_time_min),
            dtwin_re: l.reads_typical.saturating_sub(used(self.reads)),
            dtwin_we: l.writes_typical.saturating_sub(used(self.writes)),
            dtwin_te: ms(SimTime(l.dtwin_time_max.0.saturating_sub(elapsed.0))),
        }
    }

    /// The totals with the window in progress at `now` closed.
    pub(crate) fn counters_at(&self, now: SimTime) -> PlmCounters {
        let mut c = self.counters;
        let open = (now - self.since).0;
        match self.window {
            Window::Deterministic => c.dtwin_ns_total += open,
            Window::NonDeterministic => c.ndwin_ns_total += open,
        }
        c
    }

    fn warn(&mut self, used: u64, limit: u64, bit: u16) {
        if used as f64 >= self.limits.warn_fraction * limit as f64 {
            self.event_type |= bit;
        }
    }

    fn enter(&mut self, window: Window, now: SimTime, event: u16) {
        assert_ne!(window, self.window, "a window change to the same window");
        let open = (now - self.since).0;
        match self.window {
            Window::Deterministic => self.counters.dtwin_ns_total += open,
            Window::NonDeterministic => self.counters.ndwin_ns_total += open,
        }
        match window {
            Window::Deterministic => self.counters.dtwins += 1,
            Window::NonDeterministic => self.counters.ndwins += 1,
        }
        self.event_type |= event;
        self.window = window;
        self.since = now;
        self.reads = 0;
        self.writes = 0;
        self.dtwin_requested = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn limits(reads: u64, writes: u64) -> Limits {
        Limits {
            reads_typical: reads,
            writes_typical: writes,
            dtwin_time_max: SimTime(100 * MS),
            ndwin_time_min: SimTime(50 * MS),
            warn_fraction: 0.9,
        }
    }

    /// A set in a DTWIN opened at 50 ms (after the first NDWIN's minimum).
    fn in_dtwin(l: Limits) -> SetWindows {
        let mut w = SetWindows::new(l, SimTime::ZERO);
        assert_eq!(w.tick(SimTime(49 * MS), true, true), None, "the NDWIN lasts its minimum");
        assert_eq!(w.tick(SimTime(50 * MS), true, true), Some(Window::Deterministic));
        w
    }

    #[test]
    fn a_dtwin_ends_when_a_declared_limit_is_reached() {
        // (reads, writes) per step, the step that ends the window, the counter it bumps.
        type Case = (u64, u64, usize, fn(&PlmCounters) -> u64);
        let cases: [Case; 3] = [
            (10, 0, 10, |c| c.exceeded_reads),
            (0, 10, 10, |c| c.exceeded_writes),
            (0, 0, usize::MAX, |c| c.exceeded_time),
        ];
        for (reads, writes, ends_at, counter) in cases {
            let mut w = in_dtwin(limits(100, 100));
            let mut ended = None;
            for step in 1..=200u64 {
                let now = SimTime((50 + step) * MS);
                let changed = w.on_io(reads, writes, now).or_else(|| w.tick(now, true, true));
                if changed.is_some() {
                    ended = Some(step as usize);
                    break;
                }
            }
            let expected = if ends_at == usize::MAX { 100 } else { ends_at };
            assert_eq!(ended, Some(expected), "reads {reads}, writes {writes}");
            assert_eq!(w.window(), Window::NonDeterministic);
            let page = w.log_page(SimTime(300 * MS));
            assert_eq!(page.status, STATUS_NDWIN);
            assert_ne!(page.event_type & EVENT_DTWIN_EXCEEDED, 0, "bit 14 set");
            assert_eq!(page.event_type & EVENT_DTWIN_EXCURSION, 0, "no excursion");
            assert_eq!(counter(&w.counters_at(SimTime(300 * MS))), 1);
        }
    }

    #[test]
    fn a_dtwin_below_its_limits_goes_on() {
        let mut w = in_dtwin(limits(100, 100));
        for step in 1..100u64 {
            let now = SimTime((50 + step) * MS);
            assert_eq!(w.on_io(1, 0, now).or_else(|| w.tick(now, true, true)), None, "step {step}");
        }
        let page = w.log_page(SimTime(149 * MS));
        assert_eq!((page.status, page.dtwin_re, page.dtwin_te), (STATUS_DTWIN, 1, 1));
        assert_ne!(page.event_type & EVENT_DTWIN_READ_WARN, 0, "90% of the reads used");
        assert_ne!(page.event_type & EVENT_DTWIN_TIME_WARN, 0, "90% of the time used");
        assert_eq!(page.event_type & (EVENT_DTWIN_WRITE_WARN | EVENT_DTWIN_EXCEEDED), 0);
    }

    #[test]
    fn an_excursion_ends_a_dtwin_and_only_a_dtwin() {
        let mut w = SetWindows::new(limits(100, 100), SimTime::ZERO);
        assert!(!w.excursion(SimTime(MS)), "an NDWIN has no excursion");
        let mut w2 = in_dtwin(limits(100, 100));
        assert!(w2.excursion(SimTime(60 * MS)));
        assert_eq!(w2.window(), Window::NonDeterministic);
        assert_ne!(w2.log_page(SimTime(60 * MS)).event_type & EVENT_DTWIN_EXCURSION, 0);
        w.tick(SimTime(2 * MS), true, true);
        assert_eq!(w.counters_at(SimTime(2 * MS)).excursions, 0);
    }

    #[test]
    fn an_ndwin_waits_for_its_minimum_and_for_quiet_dies() {
        let mut w = SetWindows::new(limits(100, 100), SimTime::ZERO);
        assert_eq!(w.tick(SimTime(60 * MS), true, false), None, "a job still runs");
        assert_eq!(w.tick(SimTime(61 * MS), false, true), None, "host mode: nobody asked");
        assert_eq!(w.tick(SimTime(62 * MS), true, true), Some(Window::Deterministic));
    }

    #[test]
    fn a_host_request_for_a_dtwin_is_held_until_the_minimum() {
        let mut w = SetWindows::new(limits(100, 100), SimTime::ZERO);
        assert_eq!(w.request(Window::Deterministic, SimTime(10 * MS), true), None);
        assert_eq!(w.tick(SimTime(40 * MS), false, true), None);
        assert_eq!(w.tick(SimTime(50 * MS), false, true), Some(Window::Deterministic));
        assert_eq!(
            w.request(Window::NonDeterministic, SimTime(60 * MS), true),
            Some(Window::NonDeterministic)
        );
        let c = w.counters_at(SimTime(70 * MS));
        assert_eq!((c.host_requests, c.host_requests_held, c.dtwins, c.ndwins), (2, 1, 1, 2));
        assert_eq!((c.dtwin_ns_total, c.ndwin_ns_total), (10 * MS, 60 * MS));
    }
}
