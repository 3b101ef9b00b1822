//! The policies part of the engine: the scheme and the stream mapper, the hooks they asked
//! for (`Interests`) and the capabilities the scheme has (die roles, parity stripes), and the
//! commands their hooks push. Invariant: `cmds` is empty between
//! hooks (the engine applies them after each). It holds no device state: hooks get a
//! read-only `DeviceView` (`Engine::policies_and_view`). Not the policies themselves
//! (`scheme/`, `stream/`).

use crate::flash::geometry::{DieIdx, Ppa};
use crate::policy::{Command, DeviceView, Interests};
use crate::scheme::{ReadPlan, Scheme};
use crate::sim::time::SimTime;
use crate::stream::StreamMapper;

/// The scheme and mapper of one run, and what their hooks pushed.
pub(super) struct Policies {
    pub(super) scheme: Box<dyn Scheme>,
    pub(super) mapper: Box<dyn StreamMapper>,
    /// The hooks either policy wants called.
    pub(super) interests: Interests,
    /// The scheme has die roles (`Scheme::write_roles`) / parity stripes (`Scheme::stripes`):
    /// asked once at build, like `interests`, so that the per-operation questions (`may_write`,
    /// `read_plan`) of a scheme without them cost no virtual call.
    pub(super) has_roles: bool,
    pub(super) has_stripes: bool,
    /// The scheme has windows without background work (`Scheme::background_windows`).
    pub(super) has_windows: bool,
    /// Commands pushed by policy hooks, applied after each hook.
    pub(super) cmds: Vec<Command>,
}

impl Policies {
    pub(super) fn new(scheme: Box<dyn Scheme>, mapper: Box<dyn StreamMapper>) -> Policies {
        let interests = scheme.interests().or(mapper.interests());
        let (has_roles, has_stripes) = (scheme.write_roles().is_some(), scheme.stripes().is_some());
        let has_windows = scheme.background_windows().is_some();
        Policies { scheme, mapper, interests, has_roles, has_stripes, has_windows, cmds: Vec::new() }
    }

    /// `Scheme::may_run_jobs`, without a virtual call for a scheme without such windows.
    #[inline]
    pub(super) fn may_run_jobs(&self, die: DieIdx) -> bool {
        !self.has_windows || self.scheme.may_run_jobs(die)
    }

    /// `Scheme::excursion`: `die` must collect now; whether it may.
    pub(super) fn excursion(&mut self, die: DieIdx, now: SimTime) -> bool {
        !self.has_windows || self.scheme.excursion(die, now)
    }

    /// `Scheme::may_write`, without a virtual call for a scheme without die roles.
    #[inline]
    pub(super) fn may_write(&self, die: DieIdx) -> bool {
        !self.has_roles || self.scheme.may_write(die)
    }

    /// `Scheme::read_plan`, without a virtual call for a scheme without parity stripes.
    #[inline]
    pub(super) fn read_plan(&self, ppa: Ppa, view: &DeviceView) -> ReadPlan {
        if self.has_stripes {
            self.scheme.read_plan(ppa, view)
        } else {
            ReadPlan::Direct
        }
    }

    /// The part's invariants (tests).
    pub(super) fn check(&self) {
        assert!(self.cmds.is_empty(), "{} policy commands left unapplied", self.cmds.len());
    }
}
