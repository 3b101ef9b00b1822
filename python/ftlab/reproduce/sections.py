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
- `read_table`: a read table of the claim file (`[[reproduce.read_tables]]`, `reads.read_table`)
  by name, read from the documents: each run's summary.json by its label, and the values the
  paper's code supplies by theirs;
- `block`: a value composed of the documents' values (`Block`): a leaf, or a table whose
  entries are blocks, in their declared order. A leaf is a table of exactly these keys:
  `{ read = NAME }`, a declared read (`[reproduce] reads`, `reads.ReadDecl`); `{ source =
  DOC, path = KEYS }`, the value at dotted `path` of a document as it is (None where absent:
  `keypath.walk_one`); or `{ value = V }`, a literal (so a table of blocks holds no key
  `read`, `source`, `path` or `value`).

It reads what the runs and the paper's code supplied; it computes no measure and runs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ftlab._errors import input_error, usage_error
from ftlab.reproduce.decl import Fields, distinct, keys_of, table, tables
from ftlab.reproduce.keypath import walk_one
from ftlab.reproduce.reads import Documents, ReadDecl, ReadTableDecl, read_table
from ftlab.reproduce.run_checks import gc_starts, warmup_s

if TYPE_CHECKING:
    from ftlab.report import Report

#: What `read` may name: a run's measured-phase start and its schemes' first GC windows.
READS = ("warmup_s", "gc_start_s")


@dataclass(frozen=True)
class At:
    """A block's leaf `{ source, path }`: the value at `path` of document `source`, as it is."""

    source: str
    path: str


@dataclass(frozen=True)
class Literal:
    """A block's leaf `{ value }`."""

    value: object


#: A declared block (see the module docstring): a leaf, or its entries by claims.json key.
Block = ReadDecl | At | Literal | Mapping[str, "Block"]


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
    #: With `read_table`, the read table it names (set on load).
    read_table: str = ""
    table: ReadTableDecl | None = None
    #: With `block`, its parsed block (set on load).
    block: Block | None = None

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
        if self.block is not None:
            return compose(self.block, documents(supplied, reports), self.name)
        return self.value


def compose(block: Block, docs: Documents, name: str) -> object:
    """The value of a declared block (see the module docstring) of the documents `docs`; a
    document they lack is an `ftlab.UsageError` naming the section `name`."""
    if isinstance(block, ReadDecl):
        return block.read(docs)
    if isinstance(block, At):
        if block.source not in docs:
            raise usage_error(f"claims.json section {name}", f"no document {block.source!r} is supplied")
        return walk_one(docs[block.source], block.path)
    if isinstance(block, Literal):
        return block.value
    return {key: compose(entry, docs, name) for key, entry in block.items()}


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
    found = tables(where, "reproduce.sections", raw, lambda w, i, t: _section(w, i, t, read_tables, reads))
    distinct(where, "reproduce.sections: duplicate names", [s.name for s in found])
    for s in found:
        if s.run and s.run not in labels:
            raise input_error(where, f"reproduce.sections ({s.name}): run {s.run} is no run label")
    return found


def _section(
    where: str, i: int, raw: object, read_tables: Sequence[ReadTableDecl], declared: Sequence[ReadDecl]
) -> SectionDecl:
    label = f"reproduce.sections[{i}]"
    f = Fields(where, label, table(where, label, raw, keys_of(SectionDecl) - {"table"}))
    of, path, read, run, named = (f.text(k, "") for k in ("of", "path", "read", "run", "read_table"))
    if sum((bool(of), bool(path), bool(read), bool(named), "value" in f.raw, "block" in f.raw)) != 1:
        f.bad("needs exactly one of `of`, `value`, `path`, `read`, `read_table` and `block`")
    if bool(read) != bool(run):
        f.bad("`run` goes with `read`, and it with it")
    if read and read not in READS:
        f.bad(f"read {read!r} is not one of {', '.join(READS)}")
    found = next((t for t in read_tables if t.name == named), None)
    if named and found is None:
        f.bad(f"read_table {named!r} is no [[reproduce.read_tables]] name")
    decl = SectionDecl(f.text("name"), of, f.raw.get("value"), path, read, run, f.flag("after_health"))
    block = _block(f, "block", f.raw["block"], declared) if "block" in f.raw else None
    return replace(decl, read_table=named, table=found, block=block)


def _block(f: Fields, at: str, raw: object, declared: Sequence[ReadDecl]) -> Block:
    """The block `raw` at key path `at` of section `f`; a bad one is an `ftlab.InputError`."""
    if not isinstance(raw, Mapping) or not raw:
        f.bad(f"{at} must be a leaf ({{ read }}, {{ source, path }}, {{ value }}) or a table of blocks")
    keys = set(raw)
    if keys == {"value"}:
        return Literal(raw["value"])
    if keys == {"read"}:
        found = next((r for r in declared if r.name == raw["read"]), None)
        if found is None:
            f.bad(f"{at}: read {raw['read']!r} is no declared read ([reproduce] reads)")
        return found
    if keys == {"source", "path"}:
        source, path = raw["source"], raw["path"]
        if not isinstance(source, str) or not source or not isinstance(path, str) or not path:
            f.bad(f"{at}: `source` and `path` must be non-empty strings")
        return At(source, path)
    if keys & {"read", "source", "path", "value"}:
        f.bad(f"{at}: a leaf is exactly {{ read }}, {{ source, path }} or {{ value }}")
    return {str(k): _block(f, f"{at}.{k}", v, declared) for k, v in raw.items()}
