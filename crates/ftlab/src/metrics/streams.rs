//! Per-stream measurements, taken by the engine so that every stream mapper is measured the
//! same way (docs/streams/README.md): per tenant and virtual stream, the host units written,
//! the units that died and their mean lifetime; per physical stream, the units GC copied into
//! it; and per time-series window, the physical stream that took most of each virtual
//! stream's host units (the mapping over time).
//!
//! What this is not: a mapper (it decides nothing) and not the vStream mapper's own lifetime
//! bookkeeping (`stream/vstream.rs` charges a dead page to the *killing* command's stream at
//! its shared stamp's granularity; this module charges it to the stream that *wrote* it, per
//! unit, exactly).
//!
//! **Lifetime** of a unit's data: from the host write that created it to the overwrite or trim
//! that killed it; GC copies move data without resetting it. Counted for deaths in the
//! measured phase of data written in the timed run (warm-up included); data written by
//! preconditioning has no write time and its deaths are counted in `n_units_dead_unknown`.
//! A unit's write time is kept at about 1 ms resolution (`WRITE_TIME_SHIFT`), in a `u16` per
//! unit while every code fits (the first 68 simulated seconds) and in a `u32` after, chunk by
//! chunk (`WriteCodes`); its virtual stream in a `u16` per unit, allocated only when some host write
//! carries a stream other than 0 (until then every unit's stream is 0). Both are exact: the
//! narrow forms hold the same values the wide ones would.

use crate::sim::time::SimTime;

/// Virtual streams counted one by one per tenant; higher ids are counted in one "other" slot.
pub(crate) const COUNTED_VIRTUAL_STREAMS: usize = crate::stream::COUNTED_VIRTUAL_STREAMS;
/// Virtual streams with a `vs<i>_physical_stream` time-series column (ids 0..16).
pub(crate) const SERIES_VIRTUAL_STREAMS: usize = 16;
/// Physical streams a device may have (`ftl.physical_streams` is at most this).
pub(crate) const PHYSICAL_STREAMS_MAX: usize = crate::stream::PHYSICAL_STREAMS_MAX;
/// A unit's write time is kept as `time_ns >> WRITE_TIME_SHIFT` plus one in a `u32` (0 = no
/// write time): 2^20 ns ≈ 1.05 ms resolution, up to 2^32 of them ≈ 52 simulated days. A
/// later write is stamped at that limit and counted in `write_times_capped`.
pub(crate) const WRITE_TIME_SHIFT: u32 = 20;

/// One virtual stream of one tenant, as `summary.json` reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct VirtualStreamStats {
    pub n_units_written: u64,
    /// Deaths with a known write time, and the sum of their lifetimes.
    pub(crate) n_units_dead: u64,
    pub(crate) lifetime_ns_sum: u128,
    /// Deaths of data written before the timed run (no write time).
    pub n_units_dead_unknown: u64,
}

impl VirtualStreamStats {
    /// Mean lifetime of the dead units with a known write time, in seconds; `None` if none.
    pub fn lifetime_s_mean(&self) -> Option<f64> {
        (self.n_units_dead > 0).then(|| self.lifetime_ns_sum as f64 / self.n_units_dead as f64 / 1e9)
    }
    fn is_empty(&self) -> bool {
        self.n_units_written == 0 && self.n_units_dead == 0 && self.n_units_dead_unknown == 0
    }
}

