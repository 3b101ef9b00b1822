//! Warm-up by workload (`[precondition] mode = "workload"`, DESIGN §5, §11): after the fill
//! (and its uniform overwrites), the scenario's own tenants write through the engine's
//! placement, GC and job code with the instant executor of `precondition` (`Engine<Instant>`;
//! each unit goes through `place_unit_instant`, as the fill's do; no time passes
//! on the device, no latency or counter of the run is recorded) until the device WAF has
//! converged; then preconditioning ends as in `fill` mode (pages padded, idle background GC).
//!
//! The tenants' requests are merged in arrival order (ties by tenant index), so their writes
//! interleave at the rates of the timed run. Reads are skipped: they change no mapping, no
//! valid count and no block. A closed-loop tenant (no arrival times) is timed as if each of
//! its requests took its units' share of the device's program bandwidth (`unit_program_ns`
//! per unit). A tenant whose source ends is opened again (`WarmOpener`, pass 1, 2, ...) and
//! continues after its last arrival: a trace is replayed from its start again, a generator
//! draws a new seeded pass. A pass without a write or trim ends the tenant's warm-up.
//!
//! Convergence (`Convergence`): windows of `window_units` host units written; a window's
//! device WAF is (flash pages programmed x units per page) / host units, the definition of
//! `summary.json`'s `device.waf`. Windows open at the first erase of the warm-up (before it
//! GC has not started and every window's WAF would be 1 whatever the workload's steady state);
//! the warm-up has converged when the last two windows' WAFs are within `tolerance` of each
//! other (relative to the larger). It stops at `cap_units` host units whatever the windows
//! say, and reports it (`WarmReport::cap_hit`); and where the instant executor finds no room
//! for a unit (a scheme whose placement or GC depends on time), it stops there and reports
//! it (`WarmReport::out_of_space`) instead of failing the run: the fill before it did fit.
//!
//! Look-ahead: requests are taken from the merge `AHEAD_REQUESTS` ahead of the one applied
//! (`Ahead`), so that their mapping entries (and, later, what their old locations hold) are
//! fetched from memory while earlier requests run. The merge depends only on the sources,
//! never on the device, so this changes no result; what is reported (passes, the end of the
//! writes, an input error, where the warm-up stopped) is kept as if each request were taken
//! when it runs. Reads take no place in the look-ahead (their tenant's pass and the clock are
//! all they leave; `Ahead`): they are generated, in order, and pass through.
//!
//! Write stamps: a warm-up unit is stamped (`Instant::stamp`) with its request's arrival on the
//! warm-up's clock, and GC ages blocks on that clock (`Engine::victim_view`); at each window's
//! end and at the end of the warm-up every block's stamp is shifted back so the newest stamp
//! is 0 (the clock of policies stays at 0 while preconditioning), so block ages at the timed
//! run's start are those of a device that ran the workload until then.

use super::engine::Engine;
use super::executor::Instant;
use super::ops::PREFETCH_UNITS_MAX;
use super::precondition::OutOfSpace;
use crate::error::FtlabError;
use crate::ftl::blocks::WriteClass;
use crate::ftl::FrontierKey;
use crate::host::{HostRequest, Source};
use crate::metrics::report::WarmReport;
use crate::policy::Cause;
use crate::scenario::PreconditionConfig;
use crate::sim::time::SimTime;
use crate::sim::Rng;
use crate::workload::IoOp;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};

/// Requests the warm-up takes ahead of the one it applies (`Ahead`), so that their mapping
/// entries are fetched while earlier requests run.
const AHEAD_REQUESTS: usize = 16;

/// How many requests before it runs a request's old locations are prefetched (its L2P entries
/// were prefetched when it was taken, `AHEAD_REQUESTS - OLD_LOCATION_AHEAD` requests before).
const OLD_LOCATION_AHEAD: usize = AHEAD_REQUESTS / 2;

/// Every tenant's next request time, earliest first (ties by tenant index).
type NextArrivals = BinaryHeap<Reverse<(SimTime, u16)>>;

/// Opens tenant `t`'s workload for pass `pass` of the warm-up (0 first): the edge's part
/// (trace files are opened there), the same source the timed run gets except for the
/// generators' seeds.
pub(crate) type WarmOpener<'o, 'a> = dyn FnMut(usize, u32) -> Result<Source<'a>, FtlabError> + 'o;

