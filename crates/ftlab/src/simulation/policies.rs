//! The policies part of the engine: the scheme and the stream mapper, the hooks they asked
//! for (`Interests`), and the commands their hooks push. Invariant: `cmds` is empty between
//! hooks (the engine applies them after each). It holds no device state: hooks get a
//! read-only `DeviceView` (`Engine::policies_and_view`). Not the policies themselves
//! (`scheme/`, `stream/`).

use crate::policy::{Command, Interests};
use crate::scheme::Scheme;
use crate::stream::StreamMapper;

/// The scheme and mapper of one run, and what their hooks pushed.
pub(super) struct Policies {
    pub(super) scheme: Box<dyn Scheme>,
    pub(super) mapper: Box<dyn StreamMapper>,
    /// The hooks either policy wants called.
    pub(super) interests: Interests,
    /// Commands pushed by policy hooks, applied after each hook.
    pub(super) cmds: Vec<Command>,
}

impl Policies {
    pub(super) fn new(scheme: Box<dyn Scheme>, mapper: Box<dyn StreamMapper>) -> Policies {
        let interests = scheme.interests().or(mapper.interests());
        Policies { scheme, mapper, interests, cmds: Vec::new() }
    }

    /// The part's invariants (tests).
    pub(super) fn check(&self) {
        assert!(self.cmds.is_empty(), "{} policy commands left unapplied", self.cmds.len());
    }
}
