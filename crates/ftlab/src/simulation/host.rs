//! The host paths of the engine, over its host part (`HostPort`, `host_port`: the tenants,
//! the requests in flight, the open host pages and the write buffer's use):
//! arrivals and queue depth (`pump`), the read, write and trim paths, write stalls (no free
//! block, full buffer), the host-unit placement path that preconditioning shares
//! (`place_host_unit`), a host read's completion, and request completion with its latency,
//! backlog, health (waits, stalls) and deadline accounting. Not die execution (`die`), jobs,
//! nor what a completed program means (`complete`'s `program_done`, which calls back here).

use super::engine::{Engine, Executor};
use super::ops::{Event, FlashOp, OpKind, Owner, Request, PREFETCH_UNITS_MAX, REBUILD_MEMBER};
use crate::error::FtlabError;
use crate::flash::geometry::{BlockIdx, DieIdx, Ppa};
use crate::ftl::blocks::WriteClass;
use crate::ftl::{FrontierKey, Placement, NONE};
use crate::host::NO_TASK;
use crate::policy::{Cause, OpClass};
use crate::scheme::{Admission, ReadPlan};
use crate::sim::time::SimTime;
use crate::workload::IoOp;

/// Events handled after the one that fetched a request before its units' locations are
/// prefetched: time for the L2P lines `pump` prefetched to arrive, whose entries the location
/// prefetch reads (at 0 that read stalled: mixed-70r30w's timed phase is about 6% faster at
/// 2, docs/PERFORMANCE.md).
const LOCATION_PREFETCH_DELAY_EVENTS: u8 = 2;

/// L2P entries (4 bytes) per cache line.
const L2P_ENTRIES_PER_LINE: usize = 16;

