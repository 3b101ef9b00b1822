//! Test-only policies that drive each engine command through the integrity property test
//! (DESIGN §11): a scheme that migrates whole blocks while the host writes, one that runs GC in
//! partial steps of k page reads after every host page, and one that programs parity pages of
//! real stripes and rebuilds reads of busy dies from them (the oracle checks every rebuild). They stripe host
//! pages over every die like `unified`. Not shipped: they exist to prove the engine keeps data through every
//! command.
// Each test binary that includes this module uses only some of its items.
#![allow(dead_code)]

use ftlab::internals::flash::geometry::{BlockIdx, DieIdx, Ppa};
use ftlab::internals::ftl::blocks::{BlockState, WriteClass};
use ftlab::internals::policy::{Command, Dest, DeviceView, Interests, Migration, Placed, StripePages};
use ftlab::internals::scenario::Scenario;
use ftlab::internals::scheme::{ReadPlan, RoundRobin, Scheme, Stripes};
use ftlab::internals::simulation::Simulation;
use ftlab::SimTime;

/// Names of the test-only policies (the integrity test adds them to the registry's).
pub const TEST_POLICIES: &[&str] = &["test-migrate", "test-partial-gc", "test-parity"];

/// The registered scheme a scenario names for `name` (test-only policies use `unified`'s
/// scenario table, which is empty).
pub fn registered_base(name: &str) -> &str {
    if TEST_POLICIES.contains(&name) {
        "unified"
    } else {
        name
    }
}

/// A test-only policy for the scenario's device, or `None` for a registered name.
pub fn build(name: &str, s: &Scenario) -> Option<Box<dyn Scheme>> {
    let g = s.geometry();
    let n_tenants = s.tenants.len();
    let rr = || vec![RoundRobin::new(g.dies_channel_first()); n_tenants];
    match name {
        "test-migrate" => Some(Box::new(Migrator { cursors: rr(), next_die: 0, n_dies: g.n_dies })),
        "test-partial-gc" => {
            Some(Box::new(Stepper { cursors: rr(), units: 0, units_per_page: g.units_per_page }))
        }
        "test-parity" => Some(Box::new(Parity::new(&g, n_tenants))),
        _ => None,
    }
}

/// After a run: the policy's command really ran.
pub fn check_exercised(name: &str, sim: &Simulation) {
    let j = sim.job_counters();
    match name {
        "test-migrate" => assert!(
            j.erases[ftlab::internals::policy::JobKind::Migrate as usize] > 0,
            "no migration moved a block: {j:?}"
        ),
        "test-partial-gc" => assert!(
            j.gc_steps > 0 && j.page_reads[ftlab::internals::policy::JobKind::Gc as usize] > 0,
            "no partial GC ran: {j:?}"
        ),
        "test-parity" => {
            assert!(
                j.started[ftlab::internals::policy::JobKind::Parity as usize] > 0,
                "no parity program ran: {j:?}"
            );
            let d = sim.device_counters();
            assert!(
                d.flash_reads < 1000 || d.rebuilt_reads > 0,
                "reads of busy dies were never rebuilt: {d:?}"
            );
        }
        _ => {}
    }
}

/// Every epoch (10 ms), migrates up to 2 full blocks of the next die to the other dies, two
/// page reads in flight (a block of 64 pages takes about 2.5 ms to move, so migrations do not
/// pile up), if one of those dies has a free block above the host reserve. Without that
/// check, on a device kept short of space every copy fell back onto the die it left, and the
/// migrations erased block after block while no request progressed (soak seeds 1723 and 1927,
/// fill 1.0 at 15% over-provisioning: 7,658 migrations against 408 GC jobs, 720,763 copies
/// kept on their own die), which the livelock bound ended as it should.
struct Migrator {
    cursors: Vec<RoundRobin>,
    next_die: u32,
    n_dies: u32,
}