/// The resolved knobs of a warm-up, in host units.
#[derive(Clone, Debug)]
pub(crate) struct WarmParams {
    pub(crate) window_units: u64,
    pub(crate) cap_units: u64,
    pub(crate) tolerance: f64,
    /// Per tenant: closed-loop (no arrival times).
    pub(crate) closed_loop: Vec<bool>,
}

/// Why a warm-up failed: no room for a unit, or a workload's input error.
#[derive(Debug)]
pub(crate) enum WarmError {
    OutOfSpace(OutOfSpace),
    Input(FtlabError),
}

impl From<OutOfSpace> for WarmError {
    fn from(e: OutOfSpace) -> Self {
        WarmError::OutOfSpace(e)
    }
}

impl From<FtlabError> for WarmError {
    fn from(e: FtlabError) -> Self {
        WarmError::Input(e)
    }
}

/// The convergence detector: fed each window's device WAF, says when the last two agree.
#[derive(Clone, Debug)]
pub(crate) struct Convergence {
    tolerance: f64,
    wafs: Vec<f64>,
}

impl Convergence {
    pub(crate) fn new(tolerance: f64) -> Convergence {
        assert!(tolerance > 0.0 && tolerance <= 1.0, "validated: tolerance in (0, 1]");
        Convergence { tolerance, wafs: Vec::new() }
    }

    /// A window closed with device WAF `waf`; true when it is within the tolerance of the
    /// window before it: |a - b| <= tolerance x max(a, b).
    pub(crate) fn push(&mut self, waf: f64) -> bool {
        self.wafs.push(waf);
        match self.wafs.as_slice() {
            [.., a, b] => (a - b).abs() <= self.tolerance * a.max(*b),
            _ => false,
        }
    }

    pub(crate) fn wafs(&self) -> &[f64] {
        &self.wafs
    }
}

/// One tenant's workload in the warm-up.
struct Feed<'a> {
    source: Source<'a>,
    pass: u32,
    /// Added to the source's arrivals: the previous passes' last arrival.
    offset: SimTime,
    /// The last arrival taken (warm-up clock).
    last: SimTime,
    /// The pass wrote or trimmed something.
    wrote: bool,
    next: Option<HostRequest>,
}

/// A request taken ahead: its time on the warm-up's clock, its tenant, the pass it belongs
/// to and the tenant's pass once its next request was taken (`advance` may have reopened the
/// workload).
struct Taken {
    at: SimTime,
    t: u16,
    req: HostRequest,
    pass: u32,
    pass_after: u32,
}

/// The look-ahead of the warm-up. The merged order of the tenants' requests depends only on
/// their sources (arrival times; closed-loop timing by request size), never on the device,
/// so requests can be taken before they run; what the warm-up reports is kept as if each
/// were taken when it runs: `passes` is each tenant's pass count after the requests applied
/// so far (a stop reports the stopping request's own pass, as before any look-ahead of it),
/// and a source's input error (`failed`, after which nothing more is taken) takes effect
/// only once the request before it has run without the warm-up stopping.
///
/// Reads are not entries of the ring: a read changes no count (so the warm-up cannot stop on
/// one), and its tenant's pass after it is its own pass, which `passes` already holds once the
/// tenant's request before it has run; what is left of it is the warm-up's clock, kept as
/// the first and the last request taken (`first_at`, `last_at`). A read that ends a pass
/// (its tenant's pass after it is a new one) is an entry, so that `passes` moves when it runs.
struct Ahead {
    ring: VecDeque<Taken>,
    failed: Option<FtlabError>,
    passes: Vec<u32>,
    /// The time of the first request taken (the stamps' origin: it runs first).
    first_at: Option<SimTime>,
    /// The time of the last request taken (the newest once every request taken has run).
    last_at: Option<SimTime>,
}

