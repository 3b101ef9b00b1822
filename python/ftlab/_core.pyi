"""Type stub of ftlab._core, the PyO3 extension built from crates/ftlab-py.

It describes the private binding layer only; the public API is `ftlab` (run, load, Report).
"""

from collections.abc import Callable
from os import PathLike
from typing import TypedDict, final

class FtlabError(ValueError):
    """Base class of every error ftlab reports about its input (scenario, trace, arguments)
    or about a run it could not finish.

    The message (str(e)) names the file and line, or the key, and what was expected.
    Attributes not relevant to the error's kind are None. The classes mirror the core's
    errors (crates/ftlab/src/error.rs): one per operation (`RunError`, `TraceError`,
    `CaptureError`, `RtError`, `LifetimeError`) beside the scenario's (`ConfigError`), the
    files' (`InputError`) and the arguments' (`UsageError`).
    """

    reason: str | None
    file: str | None
    line: int | None
    column: int | None
    key: str | None
    path: str | None
    arg: str | None
    override: str | None

class ConfigError(FtlabError):
    """A scenario is invalid: bad TOML (`file`, `line`, `column`), or a bad value (`file`,
    `key`; `line` and `column` where the key was written, `override` if a `--set` set it)."""

class TraceError(FtlabError):
    """A trace line is malformed or out of range (`file`, `line`). `kind` names what is wrong
    (`bad_field`, `negative`, `too_large`, `out_of_range`, `not_allowed`, `not_a`,
    `field_count`, `missing_header`, `unsupported_version`, `zero_size`, `address_overflow`,
    `scale_overflow`, `clock_overflow`, `wait_overflow`, `action_arity`, `action_not_allowed`,
    `header_column`, `header_column_count`, `header_block`, `not_utf8`, `line_too_long`,
    `read`, and the host's `arrival_past_limit`, `outside_namespace`, `larger_than_namespace`);
    `field` and `field_index` the column (1-based), `found` the text or value found and
    `expected` what was expected or the range, where the kind has them."""

    kind: str | None
    field: str | None
    field_index: int | None
    found: str | None
    expected: str | None

class CaptureError(TraceError):
    """A line of `ftlab capture`'s inputs cannot be converted (`file`, `line`): `input` is
    "strace" or "log", `kind` what is wrong (`malformed`, `time`, `bad_argument`,
    `too_few_arguments`, `relative_path`, `fd_without_path`, `offset_overflow`,
    `file_system_full`, `event_json`, `event_field`, ...), `call` the syscall where there is
    one. Capture's settings are `ConfigError`s (`key`)."""

    input: str | None
    call: str | None

class InputError(FtlabError):
    """A file could not be opened or read (`path`)."""

class LifetimeError(InputError):
    """An input of `ftlab lifetime` is malformed (`file` = `path`, `line`, `column`) or lacks
    a value the model needs (`file`, `key`)."""

class UsageError(FtlabError):
    """An argument is wrong (`arg`)."""

class RtError(ConfigError):
    """A task file of `ftlab rt admit` is invalid: not TOML (`file`, `line`, `column`;
    `problem` "syntax"), or a bad task value (`file`, `key`; `problem` "schema", "count",
    "no_pages", "period_without_pages", "period_missing" or "period_out_of_range")."""

    problem: str | None

class RunError(FtlabError):
    """A valid scenario's run failed: the device ran out of space (`OutOfSpaceError`) or the
    run stopped progressing (`NoProgressError`). Never raised itself."""

class OutOfSpaceError(RunError):
    """The device of scenario `file` ran out of space. `stage` is "precondition" (a tenant's
    data found no room while filling or warming the device; `at_s` is None) or "run" (at
    simulated time `at_s` the `waiting` tenants' writes waited for free blocks GC could not
    reclaim, a job's copy of a `waiting` tenant's data found no free block on the die it
    goes to, or GC and wear leveling erased `erases` blocks, more than the device's
    `n_blocks`, while no request progressed; `erases` is 0 for the other kinds). Not a
    ConfigError: the scenario passed validation."""

    stage: str
    at_s: float | None
    waiting: list[str]
    erases: int
    n_blocks: int

class NoProgressError(RunError):
    """The progress watchdog of scenario `file`'s run fired: from simulated time `from_s` to
    `at_s` the `waiting` tenants had requests outstanding and in `events` events (the bound,
    `bound`) none completed and no host unit was placed, while the jobs erased `erases` blocks. Not
    a ConfigError (the scenario passed validation), nor an OutOfSpaceError (the device need
    not be full)."""

    from_s: float
    at_s: float
    waiting: list[str]
    events: int
    bound: int
    erases: int

