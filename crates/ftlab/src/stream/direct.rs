//! `direct`: the host's stream ids are the device's streams, as on an NVMe multi-stream SSD
//! without vStream (the vStream paper, §4.1). Virtual stream 0 is a write without a stream id
//! and goes to physical stream 0, the device's default stream. Any other id opens one of the
//! physical streams 1..P−1 on first use and keeps it while it is open. When all of them are
//! open, a new id follows the NVMe rule the paper describes, chosen by `beyond_limit`:
//! `release` (an open stream is released and the new id takes its physical stream) or
//! `unstreamed` (the write is treated as one without a stream id: physical stream 0, and the
//! id stays closed). GC copies stay in the stream they were written through.
//!
//! What it is not: it learns nothing (no lifetimes, no regions) and does not model SAS's
//! error response to an open beyond the limit (the paper's other rule, which needs the host to
//! close streams: a host behaviour, not a device's). Each tenant has its own P streams, as every
//! mapper (the engine's frontiers are per tenant). docs/streams/direct.md.

use super::{MapperContext, MapperInfo, StreamMapper};
use crate::ftl::blocks::WriteClass;
use crate::knobs::{config_fields, serde_defaults, Knob, KnobKind};
use crate::policy::{
    parse_config, to_table, Command, Counters, DeviceView, Interests, Placed, SchemeConfigError,
};
use serde::{Deserialize, Serialize};

/// What happens to a write whose stream id is new when every stream is open (NVMe, §4.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum BeyondLimit {
    /// "An arbitrary stream is released to free the stream resources associated with that
    /// stream ID for the new stream." ftlab releases the least recently written open stream
    /// (ties: the lowest physical stream), so that runs are deterministic.
    #[default]
    Release,
    /// "The subsequent write commands are treated as normal write commands that do not
    /// specify a stream ID": physical stream 0; the new id does not open.
    Unstreamed,
}

/// Knobs of `direct` (`[stream.direct]`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct DirectConfig {
    /// The NVMe rule beyond the open-stream limit (`ftl.physical_streams` − 1 open streams).
    pub(crate) beyond_limit: BeyondLimit,
}

/// The knobs of `direct`.
pub(crate) const KNOBS: &[Knob] = &[Knob::new(
    "beyond_limit",
    "",
    KnobKind::Choice(&["release", "unstreamed"]),
    "A new stream id when every stream is open: release the least recently written one, or write it \
     unstreamed.",
)];

/// `direct`'s registry entry.
pub(crate) const INFO: MapperInfo = MapperInfo {
    name: "direct",
    summary: "The host's stream ids are the device's streams (NVMe multi-stream), opened on first use.",
    knobs: KNOBS,
    fields: config_fields::<DirectConfig>,
    defaults: serde_defaults::<DirectConfig>,
    build,
    caps: (),
};

/// Marks a virtual stream that holds no physical stream.
const CLOSED: u8 = u8::MAX;

pub struct Direct {
    config: DirectConfig,
    physical_streams: u8,
    /// Per tenant, per virtual stream id: its physical stream, or `CLOSED` (64 KiB a tenant).
    physical_of: Vec<Vec<u8>>,
    /// Per tenant, per physical stream: the virtual stream holding it (`None`: free).
    holder: Vec<Vec<Option<u16>>>,
    /// Per tenant, per physical stream: the host write count when it was last written.
    last_written: Vec<Vec<u64>>,
    writes: u64,
    /// (tenant, lpn) of the last unstreamed fallback, counted when its unit lands.
    pending_unstreamed: Option<(u16, u32)>,
    counters: DirectCounters,
}

#[derive(Clone, Copy, Debug, Default)]
struct DirectCounters {
    opens: u64,
    releases: u64,
    /// Host units written unstreamed because every stream was open (`beyond_limit =
    /// "unstreamed"`).
    unstreamed_units: u64,
}

pub(crate) fn build(
    table: &toml::Table,
    ctx: &MapperContext,
) -> Result<Box<dyn StreamMapper>, SchemeConfigError> {
    Ok(Box::new(Direct::new(table, ctx)?))
}

impl Direct {
    pub fn new(table: &toml::Table, ctx: &MapperContext) -> Result<Direct, SchemeConfigError> {
        let config: DirectConfig = parse_config(table)?;
        let (n, p) = (ctx.namespace_units.len(), ctx.physical_streams as usize);
        Ok(Direct {
            config,
            physical_streams: ctx.physical_streams,
            physical_of: vec![vec![CLOSED; u16::MAX as usize + 1]; n],
            holder: vec![vec![None; p]; n],
            last_written: vec![vec![0; p]; n],
            writes: 0,
            pending_unstreamed: None,
            counters: DirectCounters::default(),
        })
    }

    /// The physical stream of a host write of `tenant` tagged `vs`; opens or releases as the
    /// NVMe rule says. `None`: unstreamed fallback (physical stream 0).
    pub(crate) fn open(&mut self, tenant: u16, vs: u16) -> Option<u8> {
        let t = tenant as usize;
        let p = self.physical_of[t][vs as usize];
        if p != CLOSED {
            return Some(p);
        }
        let free = (1..self.physical_streams).find(|&s| self.holder[t][s as usize].is_none());
        let p = match (free, self.config.beyond_limit) {
            (Some(s), _) => s,
            (None, BeyondLimit::Unstreamed) => return None,
            (None, BeyondLimit::Release) => {
                // Least recently written open stream; with one physical stream there is none.
                let s = (1..self.physical_streams).min_by_key(|&s| (self.last_written[t][s as usize], s))?;
                let old = self.holder[t][s as usize].expect("every stream is open");
                self.physical_of[t][old as usize] = CLOSED;
                self.counters.releases += 1;
                s
            }
        };
        self.holder[t][p as usize] = Some(vs);
        self.physical_of[t][vs as usize] = p;
        self.counters.opens += 1;
        Some(p)
    }
}

impl StreamMapper for Direct {
    fn name(&self) -> &'static str {
        "direct"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, ..Interests::NONE }
    }
    fn host_stream(&mut self, tenant: u16, lpn: u32, virtual_stream: u16, _view: &DeviceView) -> u8 {
        self.writes += 1;
        if virtual_stream == 0 {
            return 0;
        }
        match self.open(tenant, virtual_stream) {
            Some(p) => {
                self.last_written[tenant as usize][p as usize] = self.writes;
                p
            }
            None => {
                self.pending_unstreamed = Some((tenant, lpn));
                0
            }
        }
    }
    fn gc_stream(&mut self, _tenant: u16, _lpn: u32, from_stream: u8, _view: &DeviceView) -> u8 {
        from_stream
    }
    /// The victim's own stream, for every unit of it.
    fn gc_block_stream(&self, _tenant: u16, from_stream: u8) -> Option<u8> {
        Some(from_stream)
    }
    fn on_placed(&mut self, _view: &DeviceView, ev: &Placed, _cmds: &mut Vec<Command>) {
        if ev.class == WriteClass::Host && self.pending_unstreamed == Some((ev.tenant, ev.lpn)) {
            self.pending_unstreamed = None;
            self.counters.unstreamed_units += 1;
        }
    }
    /// `opens`, `releases` and `unstreamed_units` (preconditioning included; it writes
    /// virtual stream 0 only, so it adds nothing).
    fn counters(&self, out: &mut Counters) {
        let c = &self.counters;
        out.extend([
            ("opens", c.opens as f64),
            ("releases", c.releases as f64),
            ("unstreamed_units", c.unstreamed_units as f64),
        ]);
    }
    fn resolved_config(&self) -> toml::Table {
        to_table(&self.config)
    }
}