impl Ahead {
    fn new(feeds: &[Feed<'_>]) -> Ahead {
        Ahead {
            ring: VecDeque::with_capacity(AHEAD_REQUESTS),
            failed: None,
            passes: feeds.iter().map(|f| f.pass).collect(),
            first_at: None,
            last_at: None,
        }
    }
}

impl Engine<'_, Instant> {
    /// Precondition with `cfg`'s fill, then warm the device with the tenants' workloads
    /// (opened by `open`) until its WAF converges or `wp.cap_units` host units are written;
    /// then end as `precondition` does.
    pub(super) fn precondition_warm<'a>(
        &mut self,
        cfg: &PreconditionConfig,
        rng: &mut Rng,
        wp: &WarmParams,
        open: &mut WarmOpener<'_, 'a>,
    ) -> Result<WarmReport, WarmError> {
        self.fill(cfg, rng)?;
        let report = self.warm(wp, open)?;
        self.finish_precondition()?;
        Ok(report)
    }

    fn warm<'a>(&mut self, wp: &WarmParams, open: &mut WarmOpener<'_, 'a>) -> Result<WarmReport, WarmError> {
        let n = self.host.tenants.len();
        assert_eq!(wp.closed_loop.len(), n, "one closed-loop flag per tenant");
        let (mut feeds, mut heap) = open_feeds(n, wp, self.p.unit_program_ns, open)?;
        let mut ahead = Ahead::new(&feeds);
        let mut w = Windows::new(wp.tolerance, self.sink.device.erases);
        let mut no_room: Option<OutOfSpace> = None;
        // A read cannot stop the warm-up (`Ahead`): neither bound is reached without a unit.
        assert!(wp.window_units >= 1 && wp.cap_units >= 1, "validated: windows and cap of units");
        loop {
            self.take_ahead(&mut ahead, &mut feeds, &mut heap, wp, open);
            // The first request taken runs first, whether an entry or a read.
            if w.origin.is_none() {
                w.origin = ahead.first_at;
            }
            let Some(e) = ahead.ring.pop_front() else {
                // Every request taken has run (the reads after the last entry too).
                if let Some(err) = ahead.failed.take() {
                    return Err(err.into());
                }
                if let Some(at) = ahead.last_at {
                    w.newest = at;
                }
                break;
            };
            let origin_at = w.origin.expect("set by the first request taken");
            w.newest = e.at;
            self.exec.stamp = (e.at - origin_at).ns() as i64;
            match self.warm_request(e.t, &e.req) {
                Ok(units) => w.host_units += units,
                // A job stopped half way (`NoCopyRoom`): the device cannot go on from here.
                Err(err) if self.jobs.no_room.is_some() => return Err(err.into()),
                Err(err) => {
                    // The instant executor found no room (a scheme whose placement or GC
                    // depends on time, such as part-ftl's die roles): the warm-up ends here,
                    // reported; the timed run starts from this state.
                    no_room = Some(err);
                    ahead.passes[e.t as usize] = e.pass;
                    break;
                }
            }
            self.close_window(&mut w, wp, e.at, origin_at);
            if w.converged || w.host_units >= wp.cap_units {
                ahead.passes[e.t as usize] = e.pass;
                break;
            }
            ahead.passes[e.t as usize] = e.pass_after;
            if ahead.ring.is_empty() {
                if let Some(err) = ahead.failed.take() {
                    return Err(err.into());
                }
            }
        }
        if let Some(o) = w.origin {
            self.ftl.shift_write_stamps(-((w.newest - o).ns() as i64));
        }
        self.exec.stamp = 0;
        let writes_ended = heap.is_empty()
            && ahead.ring.is_empty()
            && !w.converged
            && w.host_units < wp.cap_units
            && no_room.is_none();
        Ok(WarmReport {
            host_units: w.host_units,
            waf_windows: w.conv.wafs().to_vec(),
            converged: w.converged,
            cap_hit: !w.converged && w.host_units >= wp.cap_units,
            writes_ended,
            out_of_space: no_room.map(|e| e.tenant),
            passes: ahead.passes,
        })
    }

    /// Take requests in merged order into `ahead`'s ring until it holds `AHEAD_REQUESTS` (or
    /// the tenants have no more, or a source failed): each tenant's next request is taken with
    /// its current one (`advance`), so the order is the heap's, as if taken one by one. The
    /// L2P entries of a request are prefetched when it enters the ring, the old locations
    /// `OLD_LOCATION_AHEAD` requests before it runs.
    fn take_ahead<'a>(
        &self,
        ahead: &mut Ahead,
        feeds: &mut [Feed<'a>],
        heap: &mut NextArrivals,
        wp: &WarmParams,
        open: &mut WarmOpener<'_, 'a>,
    ) {
        while ahead.ring.len() < AHEAD_REQUESTS && ahead.failed.is_none() {
            // The earliest tenant's entry is replaced by its next request's time in place (one
            // sift instead of a pop and a push): (time, tenant) pairs are distinct, so the
            // order taken is the same.
            let Some(mut top) = heap.peek_mut() else { break };
            let Reverse((at, t)) = *top;
            let f = &mut feeds[t as usize];
            let req = f.next.take().expect("a queued tenant has a request");
            let pass = f.pass;
            match advance(f, t as usize, wp, self.p.unit_program_ns, open) {
                Ok(Some(next_at)) => *top = Reverse((next_at, t)),
                Ok(None) => {
                    PeekMut::pop(top);
                }
                // Takes effect after this request, as if taken then (`warm`).
                Err(e) => {
                    PeekMut::pop(top);
                    ahead.failed = Some(e);
                }
            }
            ahead.first_at.get_or_insert(at);
            ahead.last_at = Some(at);
            if req.op == IoOp::Read && f.pass == pass {
                continue;
            }
            if req.op != IoOp::Read {
                let ns = self.host.tenants[t as usize].namespace_units;
                for i in 0..req.n_units.min(PREFETCH_UNITS_MAX) {
                    self.ftl.prefetch_l2p(t, req.unit_lpn(i, ns));
                }
            }
            ahead.ring.push_back(Taken { at, t, req, pass, pass_after: f.pass });
            if let Some(e) = ahead.ring.len().checked_sub(OLD_LOCATION_AHEAD + 1).map(|k| &ahead.ring[k]) {
                self.prefetch_old_locations(e.t, &e.req);
            }
        }
    }

    /// Prefetch what request `req` of tenant `t` will touch at its units' old locations
    /// (its L2P entries were prefetched when it was taken). A hint only.
    fn prefetch_old_locations(&self, t: u16, req: &HostRequest) {
        if req.op != IoOp::Read {
            let ns = self.host.tenants[t as usize].namespace_units;
            let lpns = (0..req.n_units.min(PREFETCH_UNITS_MAX)).map(|i| req.unit_lpn(i, ns));
            self.ftl.prefetch_locations(t, lpns, true);
        }
    }

    /// After a request at `at`: open the first window at the warm-up's first erase, and close
    /// the open one when it has `wp.window_units` host units (its WAF to the detector, the
    /// stamps shifted so the newest is 0, the clock's origin moved to `at`).
    fn close_window(&mut self, w: &mut Windows, wp: &WarmParams, at: SimTime, origin_at: SimTime) {
        let upp = self.ftl.geometry.units_per_page as u64;
        let programmed = self.sink.device.flash_pages_programmed;
        if w.window.is_none() && self.sink.device.erases > w.erases_at_start {
            w.window = Some((w.host_units, programmed));
        }
        if let Some((h0, p0)) = w.window.filter(|&(h0, _)| w.host_units - h0 >= wp.window_units) {
            let waf = ((programmed - p0) * upp) as f64 / (w.host_units - h0) as f64;
            w.converged = w.conv.push(waf);
            w.window = Some((w.host_units, programmed));
            self.ftl.shift_write_stamps(-((at - origin_at).ns() as i64));
            w.origin = Some(at);
        }
    }

    /// Apply one request of tenant `t` to the device (instant); returns the host units it
    /// wrote.
    fn warm_request(&mut self, t: u16, req: &HostRequest) -> Result<u64, OutOfSpace> {
        let ns = self.host.tenants[t as usize].namespace_units;
        match req.op {
            IoOp::Read => Ok(0),
            IoOp::Trim => {
                for i in 0..req.n_units {
                    let lpn = req.unit_lpn(i, ns);
                    if let Some(old) = self.ftl.trim(t, lpn) {
                        self.sink.streams.died(t, lpn, self.now);
                        self.pol.mapper.on_trim(t, lpn, req.stream);
                        self.notify_invalidated(t, lpn, old, Cause::Trim);
                    }
                }
                self.copy_room()?;
                Ok(0)
            }
            IoOp::Write => {
                // The L2P entries and old locations were prefetched while the request was in
                // the look-ahead ring (`take_ahead`).
                for i in 0..req.n_units {
                    self.place_unit_instant(t, req.unit_lpn(i, ns), req.stream)?;
                }
                if self.p.buffer_units == 0 {
                    self.pad_tenant_pages(t);
                }
                self.copy_room()?;
                Ok(req.n_units as u64)
            }
        }
    }

    /// Write-through: a write's last partial page is padded and programmed when the write
    /// ends, as in the timed run (`host::write_placed`).
    fn pad_tenant_pages(&mut self, t: u16) {
        for s in 0..self.ftl.params.physical_streams {
            let Some(die) = self.ftl.host_cursor(t, s) else { continue };
            let key = FrontierKey { tenant: t, stream: s, class: WriteClass::Host };
            let Some((block, page)) = self.ftl.pad_page(key, die) else { continue };
            self.program_pad(t, die, block, page);
        }
        self.drain_instant();
    }
}

