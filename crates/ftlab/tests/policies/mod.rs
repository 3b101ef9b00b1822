//! Test-only policies that drive each engine command through the integrity property test
//! (DESIGN §11): a scheme that migrates whole blocks while the host writes, one that runs GC in
//! partial steps of k page reads after every host page, and one that programs parity pages and
//! rebuilds reads of busy dies from stripes. They stripe host pages over every die like
//! `unified`. Not shipped: they exist to prove the engine keeps data through every command.
#![allow(dead_code)]

use ftlab::flash::geometry::{BlockIdx, DieIdx, Ppa};
use ftlab::ftl::blocks::{BlockState, WriteClass};
use ftlab::policy::{Command, DeviceView, Dest, Interests, Migration, Placed};
use ftlab::scenario::Scenario;
use ftlab::scheme::{RoundRobin, Scheme, ReadPlan};
use ftlab::sim::time::SimTime;
use ftlab::simulation::Simulation;

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
        "test-partial-gc" => Some(Box::new(Stepper { cursors: rr(), units: 0, units_per_page: g.units_per_page })),
        "test-parity" => Some(Box::new(Parity { cursors: rr(), units: vec![0; n_tenants], stripe_units: (g.n_dies - 1) * g.units_per_page, n_dies: g.n_dies, next_parity: 0 })),
        _ => None,
    }
}

/// After a run: the policy's command really ran.
pub fn check_exercised(name: &str, sim: &Simulation) {
    let j = sim.job_counters();
    match name {
        "test-migrate" => assert!(j.erases[ftlab::policy::JobKind::Migrate as usize] > 0, "no migration moved a block: {j:?}"),
        "test-partial-gc" => assert!(j.gc_steps > 0 && j.page_reads[ftlab::policy::JobKind::Gc as usize] > 0, "no partial GC ran: {j:?}"),
        "test-parity" => {
            assert!(j.started[ftlab::policy::JobKind::Parity as usize] > 0, "no parity program ran: {j:?}");
            let d = sim.device_counters();
            assert!(d.flash_reads < 1000 || d.rebuilt_reads > 0, "reads of busy dies were never rebuilt: {d:?}");
        }
        _ => {}
    }
}

/// Every epoch (10 ms), migrates up to 2 full blocks of the next die to the other dies, two
/// page reads in flight (a block of 64 pages takes about 2.5 ms to move, so migrations do not
/// pile up).
struct Migrator {
    cursors: Vec<RoundRobin>,
    next_die: u32,
    n_dies: u32,
}

impl Scheme for Migrator {
    fn name(&self) -> &'static str {
        "test-migrate"
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
        let blocks: Vec<BlockIdx> = g.blocks_of_die(die).map(BlockIdx).filter(|&b| view.ftl.blocks().get(b).state == BlockState::Full).take(2).collect();
        let dest = Dest::Dies((0..self.n_dies).map(DieIdx).filter(|&d| d != die).collect());
        cmds.push(Command::Migrate(Migration { blocks, dest, reads_in_flight_max: 2, deadline: SimTime::MAX }));
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

/// A parity page after every (dies - 1) host pages of a tenant, on a rotating die; a host read
/// of a page on a busy or collecting die is rebuilt from the first page of every other die.
struct Parity {
    cursors: Vec<RoundRobin>,
    units: Vec<u64>,
    stripe_units: u32,
    n_dies: u32,
    next_parity: u32,
}

impl Scheme for Parity {
    fn name(&self) -> &'static str {
        "test-parity"
    }
    fn interests(&self) -> Interests {
        Interests { placed: true, ..Interests::NONE }
    }
    fn host_write_die(&mut self, tenant: u16, _stream: u8, _view: &DeviceView) -> DieIdx {
        self.cursors[tenant as usize].next_die()
    }
    fn on_placed(&mut self, _view: &DeviceView, ev: &Placed, cmds: &mut Vec<Command>) {
        if ev.class != WriteClass::Host {
            return;
        }
        let t = ev.tenant as usize;
        self.units[t] += 1;
        if self.units[t].is_multiple_of(self.stripe_units as u64) {
            let die = DieIdx(self.next_parity);
            self.next_parity = (self.next_parity + 1) % self.n_dies;
            cmds.push(Command::ProgramParity { tenant: ev.tenant, stream: ev.stream, die });
        }
    }
    fn read_plan(&self, ppa: Ppa, view: &DeviceView) -> ReadPlan {
        let die = view.ftl.geometry.die_of(ppa);
        if view.is_busy(die) || view.is_collecting(die) {
            ReadPlan::Rebuild
        } else {
            ReadPlan::Direct
        }
    }
    fn stripe_members(&self, ppa: Ppa, view: &DeviceView, out: &mut Vec<Ppa>) {
        let g = view.ftl.geometry;
        let die = g.die_of(ppa);
        for d in (0..self.n_dies).map(DieIdx).filter(|&d| d != die) {
            out.push(g.ppa(BlockIdx(g.blocks_of_die(d).start), 0, 0));
        }
    }
    fn resolved_config(&self) -> toml::Table {
        toml::Table::new()
    }
}