@final
class ArrowTable:
    """One table of `run`'s result in Arrow memory (built by crates/ftlab-py/src/arrow.rs).

    Columns: Utf8 (string), Float64 or UInt64, no nulls (NaN where a scheme lacks a column).
    It implements the Arrow PyCapsule interface, so `polars.DataFrame(t)` and
    `pyarrow.table(t)` import it without per-value Python work (numeric buffers are shared,
    not copied). It cannot be pickled: import it into polars or pyarrow first.
    """

    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def __arrow_c_schema__(self) -> object:
        """An `arrow_schema` PyCapsule: the table's columns as a struct."""
    def __arrow_c_array__(self, requested_schema: object = None) -> tuple[object, object]:
        """`(arrow_schema, arrow_array)` PyCapsules: the table as one struct array
        (`requested_schema` is ignored)."""
    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """An `arrow_array_stream` PyCapsule of one record batch (`requested_schema` is
        ignored)."""

class RunResult(TypedDict):
    summary_json: str
    resolved_toml: str
    # One row per scheme, tenant and window: scheme, tenant, window_start_s, ... (Float64),
    # then the columns a scheme adds (NaN in other schemes' rows).
    timeseries: ArrowTable
    # One row per scheme, tenant, op ("read" | "write" | "trim") and histogram bucket:
    # scheme, tenant, op, latency_us, cdf.
    latency_cdf: ArrowTable
    # One row per scheme and block: scheme, channel, die, block, erase_count,
    # erase_count_precondition (UInt64).
    wear: ArrowTable

class TraceStats(TypedDict):
    requests: int
    reads: int
    writes: int
    trims: int
    bytes: int
    duration_s: float
    footprint_pages: int
    lba_min_bytes: int
    lba_max_bytes: int
    skipped: int

class BenchResult(TypedDict):
    case: str
    requests: int
    wall_s: float
    requests_per_s: float
    precondition_wall_s: float
    bytes_per_mapping_unit: float | None
    #: Thread CPU seconds of the timed run (of preconditioning for the `precondition` cases;
    #: None for `memory-1tb`, or where the platform has no thread clock).
    cpu_s: float | None
    precondition_cpu_s: float | None

class RtSeries(TypedDict):
    """One series of the schedulability experiment (Figures 5-7)."""

    key: str
    label: str

class SchemeEntry(TypedDict):
    """What a scheme's registry entry brings (`scheme::Capabilities`)."""

    name: str
    #: The scheme's name in figures and tables.
    label: str
    #: It has a real-time analysis (`ftlab rt admit`, Figures 5-7, Table IV).
    admission: bool
    #: Its analysis refuses task sets that fail it (False: it admits every set).
    admission_control: bool
    #: Its series of Figures 5-7, in order (empty without an analysis).
    rt_series: list[RtSeries]
    #: It gives the fast-forward lifetime model its channel swaps (`ftlab lifetime`).
    lifetime_model: bool
    #: The warm-up by workload cannot run it (`precondition.mode = "fill"` is its default).
    timed_only: bool

#: Every registered scheme and its capabilities, in registry order.
SCHEMES: list[SchemeEntry]
#: The schemes with a real-time analysis: those with admission control first, then those
#: whose test is information only (the order of `ftlab rt admit`'s list and of Figures 5-7).
RT_SCHEMES: list[str]
BENCH_CASES: list[str]
BENCH_TIMED_CASES: list[str]
TRACE_FORMATS: list[str]
# The time-series columns every scheme has, in table order (`crates/ftlab/src/metrics/
# timeseries.rs`, `base_columns`): scheme, tenant, window_start_s, the metrics, backlog; a
# scheme's extra columns come between the metrics and backlog.
TIMESERIES_COLUMNS: list[str]
# The per-window device columns (equal in every tenant's row of a window).
TIMESERIES_DEVICE_COLUMNS: list[str]