/// The engine's per-stream bookkeeping of one scheme's run.
#[derive(Clone, Debug)]
pub(crate) struct StreamStats {
    /// First global unit index of each tenant's namespace.
    unit_base: Vec<u64>,
    /// Global units (the sum of the namespaces).
    n_units: usize,
    /// Per global unit: write time code (see `WRITE_TIME_SHIFT`).
    unit_written: WriteCodes,
    /// Per global unit: virtual stream; empty while every host write carried stream 0.
    unit_stream: Vec<u16>,
    /// `[tenant][vs]`, `COUNTED_VIRTUAL_STREAMS + 1` per tenant (the last is "other").
    virtual_streams: Vec<VirtualStreamStats>,
    /// Units copied by jobs into each physical stream (measured phase).
    pub(crate) gc_units_by_physical_stream: [u64; PHYSICAL_STREAMS_MAX],
    /// Host units written into each physical stream (measured phase).
    pub(crate) host_units_by_physical_stream: [u64; PHYSICAL_STREAMS_MAX],
    /// Open window: `[tenant][vs < SERIES_VIRTUAL_STREAMS][physical]` host units.
    window: Vec<u32>,
    /// Whether the time series gets the `vs<i>_physical_stream` columns.
    series: bool,
    /// The timed run has started (`start_timed`).
    timed: bool,
    measuring: bool,
    /// Writes after `u32::MAX - 1` steps of `2^WRITE_TIME_SHIFT` ns, stamped at that limit.
    pub(crate) write_times_capped: u64,
}

const SLOTS: usize = COUNTED_VIRTUAL_STREAMS + 1;

impl StreamStats {
    /// Bookkeeping for tenants with `namespace_units` each; `series`: add the mapping columns
    /// to the time series; `lifetimes`: keep each unit's write time (`measure.stream_lifetimes`;
    /// without them every death is of unknown age).
    pub(crate) fn new(namespace_units: &[u32], series: bool, lifetimes: bool) -> StreamStats {
        let mut unit_base = Vec::with_capacity(namespace_units.len());
        let mut total = 0u64;
        for &n in namespace_units {
            unit_base.push(total);
            total += n as u64;
        }
        let n_tenants = namespace_units.len();
        StreamStats {
            unit_base,
            n_units: total as usize,
            unit_written: WriteCodes::new(if lifetimes { total as usize } else { 0 }),
            unit_stream: Vec::new(),
            virtual_streams: vec![VirtualStreamStats::default(); n_tenants * SLOTS],
            gc_units_by_physical_stream: [0; PHYSICAL_STREAMS_MAX],
            host_units_by_physical_stream: [0; PHYSICAL_STREAMS_MAX],
            window: vec![0; n_tenants * SERIES_VIRTUAL_STREAMS * PHYSICAL_STREAMS_MAX],
            series,
            timed: false,
            measuring: false,
            write_times_capped: 0,
        }
    }

    /// The timed run starts: preconditioning's writes leave the time series' window.
    pub(crate) fn start_timed(&mut self) {
        self.timed = true;
        self.window.fill(0);
    }

    /// The measured phase starts: the counts restart (the per-unit write times stay).
    pub(crate) fn start_measuring(&mut self) {
        self.measuring = true;
        self.virtual_streams.fill(VirtualStreamStats::default());
        self.gc_units_by_physical_stream = [0; PHYSICAL_STREAMS_MAX];
        self.host_units_by_physical_stream = [0; PHYSICAL_STREAMS_MAX];
    }

    /// A host unit of `tenant`'s `lpn`, tagged `virtual_stream`, landed in `physical_stream`
    /// at `now` (`None`: preconditioning, no write time). Call after `died` for the data it
    /// overwrote.
    ///
    /// Preconditioning precedes every timed write and writes no time, no stream (0) and no
    /// window count (`start_timed` clears the window), which is what the zeroed arrays already
    /// hold: its writes are skipped, saving two random stores per unit.
    #[inline]
    pub(crate) fn written(
        &mut self,
        tenant: u16,
        lpn: u32,
        virtual_stream: u16,
        physical_stream: u8,
        now: Option<SimTime>,
    ) {
        let Some(now) = now else {
            assert!(!self.timed, "a write without a time after the timed run started");
            return;
        };
        let u = self.unit(tenant, lpn);
        let steps = now.ns() >> WRITE_TIME_SHIFT;
        if !self.unit_written.is_empty() {
            self.write_times_capped += u64::from(steps >= WRITE_TIME_STEPS_MAX);
            self.unit_written.set(u, steps.min(WRITE_TIME_STEPS_MAX) as u32 + 1);
        }
        if virtual_stream != 0 && self.unit_stream.is_empty() {
            self.unit_stream = vec![0; self.n_units];
        }
        if !self.unit_stream.is_empty() {
            self.unit_stream[u] = virtual_stream;
        }
        let vs = virtual_stream as usize;
        if vs < SERIES_VIRTUAL_STREAMS {
            let w = (tenant as usize * SERIES_VIRTUAL_STREAMS + vs) * PHYSICAL_STREAMS_MAX
                + physical_stream as usize;
            self.window[w] = self.window[w].saturating_add(1);
        }
        if self.measuring {
            self.slot(tenant, virtual_stream).n_units_written += 1;
            self.host_units_by_physical_stream[physical_stream as usize] += 1;
        }
    }