/// The warm-up's windows: host units written, the open window (host units and pages
/// programmed when it opened; `None` until GC has started), the detector, and the clock the
/// write stamps are relative to (`origin`, and the newest arrival taken).
struct Windows {
    host_units: u64,
    window: Option<(u64, u64)>,
    erases_at_start: u64,
    conv: Convergence,
    converged: bool,
    origin: Option<SimTime>,
    newest: SimTime,
}

impl Windows {
    fn new(tolerance: f64, erases_at_start: u64) -> Windows {
        Windows {
            host_units: 0,
            window: None,
            erases_at_start,
            conv: Convergence::new(tolerance),
            converged: false,
            origin: None,
            newest: SimTime::ZERO,
        }
    }
}

/// Every tenant's first pass opened, and the heap of their first requests' times (ties by
/// tenant index).
fn open_feeds<'a>(
    n: usize,
    wp: &WarmParams,
    unit_ns: i64,
    open: &mut WarmOpener<'_, 'a>,
) -> Result<(Vec<Feed<'a>>, NextArrivals), FtlabError> {
    let mut feeds: Vec<Feed<'a>> = Vec::with_capacity(n);
    let mut heap = BinaryHeap::with_capacity(n);
    for t in 0..n {
        let mut f = Feed {
            source: open(t, 0)?,
            pass: 1,
            offset: SimTime::ZERO,
            last: SimTime::ZERO,
            wrote: false,
            next: None,
        };
        if let Some(at) = advance(&mut f, t, wp, unit_ns, open)? {
            heap.push(Reverse((at, t as u16)));
        }
        feeds.push(f);
    }
    Ok((feeds, heap))
}

