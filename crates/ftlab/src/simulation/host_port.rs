//! `HostPort`, the engine's host part: each tenant's workload source, queue depth and
//! stalled writes, the requests in flight, the open host pages and the write buffer's use,
//! with their invariants. Data only: the host paths over it are `host.rs`'s.

use super::ops::Request;
use crate::ftl::NONE;
use crate::host::{HostRequest, Source};
use crate::scenario::{Replay, Scenario, Workload};
use crate::sim::slab::Slab;
use crate::sim::time::SimTime;
use std::collections::VecDeque;

/// Host-side state of one tenant.
pub(super) struct Tenant<'a> {
    pub(super) source: Source<'a>,
    pub(super) next: Option<HostRequest>,
    pub(super) outstanding: u32,
    pub(super) queue_depth: u32,
    pub(super) closed_loop: bool,
    pub(super) start: SimTime,
    pub(super) arrival_at: Option<SimTime>,
    /// Writes waiting for a free block or buffer space, in order.
    pub(super) stalled: VecDeque<u32>,
    pub(super) namespace_units: u32,
}

/// The host side of the engine. Invariants: a tenant never has more requests outstanding
/// than its queue depth, the requests in flight are exactly the tenants' outstanding ones,
/// and a tenant's stalled writes are among them (`check`). The write buffer's use stays
/// within `Params::buffer_units`: `continue_write` stalls a write at the bound.
pub(super) struct HostPort<'a> {
    pub(super) tenants: Vec<Tenant<'a>>,
    /// Tenant names, in scenario order.
    pub(super) names: Vec<String>,
    /// Requests in flight.
    pub(super) reqs: Slab<Request>,
    /// Per (frontier slot, stream) (`Ftl::frontier_slot`: the tenant, or 0 where tenants share
    /// frontiers): (request owning the open host page, real units in it).
    pub(super) host_page: Vec<(u32, u32)>,
    /// Units in the write buffer not yet programmed.
    pub(super) buffer_used: u64,
    /// A request just fetched, its tenant, and the events still to handle before the event
    /// loop prefetches its units' current locations (`prefetch_next_location`); a hint only.
    pub(super) location_to_prefetch: Option<(u16, HostRequest, u8)>,
    /// Fed by a host above it (an array's host layer, `feed.rs`): its requests are injected,
    /// the port is not done while the feed lasts, and each completed request's id is kept
    /// in `completed` for the feeder. False in a run of one device.
    pub(super) fed: bool,
    pub(super) completed: Vec<u32>,
}

impl<'a> HostPort<'a> {
    /// The tenants of `s` fed by `sources` (one per tenant, in order), `ns` units each.
    pub(super) fn new(s: &Scenario, sources: Vec<Source<'a>>, ns: &[u32]) -> HostPort<'a> {
        let tenants: Vec<Tenant> = sources
            .into_iter()
            .zip(&s.tenants)
            .zip(ns)
            .map(|((source, t), &units)| Tenant {
                source,
                next: None,
                outstanding: 0,
                queue_depth: t.queue_depth,
                closed_loop: closed_loop(t),
                start: SimTime::from_secs_f64(t.start_s),
                arrival_at: None,
                stalled: VecDeque::new(),
                namespace_units: units,
            })
            .collect();
        let qd_total = tenants.iter().map(|t| t.queue_depth as usize).sum();
        HostPort {
            host_page: vec![(NONE, 0); tenants.len() * s.ftl.physical_streams as usize],
            tenants,
            names: s.tenants.iter().map(|t| t.name.clone()).collect(),
            reqs: Slab::new(qd_total),
            buffer_used: 0,
            location_to_prefetch: None,
            fed: false,
            completed: Vec::new(),
        }
    }

    /// Every tenant's queue depth, summed: the bound on requests in flight.
    pub(super) fn queue_depth_total(&self) -> usize {
        self.tenants.iter().map(|t| t.queue_depth as usize).sum()
    }

    /// Whether every tenant's workload is over: nothing left to arrive, nothing outstanding
    /// (never while a feeder may still inject requests).
    #[inline]
    pub(super) fn done(&self) -> bool {
        !self.fed && self.tenants.iter().all(|t| t.next.is_none() && t.outstanding == 0)
    }

    /// The part's invariants, swept in full (tests).
    pub(super) fn check(&self) {
        let outstanding: usize = self.tenants.iter().map(|t| t.outstanding as usize).sum();
        assert_eq!(self.reqs.live(), outstanding, "requests in flight are the tenants' outstanding ones");
        for (t, n) in self.tenants.iter().zip(&self.names) {
            assert!(
                t.outstanding <= t.queue_depth,
                "{n} has {} requests outstanding, queue depth {}",
                t.outstanding,
                t.queue_depth
            );
            assert!(t.stalled.len() <= t.outstanding as usize, "{n} has more stalled writes than requests");
        }
    }
}

/// Whether tenant `t` replays closed-loop (its requests carry no arrival time).
pub(crate) fn closed_loop(t: &crate::scenario::TenantConfig) -> bool {
    match &t.workload {
        Workload::Trace(tr) => tr.replay == Replay::Closed,
        Workload::Synthetic(g) => g.arrival == crate::workload::generator::Arrival::Closed,
        Workload::Periodic(_) => false,
    }
}
