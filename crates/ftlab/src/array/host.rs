//! The array's host layer: its tenants' arrivals and queue depths, the stripe locks, and the
//! life of an array request: cut into device requests (`plan`), issued to the devices
//! (through each device tenant's queue depth, waiting in order beyond it), and completed when
//! its last device request completes; a write's read-modify-write reads come first, then its
//! data and parity writes. A read piece is rebuilt from the other devices of its row when its
//! device is `[array] rebuild_device`, or, with `[array] fail_fast`, when its device fails it
//! at once for background work (IODA's fail-fast read and busy remaining time), and so is a
//! write's read-modify-write read, except under `iod3` (IOD_3). A request
//! locks the rows it touches from its start to its completion, as md's stripe cache does, and
//! requests start in arrival order among those that share a row. Not the order of events
//! across devices (`run`).

use super::layout::Layout;
use super::oracle::ArrayOracle;
use super::plan::{pieces, rebuild_members, row_writes, Piece, RowWrite};
use crate::error::FtlabError;
use crate::host::{HostRequest, Source, NO_TASK};
use crate::metrics::report::ArrayTenantResult;
use crate::scenario::FailFast;
use crate::sim::time::SimTime;
use crate::sim::Rng;
use crate::simulation::Simulation;
use crate::workload::IoOp;
use rand::Rng as _;
use std::collections::{HashSet, VecDeque};

/// One array tenant.
pub(crate) struct ArrayTenant<'a> {
    pub(crate) source: Source<'a>,
    pub(crate) next: Option<HostRequest>,
    pub(crate) outstanding: u32,
    pub(crate) queue_depth: u32,
    pub(crate) closed_loop: bool,
    pub(crate) start: SimTime,
    /// Array units (the namespace the source addresses).
    pub(crate) units: u32,
    pub(crate) result: ArrayTenantResult,
}

/// One array request in flight.
struct Io {
    tenant: u16,
    req: HostRequest,
    rows: Vec<u32>,
    pieces: Vec<(u32, Piece)>,
    /// Reads: the pieces rebuilt (not read from their own device).
    rebuilt: Vec<bool>,
    /// Writes: the read-modify-write reads rebuilt from the rest of their row (a data piece
    /// with its first array unit, or the parity piece with none).
    rmw_rebuilt: Vec<(Option<u32>, Piece)>,
    writes: Vec<RowWrite>,
    /// Device requests outstanding in the current phase.
    pending: u32,
    writing: bool,
}

/// The host layer's state.
pub(crate) struct ArrayHost<'a> {
    pub(crate) layout: Layout,
    pub(crate) tenants: Vec<ArrayTenant<'a>>,
    pub(crate) oracle: Option<ArrayOracle>,
    rebuild_device: Option<u32>,
    fail_fast: FailFast,
    /// IOD_1's random choice among busy chunks.
    rng: Rng,
    unit_bytes: u64,
    warmup: SimTime,
    ios: Vec<Option<Io>>,
    free: Vec<u32>,
    /// Requests not started (a row they touch is locked), in arrival order.
    blocked: VecDeque<u32>,
    /// Per tenant, per row: locked by a started request.
    locked: Vec<Vec<bool>>,
    /// Per device: the array request of each device request in flight (by its id).
    inflight: Vec<Vec<u32>>,
    /// Per device, per tenant: device requests waiting for queue room, in order.
    waiting: Vec<Vec<VecDeque<(u32, HostRequest)>>>,
    pub(crate) device_requests: u64,
}

const NO_IO: u32 = u32::MAX;