/// Take tenant `t`'s next request into `f.next` and return its time on the warm-up's clock;
/// reopen the workload when a pass ends having written, `None` when it ends without.
fn advance<'a>(
    f: &mut Feed<'a>,
    t: usize,
    wp: &WarmParams,
    unit_ns: i64,
    open: &mut WarmOpener<'_, 'a>,
) -> Result<Option<SimTime>, FtlabError> {
    loop {
        if let Some(req) = f.source.next_request()? {
            let at = if wp.closed_loop[t] {
                f.last + SimTime(req.n_units.max(1) as u64 * unit_ns as u64)
            } else {
                (f.offset + req.arrival).max(f.last)
            };
            f.wrote |= req.op != IoOp::Read;
            f.last = at;
            f.next = Some(req);
            return Ok(Some(at));
        }
        if !f.wrote {
            return Ok(None);
        }
        f.source = open(t, f.pass)?;
        f.pass += 1;
        f.offset = f.last;
        f.wrote = false;
    }
}

#[cfg(test)]
mod tests {
    use super::Convergence;

    /// The criterion by hand: |a - b| <= tolerance x max(a, b), over the last two windows
    /// (values exact in binary, so the bound itself is tested).
    #[test]
    fn converges_when_the_last_two_windows_agree() {
        let cases: &[(f64, &[f64], &[bool])] = &[
            // 2.0 -> 2.25: 0.25 > 0.03125 x 2.25; 2.25 -> 2.1875: 0.0625 <= 0.0703125.
            (0.03125, &[2.0, 2.25, 2.1875], &[false, false, true]),
            // Exactly at the bound: |2.0 - 1.9375| = 0.0625 = 0.03125 x 2.0.
            (0.03125, &[2.0, 1.9375], &[false, true]),
            // Just outside: |2.0 - 1.9375| = 0.0625 > 0.015625 x 2.0 = 0.03125.
            (0.015625, &[2.0, 1.9375], &[false, false]),
            // One window alone never converges, however small the tolerance's demand.
            (1.0, &[3.0], &[false]),
        ];
        for &(tol, wafs, want) in cases {
            let mut c = Convergence::new(tol);
            let got: Vec<bool> = wafs.iter().map(|&w| c.push(w)).collect();
            assert_eq!(got, want, "tolerance {tol}, windows {wafs:?}");
        }
    }
}