    /// The data of `tenant`'s `lpn` died at `now` (overwrite or trim).
    #[inline]
    pub(crate) fn died(&mut self, tenant: u16, lpn: u32, now: SimTime) {
        if !self.measuring {
            return;
        }
        let u = self.unit(tenant, lpn);
        let code = if self.unit_written.is_empty() { 0 } else { self.unit_written.get(u) };
        let vs = self.unit_stream.get(u).copied().unwrap_or(0);
        let s = self.slot(tenant, vs);
        if code == 0 {
            s.n_units_dead_unknown += 1;
        } else {
            let written_ns = ((code - 1) as u64) << WRITE_TIME_SHIFT;
            assert!(written_ns <= now.ns(), "unit written after it died");
            s.n_units_dead += 1;
            s.lifetime_ns_sum += now.ns().saturating_sub(written_ns) as u128;
        }
    }

    /// Whether any per-unit measurement is kept (write times or virtual streams), so that
    /// `prefetch` has something to fetch.
    #[inline]
    pub(crate) fn keeps_units(&self) -> bool {
        !self.unit_written.is_empty() || !self.unit_stream.is_empty()
    }

    /// Prefetch what `died` and `written` will touch for `tenant`'s `lpn` (a host write of it
    /// is coming): its write-time code and its virtual stream. A hint only.
    #[inline]
    pub(crate) fn prefetch(&self, tenant: u16, lpn: u32) {
        let Some(&base) = self.unit_base.get(tenant as usize) else { return };
        let u = (base + lpn as u64) as usize;
        self.unit_written.prefetch(u);
        crate::ftl::table::prefetch(&self.unit_stream, u);
    }

    /// A job copied a unit into `physical_stream`.
    #[inline]
    pub(crate) fn copied(&mut self, physical_stream: u8) {
        if self.measuring {
            self.gc_units_by_physical_stream[physical_stream as usize] += 1;
        }
    }

    /// Close `tenant`'s row of the window: per virtual stream below `SERIES_VIRTUAL_STREAMS`,
    /// the physical stream that took most of its host units (ties: the lowest), NaN if none.
    /// Clears the tenant's counts.
    pub(crate) fn series_values(&mut self, tenant: u16, out: &mut Vec<f64>) {
        if !self.series {
            return;
        }
        let base = tenant as usize * SERIES_VIRTUAL_STREAMS * PHYSICAL_STREAMS_MAX;
        let rows = &mut self.window[base..base + SERIES_VIRTUAL_STREAMS * PHYSICAL_STREAMS_MAX];
        for counts in rows.chunks_exact_mut(PHYSICAL_STREAMS_MAX) {
            out.push(mode(counts).map_or(f64::NAN, |p| p as f64));
            counts.fill(0);
        }
    }

    /// Per tenant, the virtual streams with any count, as `(virtual stream, stats)`; the
    /// "other" slot (ids ≥ `COUNTED_VIRTUAL_STREAMS`) is reported as `None`.
    pub(crate) fn virtual_streams(
        &self,
        tenant: u16,
    ) -> impl Iterator<Item = (Option<u16>, &VirtualStreamStats)> {
        let base = tenant as usize * SLOTS;
        self.virtual_streams[base..base + SLOTS]
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.is_empty())
            .map(|(i, s)| ((i < COUNTED_VIRTUAL_STREAMS).then_some(i as u16), s))
    }

    #[inline]
    fn unit(&self, tenant: u16, lpn: u32) -> usize {
        let u = (self.unit_base[tenant as usize] + lpn as u64) as usize;
        assert!(u < self.n_units, "unit {lpn} of tenant {tenant} outside every namespace");
        u
    }

    #[inline]
    fn slot(&mut self, tenant: u16, vs: u16) -> &mut VirtualStreamStats {
        let i = (vs as usize).min(COUNTED_VIRTUAL_STREAMS);
        &mut self.virtual_streams[tenant as usize * SLOTS + i]
    }
}