impl Scheme for Migrator {
    fn name(&self) -> &'static str {
        "test-migrate"
    }
    /// Tenants share frontiers (as `unified`): migrations move blocks of several tenants.
    fn frontier_per_tenant(&self) -> bool {
        false
    }
    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.cursors[tenant as usize].next_die()
    }
    fn epoch(&self) -> Option<SimTime> {
        Some(SimTime::from_ms(10))
    }
    fn on_epoch(&mut self, view: &DeviceView, cmds: &mut Vec<Command>) {
        let die = DieIdx(self.next_die);
        self.next_die = (self.next_die + 1) % self.n_dies;
        let g = view.ftl.geometry;
        let blocks: Vec<BlockIdx> = g
            .blocks_of_die(die)
            .map(BlockIdx)
            .filter(|&b| view.ftl.blocks().get(b).state() == BlockState::Full)
            .take(2)
            .collect();
        let dies: Vec<DieIdx> = (0..self.n_dies).map(DieIdx).filter(|&d| d != die).collect();
        let reserve = view.ftl.params.host_reserve_blocks;
        if dies.iter().all(|&d| view.ftl.blocks().free_count(d) <= reserve) {
            return;
        }
        cmds.push(Command::Migrate(Migration {
            blocks,
            dest: Dest::Dies(dies),
            erase_sources: true,
            reads_in_flight_max: 2,
            deadline: SimTime::MAX,
        }));
    }
    fn resolved_config(&self) -> toml::Table {
        toml::Table::new()
    }
}

/// After every host flash page, one partial-GC step of 2 page reads on that page's die.
struct Stepper {
    cursors: Vec<RoundRobin>,
    units: u64,
    units_per_page: u32,
}

impl Scheme for Stepper {
    fn name(&self) -> &'static str {
        "test-partial-gc"
    }
    /// Tenants share frontiers (as `unified`): partial GC steps through blocks of several
    /// tenants.
    fn frontier_per_tenant(&self) -> bool {
        false
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, ..Interests::NONE }
    }
    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.cursors[tenant as usize].next_die()
    }
    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, cmds: &mut Vec<Command>) {
        if ev.class != WriteClass::Host {
            return;
        }
        self.units += 1;
        if self.units.is_multiple_of(self.units_per_page as u64) {
            cmds.push(Command::StepGc { die: view.ftl.geometry.die_of(ev.ppa), pages: 2 });
        }
    }
    fn resolved_config(&self) -> toml::Table {
        toml::Table::new()
    }
}

/// Real stripes over `test-parity`'s round-robin host pages: when a tenant has filled (dies - 1)
/// host pages, a parity page of them goes on a die that holds none of them. A host read of a
/// page on a busy or collecting die is rebuilt from its stripe while the stripe is intact (no
/// member block erased since); the oracle checks every rebuild. GC is the engine's, which may
/// break stripes: a page of a broken stripe is read directly.
struct Parity {
    cursors: Vec<RoundRobin>,
    /// Per tenant: host pages filled and not yet covered by parity (first unit of each).
    open: Vec<Vec<Ppa>>,
    stripe_pages: usize,
    n_dies: u32,
    next_parity: u32,
    units_per_page: u32,
    /// Per physical page: its stripe, or `NO_STRIPE`.
    stripe_of_page: Vec<u32>,
    /// Pages of each stripe (data pages, then parity); emptied when the stripe breaks.
    stripes: Vec<Vec<u32>>,
}

const NO_STRIPE: u32 = u32::MAX;

impl Parity {
    fn new(g: &ftlab::internals::flash::geometry::Geometry, n_tenants: usize) -> Parity {
        Parity {
            cursors: vec![RoundRobin::new(g.dies_channel_first()); n_tenants],
            open: vec![Vec::new(); n_tenants],
            stripe_pages: (g.n_dies as usize - 1).min(ftlab::internals::policy::STRIPE_PAGES_MAX),
            n_dies: g.n_dies,
            next_parity: 0,
            units_per_page: g.units_per_page,
            stripe_of_page: vec![NO_STRIPE; (g.n_units() / g.units_per_page as u64) as usize],
            stripes: Vec::new(),
        }
    }