impl<X: Executor> Engine<'_, X> {
    /// Submit tenant `t`'s due requests while it has queue room.
    pub(super) fn pump(&mut self, t: u16) -> Result<(), FtlabError> {
        let ti = t as usize;
        if self.host.tenants[ti].stalled.front().is_some_and(|&id| self.host.reqs.get(id).parked) {
            self.wake_tenant(t);
        }
        loop {
            let tenant = &self.host.tenants[ti];
            if tenant.outstanding >= tenant.queue_depth || self.now < tenant.start {
                break;
            }
            let Some(mut req) = tenant.next else { break };
            if tenant.closed_loop {
                if tenant.source.past_end(self.now) {
                    self.host.tenants[ti].next = None;
                    self.host.tenants[ti].source.drop_at_end();
                    break;
                }
                req.arrival = self.now;
            } else if req.arrival > self.now {
                if tenant.arrival_at.is_none() {
                    self.host.tenants[ti].arrival_at = Some(req.arrival);
                    self.events.push(req.arrival, Event::Arrival(t));
                }
                break;
            }
            let (pol, v) = self.policies_and_view();
            let mut parked = false;
            if let Admission::Defer(at) = pol.scheme.admit(t, req.op, &v) {
                let park = req.op == IoOp::Write && pol.scheme.deferred_writes_wait_in_queue();
                self.retry_at(t, at);
                if !park {
                    break;
                }
                // PaRT-FTL §V: every page request enters one buffer that the FTL orders by
                // EDF; a write waiting for room waits there, and the reads behind it go on.
                parked = true;
            }
            self.host.tenants[ti].next = self.host.tenants[ti].source.next_request()?;
            if let Some(next) = self.host.tenants[ti].next {
                // Its L2P entries, read when it arrives (every line: one per 16 units, and
                // the last unit's); and, once they are in (after this event), what its
                // units' current locations hold.
                let ns = self.host.tenants[ti].namespace_units;
                let n = next.n_units.min(PREFETCH_UNITS_MAX);
                for i in (0..n).step_by(L2P_ENTRIES_PER_LINE).chain((n > 1).then(|| n - 1)) {
                    self.ftl.prefetch_l2p(t, next.unit_lpn(i, ns));
                }
                if next.op == IoOp::Write && self.sink.streams.keeps_units() {
                    // The per-unit stream measurements a write reads (one line per unit).
                    for i in 0..n {
                        self.sink.streams.prefetch(t, next.unit_lpn(i, ns));
                    }
                }
                self.host.location_to_prefetch = Some((t, next, LOCATION_PREFETCH_DELAY_EVENTS));
            }
            self.submit(t, req, parked)?;
        }
        Ok(())
    }

    /// Tenant `t` asks again at `at` (its next arrival event, unless one is due sooner).
    fn retry_at(&mut self, t: u16, at: SimTime) {
        assert!(at > self.now, "admission deferred to the past");
        let ti = t as usize;
        if self.host.tenants[ti].arrival_at.is_none_or(|a| a > at) {
            self.host.tenants[ti].arrival_at = Some(at);
            self.events.push(at, Event::Arrival(t));
        }
    }

    /// Prefetch what the request fetched last touches at its units' current locations (the
    /// block states; for an overwrite, the P2L entries it invalidates): called by the event
    /// loop after every event, it waits `LOCATION_PREFETCH_DELAY_EVENTS` events so that the
    /// L2P lines `pump` prefetched have had time to arrive (read at once, they stalled), and
    /// the request's submission, usually events later, finds them in the cache. A hint only:
    /// the locations may change meanwhile.
    #[inline]
    pub(super) fn prefetch_next_location(&mut self) {
        if let Some((_, _, wait @ 1..)) = &mut self.host.location_to_prefetch {
            *wait -= 1;
            return;
        }
        if let Some((t, req, _)) = self.host.location_to_prefetch.take() {
            let ns = self.host.tenants[t as usize].namespace_units;
            let lpns = (0..req.n_units.min(PREFETCH_UNITS_MAX)).map(|i| req.unit_lpn(i, ns));
            let overwrite = req.op == IoOp::Write;
            if overwrite && self.pol.interests.invalidated {
                // And what the mapper reads of each unit that will die (vStream's stamp).
                let mapper = &self.pol.mapper;
                self.ftl.prefetch_locations_with(t, lpns, true, |old| mapper.prefetch_death(old));
            } else {
                self.ftl.prefetch_locations(t, lpns, overwrite);
            }
        }
    }

    /// Take request `req` of tenant `t` in (`parked`: it waits for room in the queue);
    /// returns its id.
    pub(super) fn submit(
        &mut self,
        t: u16,
        req: crate::host::HostRequest,
        parked: bool,
    ) -> Result<u32, FtlabError> {
        if req.op == IoOp::Write {
            // Its first unit's L2P entry was prefetched when it was fetched (`pump`): start
            // fetching what overwriting it touches (the old P2L entry and block state) while
            // the request is admitted and placed.
            let ns = self.host.tenants[t as usize].namespace_units;
            self.ftl.prefetch_old_location(t, req.first_lpn % ns);
        }
        self.host.tenants[t as usize].outstanding += 1;
        self.sink.metrics[t as usize].backlog.arrived(req.arrival);
        self.sink.metrics[t as usize].health.arrived(req.arrival);
        let id = self.host.reqs.insert(Request {
            tenant: t,
            req,
            next_unit: 0,
            pending: 0,
            rebuild_pending: 0,
            rebuild_at: SimTime::ZERO,
            parked,
        });
        match req.op {
            IoOp::Read => self.start_read(id),
            IoOp::Write if parked => self.host.tenants[t as usize].stalled.push_back(id),
            IoOp::Write if self.host.tenants[t as usize].stalled.is_empty() => {
                self.continue_write(id);
            }
            IoOp::Write => self.host.tenants[t as usize].stalled.push_back(id),
            IoOp::Trim => {
                let ns = self.host.tenants[t as usize].namespace_units;
                for i in 0..req.n_units {
                    let lpn = req.unit_lpn(i, ns);
                    if let Some(old) = self.ftl.trim(t, lpn) {
                        self.sink.streams.died(t, lpn, self.now);
                        self.pol.mapper.on_trim(t, lpn, req.stream);
                        self.notify_invalidated(t, lpn, old, Cause::Trim);
                    }
                }
                self.events.push(self.now + self.p.dram_latency, Event::Complete(id));
            }
        }
        Ok(id)
    }

    fn start_read(&mut self, id: u32) {
        let r = *self.host.reqs.get(id);
        let (t, ns) = (r.tenant, self.host.tenants[r.tenant as usize].namespace_units);
        let mut pending = 0;
        let mut open: Option<(Ppa, u32)> = None;
        for i in 0..r.req.n_units {
            let lpn = r.req.unit_lpn(i, ns);
            match self.ftl.lookup(t, lpn) {
                None => self.sink.metrics[t as usize].unmapped_reads += 1,
                Some(ppa) if !self.ftl.is_programmed(ppa) => self.sink.metrics[t as usize].buffer_reads += 1,
                Some(ppa) => match open {
                    Some((first, n)) if self.same_page(first, ppa) => open = Some((first, n + 1)),
                    _ => {
                        if let Some((first, n)) = open {
                            pending += self.issue_host_read(id, t, first, n);
                        }
                        open = Some((ppa, 1));
                    }
                },
            }
        }
        if let Some((first, n)) = open {
            pending += self.issue_host_read(id, t, first, n);
        }
        self.host.reqs.get_mut(id).pending = pending;
        if pending == 0 {
            self.events.push(self.now + self.p.dram_latency, Event::Complete(id));
        }
    }

    fn same_page(&self, a: Ppa, b: Ppa) -> bool {
        let g = &self.ftl.geometry;
        g.block_of(a) == g.block_of(b) && g.page_of(a) == g.page_of(b)
    }

    /// Read `n_units` of the page holding `ppa` for request `id`; returns the flash reads issued.
    fn issue_host_read(&mut self, id: u32, t: u16, ppa: Ppa, n_units: u32) -> u32 {
        let g = self.ftl.geometry;
        let (block, page, die) = (g.block_of(ppa), g.page_of(ppa), g.die_of(ppa));
        let plan = self.pol.read_plan(ppa, &self.view());
        if plan == ReadPlan::Buffer {
            self.sink.metrics[t as usize].buffer_reads += n_units as u64;
            return 0;
        }
        self.ftl.note_read(block);
        self.sink.epoch.reads[t as usize * self.sink.epoch.n_dies + die.0 as usize] += 1;
        self.sink.device.flash_reads += 1;
        let deadline = self.host.reqs.get(id).req.deadline;
        let op = FlashOp {
            kind: OpKind::Read,
            class: OpClass::HostRead,
            tenant: t,
            die,
            block,
            page,
            n_units: n_units as u16,
            read_tag: 0,
            owner: Owner::Request(id).code(),
            deadline,
        };
        match plan {
            ReadPlan::Buffer => unreachable!("served above"),
            ReadPlan::Direct => {
                X::issue(self, op);
                1
            }
            ReadPlan::Rebuild => {
                self.sink.device.rebuilt_reads += 1;
                let mut members = std::mem::take(&mut self.scratch_ppas);
                members.clear();
                self.pol.scheme.stripe_members(ppa, &self.view(), &mut members);
                assert!(!members.is_empty(), "rebuild of unit {} with an empty stripe", ppa.0);
                self.ftl.oracle_check_rebuild(ppa, &members);
                let mut n = 0;
                for &m in &members {
                    // A member still in the write buffer is XORed from there.
                    if !self.ftl.is_programmed(m) {
                        continue;
                    }
                    let die = g.die_of(m);
                    X::issue(
                        self,
                        FlashOp {
                            die,
                            block: g.block_of(m),
                            page: g.page_of(m),
                            n_units: g.units_per_page as u16,
                            read_tag: REBUILD_MEMBER,
                            ..op
                        },
                    );
                    n += 1;
                }
                self.scratch_ppas = members;
                let now = self.now;
                let r = self.host.reqs.get_mut(id);
                r.rebuild_pending += n;
                r.rebuild_at = now;
                n
            }
        }
    }

    pub(super) fn host_read_done(&mut self, op: FlashOp) -> Result<(), FtlabError> {
        let Owner::Request(id) = op.owner() else { unreachable!("a host read owned by {:?}", op.owner()) };
        let now = self.now;
        let r = self.host.reqs.get_mut(id);
        assert!(r.pending > 0, "read completion for a request with nothing pending");
        r.pending -= 1;
        if op.read_tag & REBUILD_MEMBER != 0 {
            r.rebuild_pending -= 1;
            if r.rebuild_pending == 0 {
                let took = (now - r.rebuild_at).ns();
                self.sink.device.read_rebuilt_ns_max = self.sink.device.read_rebuilt_ns_max.max(took);
            }
        }
        if r.pending == 0 {
            self.complete_request(id)?;
        }
        Ok(())
    }

    /// Place the remaining units of write `id`. Returns false if it stalled (it is then at the
    /// head of its tenant's stall queue, or pushed there).
    pub(super) fn continue_write(&mut self, id: u32) -> bool {
        let r = *self.host.reqs.get(id);
        let t = r.tenant;
        let ns = self.host.tenants[t as usize].namespace_units;
        let buffered = self.p.buffer_units > 0;
        for i in r.next_unit..r.req.n_units {
            if buffered && self.host.buffer_used >= self.p.buffer_units {
                return self.stall(id);
            }
            let lpn = r.req.unit_lpn(i, ns);
            let (pol, v) = self.policies_and_view();
            let stream = pol.mapper.host_stream(t, lpn, r.req.stream, &v);
            let key = FrontierKey { tenant: t, stream, class: WriteClass::Host };
            if !buffered {
                self.close_others_page(t, stream, id);
            }
            let Some((die, placed)) = self.place_host_unit(key) else {
                return self.stall(id);
            };
            self.map_host_unit(t, lpn, r.req.stream, stream, placed.ppa);
            self.count_host_unit(t);
            self.add_to_host_page(t, stream, id);
            self.host.reqs.get_mut(id).next_unit = i + 1;
            if let Some((block, page)) = placed.page_full {
                self.program_host_page(t, stream, die, block, page);
            }
            if self.ftl.blocks().free_count(die) < self.p.low_watermark {
                self.maybe_start_gc(die);
            }
        }
        self.write_placed(id);
        true
    }

    /// Place one host unit of `key`: on the die holding the stream's partly filled page, else
    /// on the die the scheme names, asking again (up to once per die) while the named die has
    /// no free block for host writes; each such die gets its GC started. `None`: none of the
    /// dies the scheme offered has room, and the write must wait.
    pub(super) fn place_host_unit(&mut self, key: FrontierKey) -> Option<(DieIdx, Placement)> {
        let stamp = X::stamp(self);
        if let Some(at_cursor) = self.ftl.allocate_at_cursor(key, stamp) {
            // The stream's partly filled page.
            return Some(at_cursor);
        }
        for _ in 0..self.ftl.geometry.n_dies {
            let (pol, v) = self.policies_and_view();
            let die = pol.scheme.host_write_die(key.tenant, key.stream, &v);
            match self.ftl.allocate(key, die, X::stamp(self)) {
                Ok(placed) => return Some((die, placed)),
                Err(_) => self.maybe_start_gc(die),
            }
        }
        None
    }

    /// Map a placed host unit of `virtual_stream`, written through physical `stream`; count it
    /// in the stream measurements and tell the policies (the old location died, the unit
    /// landed).
    pub(super) fn map_host_unit(&mut self, t: u16, lpn: u32, virtual_stream: u16, stream: u8, ppa: Ppa) {
        let old = self.ftl.map_host(t, lpn, ppa);
        if old.is_some() {
            self.sink.streams.died(t, lpn, self.now);
        }
        self.sink.streams.written(t, lpn, virtual_stream, stream, X::write_time(self));
        if let Some(old) = old {
            self.notify_invalidated(t, lpn, old, Cause::Overwrite);
        }
        self.notify_placed(t, lpn, ppa, stream, WriteClass::Host);
    }

    fn stall(&mut self, id: u32) -> bool {
        let t = self.host.reqs.get(id).tenant as usize;
        if self.host.tenants[t].stalled.front() != Some(&id) {
            self.host.tenants[t].stalled.push_back(id);
        }
        false
    }

    /// Every unit of write `id` is placed: close its pages (write-through) or ack it (buffer).
    fn write_placed(&mut self, id: u32) {
        let t = self.host.reqs.get(id).tenant;
        if self.p.buffer_units > 0 {
            self.events.push(self.now + self.p.dram_latency, Event::Complete(id));
            return;
        }
        let streams = self.ftl.params.physical_streams;
        let slot = self.ftl.frontier_slot(t) as usize;
        for s in 0..streams {
            let (owner, units) = self.host.host_page[slot * streams as usize + s as usize];
            if owner != id || units == 0 {
                continue;
            }
            let key = FrontierKey { tenant: t, stream: s, class: WriteClass::Host };
            let die = self.ftl.host_cursor(t, s).expect("a partial host page has a cursor");
            let (block, page) = self.ftl.pad_page(key, die).expect("partial page to pad");
            self.program_host_page(t, s, die, block, page);
        }
    }

    /// Write-through: the partly filled page of `t`'s frontier of `stream` belongs to another
    /// request than `id` (frontiers shared by tenants: another tenant's write that stalled on
    /// another stream): pad and program it first, as its own write would at its end, so that a
    /// page's program completes one request's units only.
    fn close_others_page(&mut self, t: u16, stream: u8, id: u32) {
        let idx = self.host_page_idx(t, stream);
        let (owner, units) = self.host.host_page[idx];
        if units == 0 || owner == id {
            return;
        }
        let other = self.host.reqs.get(owner).tenant;
        let key = FrontierKey { tenant: other, stream, class: WriteClass::Host };
        let die = self.ftl.host_cursor(other, stream).expect("a partial host page has a cursor");
        let (block, page) = self.ftl.pad_page(key, die).expect("partial page to pad");
        self.program_host_page(other, stream, die, block, page);
    }

    /// Index of the host page filling through `t`'s frontier of `stream` in `host_page`: per
    /// (frontier slot, stream), as the page is the frontier's.
    fn host_page_idx(&self, t: u16, stream: u8) -> usize {
        self.ftl.frontier_slot(t) as usize * self.ftl.params.physical_streams as usize + stream as usize
    }

    fn add_to_host_page(&mut self, t: u16, stream: u8, id: u32) {
        let idx = self.host_page_idx(t, stream);
        let (owner, units) = &mut self.host.host_page[idx];
        if self.p.buffer_units == 0 {
            assert!(*units == 0 || *owner == id, "write-through page shared by two requests");
            self.host.reqs.get_mut(id).pending += 1;
        } else {
            self.host.buffer_used += 1;
        }
        *owner = id;
        *units += 1;
    }

    fn program_host_page(&mut self, t: u16, stream: u8, die: DieIdx, block: BlockIdx, page: u32) {
        let idx = self.host_page_idx(t, stream);
        let (owner, units) = std::mem::replace(&mut self.host.host_page[idx], (NONE, 0));
        assert!(units > 0, "programming an empty host page");
        let (owner, deadline) = if self.p.buffer_units == 0 {
            (Owner::Request(owner).code(), self.host.reqs.get(owner).req.deadline)
        } else {
            (Owner::Buffer.code(), SimTime::MAX)
        };
        X::issue(
            self,
            FlashOp {
                kind: OpKind::Program,
                class: OpClass::HostWrite,
                tenant: t,
                die,
                block,
                page,
                n_units: units as u16,
                read_tag: 0,
                owner,
                deadline,
            },
        );
    }

    fn count_host_unit(&mut self, t: u16) {
        self.progressed();
        self.sink.metrics[t as usize].host_units += 1;
        self.sink.device.host_units += 1;
        self.sink.epoch.host_units[t as usize] += 1;
        self.sink.ts.count_host_units(1);
    }

    /// Retry stalled writes, tenant by tenant, in order.
    pub(super) fn wake_stalled(&mut self) -> Result<(), FtlabError> {
        for t in 0..self.host.tenants.len() {
            self.wake_tenant(t as u16);
        }
        Ok(())
    }

    /// Retry tenant `t`'s stalled writes in order; a parked one (deferred by admission) is
    /// asked again first, and while it is still deferred the ones behind it wait too.
    fn wake_tenant(&mut self, t: u16) {
        let ti = t as usize;
        while let Some(&id) = self.host.tenants[ti].stalled.front() {
            if self.host.reqs.get(id).parked {
                let (pol, v) = self.policies_and_view();
                if let Admission::Defer(at) = pol.scheme.admit(t, IoOp::Write, &v) {
                    self.retry_at(t, at);
                    break;
                }
                self.host.reqs.get_mut(id).parked = false;
            }
            if !self.continue_write(id) {
                break;
            }
            self.host.tenants[ti].stalled.pop_front();
        }
    }

    pub(super) fn complete_request(&mut self, id: u32) -> Result<(), FtlabError> {
        let r = *self.host.reqs.get(id);
        self.host.reqs.remove(id);
        let t = r.tenant as usize;
        self.sink.metrics[t].backlog.completed(self.now);
        self.sink.metrics[t].health.completed(self.now, r.req.arrival);
        if r.req.arrival >= self.p.warmup {
            if r.req.task != NO_TASK {
                self.sink.metrics[t].tasks[r.req.task as usize].complete(
                    r.req.arrival,
                    r.req.deadline,
                    self.now,
                );
            }
            let latency = self.now - r.req.arrival;
            let m = &mut self.sink.metrics[t];
            let stats = match r.req.op {
                IoOp::Read => &mut m.read,
                IoOp::Write => &mut m.write,
                IoOp::Trim => &mut m.trim,
            };
            stats.hist.record(latency);
            stats.bytes += r.req.bytes;
            self.sink.ts.record(r.tenant, r.req.op, latency);
            for ph in self.sink.phases.iter_mut().filter(|ph| ph.contains(r.req.arrival)) {
                let stats = match r.req.op {
                    IoOp::Read => &mut ph.read[t],
                    IoOp::Write => &mut ph.write[t],
                    IoOp::Trim => continue,
                };
                stats.hist.record(latency);
                stats.bytes += r.req.bytes;
            }
        }
        self.host.tenants[t].outstanding -= 1;
        self.progressed();
        if self.host.fed {
            self.host.completed.push(id);
        }
        self.pump(r.tenant)
    }
}