/// What `summary.json` reports of the streams (`schemes.<s>.streams`).
#[derive(Clone, Debug, Default)]
pub struct StreamsResult {
    /// Per physical stream below `ftl.physical_streams`: host units written and units copied
    /// by jobs into it.
    pub host_units: Vec<u64>,
    pub gc_units: Vec<u64>,
    /// Per tenant, its virtual streams with any count (`None`: ids ≥ 256 together).
    pub virtual_streams: Vec<Vec<(Option<u16>, VirtualStreamStats)>>,
    pub(crate) write_times_capped: u64,
}

impl StreamStats {
    /// The measured counts, for a device of `physical_streams`.
    pub(crate) fn result(&self, physical_streams: u8) -> StreamsResult {
        let p = physical_streams as usize;
        for s in p..PHYSICAL_STREAMS_MAX {
            assert_eq!(
                self.host_units_by_physical_stream[s] + self.gc_units_by_physical_stream[s],
                0,
                "physical stream {s} beyond the device's {p}"
            );
        }
        StreamsResult {
            host_units: self.host_units_by_physical_stream[..p].to_vec(),
            gc_units: self.gc_units_by_physical_stream[..p].to_vec(),
            virtual_streams: (0..self.unit_base.len() as u16)
                .map(|t| self.virtual_streams(t).map(|(v, s)| (v, *s)).collect())
                .collect(),
            write_times_capped: self.write_times_capped,
        }
    }
}

/// Names of the time-series columns `series_values` fills, in order.
pub(crate) fn series_names() -> Vec<&'static str> {
    (0..SERIES_VIRTUAL_STREAMS)
        .map(|i| crate::stream::counter_name(format!("vs{i}_physical_stream")))
        .collect()
}

/// Per-unit write-time codes, in chunks of `CHUNK_UNITS` units: a chunk holds `u16`s while
/// every code stored in it fits one, and is widened to `u32`s at the first that does not (one
/// chunk at a time, so widening never holds two copies of the whole array). The same values
/// either way.
#[derive(Clone, Debug)]
struct WriteCodes {
    chunks: Vec<CodeChunk>,
}

#[derive(Clone, Debug)]
enum CodeChunk {
    Narrow(Box<[u16]>),
    Wide(Box<[u32]>),
}

/// Units per `WriteCodes` chunk (2^16: 128 KiB narrow, 256 KiB wide).
const CHUNK_SHIFT: u32 = 16;
const CHUNK_UNITS: usize = 1 << CHUNK_SHIFT;

impl WriteCodes {
    fn new(n_units: usize) -> WriteCodes {
        let chunks = (0..n_units.div_ceil(CHUNK_UNITS))
            .map(|c| {
                CodeChunk::Narrow(vec![0; CHUNK_UNITS.min(n_units - c * CHUNK_UNITS)].into_boxed_slice())
            })
            .collect();
        WriteCodes { chunks }
    }

    /// No codes are kept (`measure.stream_lifetimes = false`).
    #[inline]
    fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    #[inline]
    fn get(&self, u: usize) -> u32 {
        let i = u & (CHUNK_UNITS - 1);
        match &self.chunks[u >> CHUNK_SHIFT] {
            CodeChunk::Narrow(v) => u32::from(v[i]),
            CodeChunk::Wide(v) => v[i],
        }
    }