def run(
    source_path: str | PathLike[str] | None = None,
    text: str | None = None,
    base_dir: str | PathLike[str] | None = None,
    name: str | None = None,
    seed: int | None = None,
    overrides: list[str] = ...,
    progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> RunResult:
    """Run every scheme of a scenario (file, TOML text, or the bundled default if neither)
    with the GIL released, up to `jobs` schemes at once (None: the machine's cores; the results
    do not depend on it; 0 raises UsageError); `progress(done, total)` is called with the GIL
    held. The tables come back as `ArrowTable`s, the summary and resolved scenario as text."""

def resolve(
    source_path: str | PathLike[str] | None = None,
    text: str | None = None,
    base_dir: str | PathLike[str] | None = None,
    name: str | None = None,
    seed: int | None = None,
    overrides: list[str] = ...,
) -> str:
    """The scenario as `run` would simulate it (overrides and seed applied, every default
    filled in, trace paths absolute), as TOML text, without running it: equal to the
    `resolved_toml` that `run` returns for the same arguments. Reads no trace file."""

def trace_stats(path: str | PathLike[str], format: str) -> TraceStats: ...
def bench_case(case: str, requests: int | None = None, overrides: list[str] = ...) -> BenchResult: ...
def capture(
    strace_path: str | PathLike[str],
    log_path: str | PathLike[str],
    out_path: str | PathLike[str],
    root: str,
    device_bytes: int,
    fs_metadata: bool = True,
    rules: list[str] | None = None,
    dirty_limit_bytes: int | None = None,
    journal_bytes: int | None = None,
) -> str:
    """Convert an strace log and RocksDB's info LOG into an ftlab-csv trace at `out_path`
    (docs/capture.md), with the GIL released. `rules`: `PATTERN=STREAM` or
    `PATTERN=STREAM+level` (None: the RocksDB rules; a bad rule raises UsageError). Returns the
    converter's summary as JSON text (records, per-stream counts, every count of what was not
    modelled). A bad strace or LOG line raises CaptureError (a TraceError: file, line,
    input, kind, call); a bad setting ConfigError (key)."""

def default_scenario_toml() -> str: ...
def rt_admit(text: str, file: str, scheme: str) -> str:
    """`ftlab rt admit`: the admission test of `scheme` on a task file's `text` (named `file`
    in errors), as JSON text. An invalid task file raises RtError (a ConfigError: file, key
    or line, problem); an unknown scheme UsageError (arg `--scheme`)."""

def rt_bounds() -> str:
    """Table IV of the PaRT-FTL paper computed from each analysis' equations, as JSON text:
    `bandwidths` (quantity, equation, pages_per_s, mb_per_s, mib_per_s, paper), `latencies`
    (quantity, equation, ms, paper) and `space` (quantity, equation, value, paper)."""

def rt_schedulability(n_sets: int, seed: int, read_share: float) -> str:
    """Figures 5-7 of the PaRT-FTL paper (§VI-A), computed with the GIL released, as JSON
    text: `schemes` (the series' keys, `RT_SCHEMES`' series in order), `parameters`, `rows`
    (figure, read_pages, write_pages, scheme,
    utilisation, n_schedulable, n_sets, fraction) and `weighted` (figure, read_pages,
    write_pages, scheme, weighted). `n_sets` out of 1..=1000000 or `read_share` out of [0, 1]
    raises UsageError (arg `--sets` or `--read-share`)."""

def lifetime(summary: str, resolved_toml: str, scheme: str, horizon_s: float) -> str:
    """`ftlab lifetime`: the fast-forward lifetime model (docs/lifetime.md) of `scheme` in a
    run's summary.json and scenario.resolved.toml texts, to the first wear-out or `horizon_s`,
    with and without channel swaps (a scheme with `lifetime_model` in `SCHEMES` gives its
    swaps; any other, per-channel rates and none), as JSON text. A malformed input, or a run
    without lifetime keys or the scheme, raises LifetimeError (an InputError: file, key or
    line); a bad horizon UsageError (arg `--horizon-days`)."""

def swap_rounds(n: int, x: float) -> tuple[float, int | None]:
    """The slides' swap bound for `n` channels and imbalance target 1 + `x`: K ≥ (N − 1 −
    x)/(N·x) unrounded, and the least whole K meeting it (None for x ≤ 0)."""

def policies() -> str:
    """Every registered scheme and stream mapper, as JSON text `{"schemes": [...], "mappers":
    [...]}`; each policy has `name`, `summary` and `knobs`, each knob `key`, `unit`, `kind`,
    `default` (the config's serde default; null for an optional knob left out, `absent` says
    what that means), `range` (the static range the validation enforces, then the device's
    bounds), `doc`, and `fields` (the knobs of each table of a `tables` knob). The same tables
    the validation checks (`knobs::check_all`)."""

def version() -> str: ...
