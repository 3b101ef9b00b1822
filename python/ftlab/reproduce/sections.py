"""ftlab.reproduce.sections: claims.json's declared sections (`[[reproduce.sections]]` of a
paper's claim file), which the driver writes in their declared order after `ftlab_version`,
before the health or, with `after_health = true`, after it.

A section declares its claims.json key (`name`) and exactly one source:

- `of`: a value the paper's code supplies by name (`driver.PaperCode.supplied`: by default the
  tables its declared values read; a paper read run by run supplies its rows by run label,
  `metrics`, and by subject and system, `metrics_by_subject`);
- `value`: a literal TOML value (FlashBlox's software token-bucket factor, 0: none);
- `path`: a directory under the reproduction's output, as a string ("run": the runs');
- `read` of `run`: that run's start of the measured phase ("warmup_s", `run_checks.warmup_s`)
  or each of its schemes' first GC window ("gc_start_s", `run_checks.gc_starts`);
- `reads`: a read table of the claim file (`[[reproduce.read_tables]]`, `reads.read_table`)
  by name, read from the documents: each run's summary.json by its label, and the values the
  paper's code supplies by theirs.

It reads what the runs and the paper's code supplied; it computes no measure, composes no
block and runs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ftlab._errors import input_error, usage_error
from ftlab.reproduce.decl import Fields, distinct, keys_of, table, tables
from ftlab.reproduce.reads import Documents, ReadDecl, ReadTableDecl, read_table
from ftlab.reproduce.run_checks import gc_starts, warmup_s

if TYPE_CHECKING:
    from ftlab.report import Report

#: What `read` may name: a run's measured-phase start and its schemes' first GC windows.
READS = ("warmup_s", "gc_start_s")


@dataclass(frozen=True)
class SectionDecl:
    """One `[[reproduce.sections]]` table (see the module docstring)."""

    name: str
    of: str = ""
    value: object = None
    path: str = ""
    read: str = ""
    run: str = ""
    after_health: bool = False
    #: With `reads`, the read table it names (set on load).
    reads: str = ""
    table: ReadTableDecl | None = None

    def resolve(self, supplied: Mapping[str, object], reports: Mapping[str, Report], out: Path) -> object:
        """The section's value: the supplied value, the output's directory, the run's read or
        the literal. A name the paper's code does not supply is an `ftlab.UsageError`."""
        if self.of:
            if self.of not in supplied:
                where = f"claims.json section {self.name}"
                raise usage_error(where, f"the paper's code supplies no {self.of!r}")
            return supplied[self.of]
        if self.path:
            return str(out / self.path)
        if self.read == "warmup_s":
            return warmup_s(reports[self.run])
        if self.read == "gc_start_s":
            return gc_starts(reports[self.run])
        if self.table is not None:
            return read_table(self.table, documents(supplied, reports))
        return self.value


def documents(supplied: Mapping[str, object], reports: Mapping[str, Report]) -> Documents:
    """What a section's reads read: the values the paper's code supplies and each run's
    summary.json by its label (a run label wins over a supplied name)."""
    return {**supplied, **{label: r.summary for label, r in reports.items()}}


def write(
    decls: Sequence[SectionDecl],
    after_health: bool,
    supplied: Mapping[str, object],
    reports: Mapping[str, Report],
    out: Path,
) -> dict[str, object]:
    """The declared sections before the health (or, with `after_health`, after it), in the
    declared order, by name."""
    return {d.name: d.resolve(supplied, reports, out) for d in decls if d.after_health == after_health}


def load_sections(
    where: str,
    raw: object,
    labels: Sequence[str],
    reads: Sequence[ReadDecl] = (),
    read_tables: Sequence[ReadTableDecl] = (),
) -> tuple[SectionDecl, ...]:
    """`[[reproduce.sections]]` of the claim file `where` names (run labels `labels`, its
    reads and read tables); a bad table is an `ftlab.InputError` naming the key."""
    found = tables(where, "reproduce.sections", raw, lambda w, i, t: _section(w, i, t, read_tables))
    distinct(where, "reproduce.sections: duplicate names", [s.name for s in found])
    for s in found:
        if s.run and s.run not in labels:
            raise input_error(where, f"reproduce.sections ({s.name}): run {s.run} is no run label")
    return found


def _section(where: str, i: int, raw: object, read_tables: Sequence[ReadTableDecl]) -> SectionDecl:
    label = f"reproduce.sections[{i}]"
    f = Fields(where, label, table(where, label, raw, keys_of(SectionDecl) - {"table"}))
    of, path, read, run, reads = (f.text(k, "") for k in ("of", "path", "read", "run", "reads"))
    if sum((bool(of), bool(path), bool(read), bool(reads), "value" in f.raw)) != 1:
        f.bad("needs exactly one of `of`, `value`, `path`, `read` and `reads`")
    if bool(read) != bool(run):
        f.bad("`run` goes with `read`, and it with it")
    if read and read not in READS:
        f.bad(f"read {read!r} is not one of {', '.join(READS)}")
    named = next((t for t in read_tables if t.name == reads), None)
    if reads and named is None:
        f.bad(f"reads {reads!r} is no [[reproduce.read_tables]] name")
    decl = SectionDecl(f.text("name"), of, f.raw.get("value"), path, read, run, f.flag("after_health"))
    return replace(decl, reads=reads, table=named)