impl<'a> ArrayHost<'a> {
    pub(crate) fn new(
        layout: Layout,
        tenants: Vec<ArrayTenant<'a>>,
        oracle: Option<ArrayOracle>,
        rebuild_device: Option<u32>,
        (fail_fast, rng): (FailFast, Rng),
        unit_bytes: u64,
        warmup: SimTime,
    ) -> ArrayHost<'a> {
        let k = layout.devices as usize;
        let n = tenants.len();
        let locked = tenants.iter().map(|t| vec![false; (t.units / layout.chunk_units) as usize]).collect();
        ArrayHost {
            layout,
            tenants,
            oracle,
            rebuild_device,
            fail_fast,
            rng,
            unit_bytes,
            warmup,
            ios: Vec::new(),
            free: Vec::new(),
            blocked: VecDeque::new(),
            locked,
            inflight: vec![Vec::new(); k],
            waiting: (0..k).map(|_| (0..n).map(|_| VecDeque::new()).collect()).collect(),
            device_requests: 0,
        }
    }

    /// Nothing left to arrive and nothing outstanding.
    pub(crate) fn done(&self) -> bool {
        self.tenants.iter().all(|t| t.next.is_none() && t.outstanding == 0)
    }

    /// When the next array request is due (closed-loop: now, if its queue has room).
    pub(crate) fn next_arrival(&self, now: SimTime) -> Option<SimTime> {
        let due = |t: &ArrayTenant| {
            let r = t.next?;
            (t.outstanding < t.queue_depth).then(|| {
                let at = if t.closed_loop { now } else { r.arrival };
                at.max(t.start).max(now)
            })
        };
        self.tenants.iter().filter_map(due).min()
    }

    /// Take in every array request due at `now`.
    pub(crate) fn arrive(&mut self, now: SimTime, devs: &mut [Simulation<'a>]) -> Result<(), FtlabError> {
        for t in 0..self.tenants.len() {
            loop {
                let tn = &mut self.tenants[t];
                if tn.outstanding >= tn.queue_depth || now < tn.start {
                    break;
                }
                let Some(mut req) = tn.next else { break };
                if tn.closed_loop {
                    if tn.source.past_end(now) {
                        tn.next = None;
                        tn.source.drop_at_end();
                        break;
                    }
                    req.arrival = now;
                } else if req.arrival > now {
                    break;
                }
                tn.next = tn.source.next_request()?;
                tn.outstanding += 1;
                self.admit(t as u16, req, now, devs)?;
            }
        }
        Ok(())
    }

    fn admit(
        &mut self,
        t: u16,
        req: HostRequest,
        now: SimTime,
        devs: &mut [Simulation<'a>],
    ) -> Result<(), FtlabError> {
        if req.op == IoOp::Trim {
            return Err(FtlabError::config(
                "scenario",
                format!("tenants.{t}"),
                "a trim reached the array: trims are not supported with [array] (no host layer for them yet)",
            ));
        }
        let l = self.layout;
        let ps = pieces(&l, req.first_lpn, req.n_units, self.tenants[t as usize].units);
        let mut rows: Vec<u32> = ps.iter().map(|(_, p)| p.row).collect();
        rows.sort_unstable();
        rows.dedup();
        let writes = if req.op == IoOp::Write { row_writes(&l, &ps) } else { Vec::new() };
        let io = Io {
            tenant: t,
            req,
            rows,
            pieces: ps,
            rebuilt: Vec::new(),
            rmw_rebuilt: Vec::new(),
            writes,
            pending: 0,
            writing: false,
        };
        let id = match self.free.pop() {
            Some(i) => {
                self.ios[i as usize] = Some(io);
                i
            }
            None => {
                self.ios.push(Some(io));
                (self.ios.len() - 1) as u32
            }
        };
        self.blocked.push_back(id);
        self.start_unblocked(now, devs)
    }

    /// Start, in order, every blocked request whose rows are free of started requests and of
    /// earlier blocked ones.
    fn start_unblocked(&mut self, now: SimTime, devs: &mut [Simulation<'a>]) -> Result<(), FtlabError> {
        let mut claimed: HashSet<(u16, u32)> = HashSet::new();
        let mut i = 0;
        while i < self.blocked.len() {
            let id = self.blocked[i];
            let io = self.ios[id as usize].as_ref().expect("a blocked request is live");
            let t = io.tenant;
            let free =
                io.rows.iter().all(|&r| !self.locked[t as usize][r as usize] && !claimed.contains(&(t, r)));
            if !free {
                claimed.extend(io.rows.iter().map(|&r| (t, r)));
                i += 1;
                continue;
            }
            self.blocked.remove(i);
            for &r in &self.ios[id as usize].as_ref().expect("live").rows {
                self.locked[t as usize][r as usize] = true;
            }
            self.start(id, now, devs)?;
        }
        Ok(())
    }

    fn start(&mut self, id: u32, now: SimTime, devs: &mut [Simulation<'a>]) -> Result<(), FtlabError> {
        let l = self.layout;
        let mut io = self.ios[id as usize].take().expect("live");
        let mut sends: Vec<(IoOp, Piece)> = Vec::new();
        let measured = io.req.arrival >= self.warmup;
        if io.req.op == IoOp::Read {
            for &(_, p) in &io.pieces {
                let rebuild = self.rebuild_device == Some(p.device)
                    || self.fails_fast(io.tenant, &p, measured, false, devs);
                io.rebuilt.push(rebuild);
                if rebuild {
                    sends.extend(rebuild_members(&l, &p).map(|m| (IoOp::Read, m)));
                } else {
                    sends.push((IoOp::Read, p));
                }
            }
        } else {
            // A read-modify-write's reads: each data piece (with its array unit) and the
            // parity piece (none).
            let reads: Vec<(Option<u32>, Piece)> = io
                .writes
                .iter()
                .filter(|w| !w.full)
                .flat_map(|w| w.data.iter().map(|&(u, p)| (Some(u), p)).chain([(None, w.parity(&l))]))
                .collect();
            for (u, p) in reads {
                if self.fails_fast(io.tenant, &p, measured, true, devs) {
                    io.rmw_rebuilt.push((u, p));
                    sends.extend(rebuild_members(&l, &p).map(|m| (IoOp::Read, m)));
                } else {
                    sends.push((IoOp::Read, p));
                }
            }
        }
        let (t, stream, deadline) = (io.tenant, io.req.stream, io.req.deadline);
        io.pending = sends.len() as u32;
        let empty = sends.is_empty();
        self.ios[id as usize] = Some(io);
        for (op, p) in sends {
            self.send(id, t, op, p, stream, deadline, now, devs)?;
        }
        if empty {
            self.phase_done(id, now, devs)?;
        }
        Ok(())
    }

    /// IODA's fail-fast read of piece `p` (`[array] fail_fast`): whether it is rebuilt from
    /// the other devices of its row. Its device fails it at once when background work holds
    /// its die (`Simulation::busy_remaining`: no device request is made, a zero-time failure,
    /// as FEMU's fail-fast read returns latency 0); the host then rebuilds it, unless another
    /// chunk of the row is busy too (RAID-5 rebuilds one chunk): then the chunk rebuilt is the
    /// one with the largest busy remaining time (`brt`, IOD_2 and IODA) or one drawn at random
    /// (`random` and `iod3`, IOD_1 and IOD_3), and a piece not rebuilt is read and waits. The
    /// members' own busy chunks are read and wait (md re-reads them without the flag). A
    /// write's read-modify-write reads (`rmw`) are flagged too, except under `iod3` (the
    /// artifact's md: "let's do reconstruction for rfw other than IOD3", docs/array.md).
    fn fails_fast(
        &mut self,
        t: u16,
        p: &Piece,
        measured: bool,
        rmw: bool,
        devs: &mut [Simulation<'a>],
    ) -> bool {
        if self.fail_fast == FailFast::Off || rmw && self.fail_fast == FailFast::Iod3 {
            return false;
        }
        let lpn = self.layout.device_unit(p.row, p.offset);
        let Some(mine) = devs[p.device as usize].busy_remaining(t, lpn, p.n) else { return false };
        let others: Vec<SimTime> = rebuild_members(&self.layout, p)
            .filter_map(|m| devs[m.device as usize].busy_remaining(t, lpn, m.n))
            .collect();
        let rebuild = others.is_empty()
            || match self.fail_fast {
                FailFast::Brt => others.iter().all(|&b| mine >= b),
                _ => self.rng.random_range(0..=others.len()) == 0,
            };
        if measured {
            let r = &mut self.tenants[t as usize].result;
            if rmw {
                r.rmw_reads_failed_fast += 1;
                r.rmw_reads_rebuilt += rebuild as u64;
            } else {
                r.reads_failed_fast += 1;
                r.reads_multi_busy += !others.is_empty() as u64;
            }
        }
        rebuild
    }

    /// Issue one device request for `io` (or queue it behind the device tenant's depth).
    #[allow(clippy::too_many_arguments)]
    fn send(
        &mut self,
        io: u32,
        t: u16,
        op: IoOp,
        p: Piece,
        stream: u16,
        deadline: SimTime,
        now: SimTime,
        devs: &mut [Simulation<'a>],
    ) -> Result<(), FtlabError> {
        let req = HostRequest {
            arrival: now,
            op,
            first_lpn: self.layout.device_unit(p.row, p.offset),
            n_units: p.n,
            bytes: p.n as u64 * self.unit_bytes,
            stream,
            deadline,
            task: NO_TASK,
        };
        self.device_requests += 1;
        let d = p.device as usize;
        if self.waiting[d][t as usize].is_empty() && devs[d].queue_room(t) > 0 {
            self.inject(d, t, io, req, now, devs)
        } else {
            self.waiting[d][t as usize].push_back((io, req));
            Ok(())
        }
    }

    fn inject(
        &mut self,
        d: usize,
        t: u16,
        io: u32,
        req: HostRequest,
        now: SimTime,
        devs: &mut [Simulation<'a>],
    ) -> Result<(), FtlabError> {
        devs[d].advance_to(now)?;
        let id = devs[d].inject(t, req)? as usize;
        let slots = &mut self.inflight[d];
        if slots.len() <= id {
            slots.resize(id + 1, NO_IO);
        }
        assert_eq!(slots[id], NO_IO, "a device request id is reused only after its completion");
        slots[id] = io;
        Ok(())
    }

    /// Device `d` completed its request `id` at `now`.
    pub(crate) fn device_done(
        &mut self,
        d: usize,
        id: u32,
        now: SimTime,
        devs: &mut [Simulation<'a>],
    ) -> Result<(), FtlabError> {
        let io = std::mem::replace(&mut self.inflight[d][id as usize], NO_IO);
        assert_ne!(io, NO_IO, "device {d} completed request {id}, which the array did not send");
        for t in 0..self.tenants.len() {
            while devs[d].queue_room(t as u16) > 0 {
                let Some((w, req)) = self.waiting[d][t].pop_front() else { break };
                self.inject(d, t as u16, w, req, now, devs)?;
            }
        }
        let x = self.ios[io as usize].as_mut().expect("a device request's array request is live");
        x.pending -= 1;
        if x.pending == 0 {
            self.phase_done(io, now, devs)?;
        }
        Ok(())
    }

    /// Every device request of `io`'s phase completed: a read completes; a write's reads
    /// are followed by its writes, whose completion completes it.
    fn phase_done(&mut self, id: u32, now: SimTime, devs: &mut [Simulation<'a>]) -> Result<(), FtlabError> {
        let io = self.ios[id as usize].take().expect("live");
        if io.req.op == IoOp::Write && !io.writing {
            return self.start_writes(id, io, now, devs);
        }
        if io.req.op == IoOp::Read {
            self.check_reads(&io);
        }
        self.complete(id, io, now, devs)
    }

    /// The oracle's check of a read's units: on their device, or rebuilt.
    fn check_reads(&mut self, io: &Io) {
        let Some(o) = self.oracle.as_mut() else { return };
        for (&(u, p), &rebuilt) in io.pieces.iter().zip(&io.rebuilt) {
            for i in 0..p.n {
                let r = if rebuilt {
                    o.check_rebuild(io.tenant, u + i)
                } else {
                    let token = o.read(io.tenant, p.device, p.row, p.offset + i);
                    o.check_read(io.tenant, u + i, token)
                };
                if let Err(e) = r {
                    panic!("{e}");
                }
            }
        }
    }

    /// A write's data and parity writes: new tokens for its units, parity from the old
    /// parity and data its reads returned (the rows are locked: they are what the oracle
    /// holds) or, for a full row, from the new data alone.
    fn start_writes(
        &mut self,
        id: u32,
        mut io: Io,
        now: SimTime,
        devs: &mut [Simulation<'a>],
    ) -> Result<(), FtlabError> {
        let l = self.layout;
        let t = io.tenant;
        if let Some(o) = self.oracle.as_mut() {
            // Old data or parity rebuilt from the rest of its row must be what the row holds.
            for &(u, p) in &io.rmw_rebuilt {
                for i in 0..p.n {
                    let r = match u {
                        Some(u) => o.check_rebuild(t, u + i),
                        None => o.check_parity_rebuild(t, p.row, p.offset + i),
                    };
                    if let Err(e) = r {
                        panic!("{e}");
                    }
                }
            }
        }
        let mut sends: Vec<Piece> = Vec::new();
        for w in &io.writes {
            if let Some(o) = self.oracle.as_mut() {
                let par = w.parity(&l);
                let mut parity: Vec<u64> = if w.full {
                    vec![0; par.n as usize]
                } else {
                    (0..par.n).map(|i| o.read(t, par.device, w.row, par.offset + i)).collect()
                };
                for &(u, p) in &w.data {
                    for i in 0..p.n {
                        let old = if w.full { 0 } else { o.read(t, p.device, p.row, p.offset + i) };
                        let new = o.write_data(t, u + i);
                        parity[(p.offset + i - par.offset) as usize] ^= old ^ new;
                    }
                }
                if w.full {
                    for (i, x) in parity.iter_mut().enumerate() {
                        let off = par.offset + i as u32;
                        *x = (0..l.data_chunks())
                            .filter_map(|c| l.unit_at(w.row, l.data_device(w.row, c), off))
                            .fold(0, |acc, u| acc ^ o.read(t, l.place(u).device, w.row, off));
                    }
                }
                for (i, &x) in parity.iter().enumerate() {
                    o.write_parity(t, w.row, par.offset + i as u32, x);
                }
            }
            sends.extend(w.data.iter().map(|&(_, p)| p));
            sends.push(w.parity(&l));
            if io.req.arrival >= self.warmup {
                let r = &mut self.tenants[t as usize].result;
                if w.full {
                    r.stripe_writes_full += 1;
                } else {
                    r.stripe_writes_rmw += 1;
                }
            }
        }
        io.writing = true;
        io.pending = sends.len() as u32;
        let (stream, deadline) = (io.req.stream, io.req.deadline);
        self.ios[id as usize] = Some(io);
        for p in sends {
            self.send(id, t, IoOp::Write, p, stream, deadline, now, devs)?;
        }
        Ok(())
    }

    fn complete(
        &mut self,
        id: u32,
        io: Io,
        now: SimTime,
        devs: &mut [Simulation<'a>],
    ) -> Result<(), FtlabError> {
        let t = io.tenant as usize;
        for &r in &io.rows {
            self.locked[t][r as usize] = false;
        }
        self.free.push(id);
        let tn = &mut self.tenants[t];
        tn.outstanding -= 1;
        if io.req.arrival >= self.warmup {
            let stats = if io.req.op == IoOp::Read { &mut tn.result.read } else { &mut tn.result.write };
            stats.hist.record(now - io.req.arrival);
            stats.bytes += io.req.bytes;
            tn.result.chunks_rebuilt += io.rebuilt.iter().filter(|&&r| r).count() as u64;
        }
        self.start_unblocked(now, devs)?;
        self.arrive(now, devs)
    }
}