    fn page(&self, ppa: Ppa) -> u32 {
        ppa.0 / self.units_per_page
    }

    /// A die holding none of `pages`, rotating.
    fn parity_die(
        &mut self,
        g: &ftlab::internals::flash::geometry::Geometry,
        pages: &[Ppa],
    ) -> Option<DieIdx> {
        let pick = (0..self.n_dies)
            .map(|k| DieIdx((self.next_parity + k) % self.n_dies))
            .find(|&d| pages.iter().all(|&p| g.die_of(p) != d))?;
        self.next_parity = (pick.0 + 1) % self.n_dies;
        Some(pick)
    }
}

impl Scheme for Parity {
    fn name(&self) -> &'static str {
        "test-parity"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, erased: true, ..Interests::NONE }
    }
    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.cursors[tenant as usize].next_die()
    }
    fn on_placed(&mut self, view: &DeviceView, ev: &Placed, cmds: &mut Vec<Command>) {
        let g = view.ftl.geometry;
        // A page is filled when its last unit is placed (units fill a page in order).
        if ev.class != WriteClass::Host || ev.ppa.0 % g.units_per_page != g.units_per_page - 1 {
            return;
        }
        let t = ev.tenant as usize;
        self.open[t].push(ev.ppa);
        if self.open[t].len() < self.stripe_pages {
            return;
        }
        let pages = std::mem::take(&mut self.open[t]);
        if let Some(die) = self.parity_die(&g, &pages) {
            cmds.push(Command::ProgramParity {
                tenant: ev.tenant,
                stream: ev.stream,
                die,
                data: StripePages::new(&pages),
            });
        }
    }
    fn on_erased(&mut self, view: &DeviceView, block: BlockIdx, _cmds: &mut Vec<Command>) {
        let g = view.ftl.geometry;
        // Filled pages not yet covered lose their content: they leave the next stripe.
        for open in &mut self.open {
            open.retain(|&p| g.block_of(p) != block);
        }
        let first = g.ppa(block, 0, 0).0 / self.units_per_page;
        for p in first..first + g.pages_per_block {
            let s = std::mem::replace(&mut self.stripe_of_page[p as usize], NO_STRIPE);
            if s != NO_STRIPE {
                for q in std::mem::take(&mut self.stripes[s as usize]) {
                    self.stripe_of_page[q as usize] = NO_STRIPE;
                }
            }
        }
    }
    fn resolved_config(&self) -> toml::Table {
        toml::Table::new()
    }
    fn stripes(&self) -> Option<&dyn Stripes> {
        Some(self)
    }
    fn stripes_mut(&mut self) -> Option<&mut dyn Stripes> {
        Some(self)
    }
}

impl Stripes for Parity {
    fn on_parity_placed(&mut self, data: &StripePages, parity: Ppa, _view: &DeviceView) {
        let id = self.stripes.len() as u32;
        let mut pages: Vec<u32> = data.as_slice().iter().map(|&p| self.page(p)).collect();
        pages.push(self.page(parity));
        for &p in &pages {
            assert_eq!(self.stripe_of_page[p as usize], NO_STRIPE, "page {p} in two stripes");
            self.stripe_of_page[p as usize] = id;
        }
        self.stripes.push(pages);
    }
    fn read_plan(&self, ppa: Ppa, view: &DeviceView) -> ReadPlan {
        let die = view.ftl.geometry.die_of(ppa);
        let intact = self.stripe_of_page[self.page(ppa) as usize] != NO_STRIPE;
        if intact && (view.is_busy(die) || view.is_collecting(die)) {
            ReadPlan::Rebuild
        } else {
            ReadPlan::Direct
        }
    }
    fn stripe_members(&self, ppa: Ppa, _view: &DeviceView, out: &mut Vec<Ppa>) {
        let own = self.page(ppa);
        let s = self.stripe_of_page[own as usize];
        out.extend(
            self.stripes[s as usize].iter().filter(|&&p| p != own).map(|&p| Ppa(p * self.units_per_page)),
        );
    }
}