    /// Hint that unit `u`'s code will be read soon (nothing when no codes are kept).
    #[inline]
    fn prefetch(&self, u: usize) {
        let i = u & (CHUNK_UNITS - 1);
        match self.chunks.get(u >> CHUNK_SHIFT) {
            Some(CodeChunk::Narrow(v)) => crate::ftl::table::prefetch(v, i),
            Some(CodeChunk::Wide(v)) => crate::ftl::table::prefetch(v, i),
            None => {}
        }
    }

    #[inline]
    fn set(&mut self, u: usize, code: u32) {
        let i = u & (CHUNK_UNITS - 1);
        let chunk = &mut self.chunks[u >> CHUNK_SHIFT];
        match chunk {
            CodeChunk::Narrow(v) => match u16::try_from(code) {
                Ok(c) => v[i] = c,
                Err(_) => {
                    let mut wide: Box<[u32]> = v.iter().map(|&c| u32::from(c)).collect();
                    wide[i] = code;
                    *chunk = CodeChunk::Wide(wide);
                }
            },
            CodeChunk::Wide(v) => v[i] = code,
        }
    }

    /// Chunks widened to `u32`.
    #[cfg(test)]
    fn wide_chunks(&self) -> usize {
        self.chunks.iter().filter(|c| matches!(c, CodeChunk::Wide(_))).count()
    }
}

/// Largest write-time step kept (the code is the step plus one, below `u32::MAX`).
const WRITE_TIME_STEPS_MAX: u64 = (u32::MAX - 2) as u64;

/// The index of the largest count (the lowest on ties); `None` if all are 0.
fn mode(counts: &[u32]) -> Option<usize> {
    let (i, &n) = counts.iter().enumerate().fold((0, &0), |best, c| if c.1 > best.1 { c } else { best });
    (n > 0).then_some(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifetimes_are_charged_to_the_writing_stream_and_survive_copies() {
        let mut s = StreamStats::new(&[8, 8], true, true);
        s.start_timed();
        s.start_measuring();
        s.written(1, 3, 5, 2, Some(SimTime::from_secs_f64(1.0)));
        s.copied(3); // a GC copy keeps the write time
        s.died(1, 3, SimTime::from_secs_f64(4.0));
        let (vs, st) = s.virtual_streams(1).next().expect("one stream");
        assert_eq!(vs, Some(5));
        assert_eq!((st.n_units_written, st.n_units_dead, st.n_units_dead_unknown), (1, 1, 0));
        let life = st.lifetime_s_mean().expect("a death");
        assert!((life - 3.0).abs() < 2e-3, "{life}");
        assert_eq!(s.virtual_streams(0).count(), 0, "tenant 0 wrote nothing");
        assert_eq!(s.gc_units_by_physical_stream[3], 1);
        assert_eq!(s.host_units_by_physical_stream[2], 1);
    }

    /// `measure.stream_lifetimes = false`: the counts of units written stay, every death is
    /// of unknown age (no write time kept), and no per-unit code array is held.
    #[test]
    fn without_lifetimes_every_death_is_of_unknown_age() {
        let mut s = StreamStats::new(&[4], false, false);
        assert!(s.unit_written.is_empty(), "no write-time codes held");
        s.start_timed();
        s.start_measuring();
        // Past the 2^32 steps of the codes: nothing is capped, as no time is kept.
        s.written(0, 1, 0, 0, Some(SimTime(u64::MAX)));
        s.written(0, 2, 0, 0, Some(SimTime::from_secs_f64(1.0)));
        s.died(0, 2, SimTime::from_secs_f64(3.0));
        let (_, st) = s.virtual_streams(0).next().expect("one stream");
        assert_eq!((st.n_units_written, st.n_units_dead, st.n_units_dead_unknown), (2, 0, 1));
        assert_eq!(st.lifetime_s_mean(), None);
        assert_eq!(s.write_times_capped, 0);
    }

    #[test]
    fn preconditioned_data_has_no_lifetime() {
        let mut s = StreamStats::new(&[4], false, true);
        s.written(0, 0, 0, 0, None);
        s.start_timed();
        s.start_measuring();
        s.died(0, 0, SimTime::from_secs_f64(2.0));
        let (_, st) = s.virtual_streams(0).next().expect("one stream");
        assert_eq!((st.n_units_dead, st.n_units_dead_unknown, st.n_units_written), (0, 1, 0));
        assert_eq!(st.lifetime_s_mean(), None);
    }

    #[test]
    fn the_window_reports_each_virtual_streams_main_physical_stream() {
        let mut s = StreamStats::new(&[16], true, true);
        s.start_timed();
        for (vs, ps) in [(0, 1), (0, 1), (0, 2), (3, 2), (3, 0)] {
            s.written(0, 0, vs, ps, Some(SimTime::ZERO));
        }
        let mut out = Vec::new();
        s.series_values(0, &mut out);
        assert_eq!(out.len(), SERIES_VIRTUAL_STREAMS);
        assert_eq!(out[0], 1.0);
        assert_eq!(out[3], 0.0, "ties go to the lowest physical stream");
        assert!(out[1].is_nan() && out[15].is_nan());
        out.clear();
        s.series_values(0, &mut out);
        assert!(out.iter().all(|v| v.is_nan()), "the window was cleared");
    }

    #[test]
    fn write_codes_widen_exactly_past_the_narrow_range() {
        // Code = floor(t / 2^20 ns) + 1. At t = 2^36 ns the code is 2^16 + 1: past u16.
        // Two tenants: units 0..CHUNK_UNITS + 8 (two chunks, the second partial).
        let mut s = StreamStats::new(&[CHUNK_UNITS as u32, 8], false, true);
        s.start_timed();
        s.start_measuring();
        assert_eq!(s.unit_written.chunks.len(), 2);
        s.written(0, 0, 7, 0, Some(SimTime::from_ns(1 << 20)));
        assert!(s.unit_stream.len() == CHUNK_UNITS + 8, "stream 7 allocates the stream array");
        s.written(0, 1, 0, 0, Some(SimTime::from_ns(1 << 36)));
        s.written(1, 7, 0, 0, Some(SimTime::from_ns(5 << 20)));
        assert_eq!(s.unit_written.wide_chunks(), 1, "only the first chunk widens");
        assert_eq!((s.unit_written.get(0), s.unit_written.get(1)), (2, (1 << 16) + 1));
        assert_eq!(s.unit_written.get(CHUNK_UNITS + 7), 6);
        s.died(0, 0, SimTime::from_ns(3 << 20));
        let (vs, st) = s.virtual_streams(0).find(|(v, _)| *v == Some(7)).expect("stream 7");
        assert_eq!(vs, Some(7));
        assert_eq!((st.n_units_dead, st.lifetime_ns_sum), (1, 2 << 20));
        s.died(1, 7, SimTime::from_ns(9 << 20));
        let (_, st) = s.virtual_streams(1).next().expect("stream 0 of tenant 1");
        assert_eq!((st.n_units_dead, st.lifetime_ns_sum), (1, 4 << 20));
    }

    #[test]
    fn stream_zero_writes_allocate_no_stream_array() {
        let mut s = StreamStats::new(&[4, 4], false, true);
        s.start_timed();
        s.start_measuring();
        s.written(1, 2, 0, 0, Some(SimTime::ZERO));
        s.died(1, 2, SimTime::from_ns(5 << 20));
        assert!(s.unit_stream.is_empty());
        let (vs, st) = s.virtual_streams(1).next().expect("stream 0");
        assert_eq!((vs, st.n_units_dead, st.lifetime_ns_sum), (Some(0), 1, 5 << 20));
    }

    #[test]
    fn high_virtual_streams_share_the_other_slot() {
        let mut s = StreamStats::new(&[4], false, true);
        s.start_timed();
        s.start_measuring();
        s.written(0, 1, 300, 0, Some(SimTime::ZERO));
        s.written(0, 2, 40_000, 0, Some(SimTime::ZERO));
        let v: Vec<_> = s.virtual_streams(0).collect();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].0, None);
        assert_eq!(v[0].1.n_units_written, 2);
    }
}
