"""scripts/part_ftl_buffer_sweep.py: the sensitivity of the PaRT-FTL reproduction's Table III
claims to part-ftl's write buffer size (`scheme.part-ftl.write_buffer_blocks_per_data_die`),
which is ftlab's choice, not the paper's (docs/schemes/part-ftl.md, "The write buffer's size").

Runs `scenarios/reproduce/part-ftl-quick.toml` (or the full scenario with `--full`) once per
size (default 1, 2, 4, 8 blocks per data die) under `part-ftl`, and once under `wao-gc` (which
has no such buffer, so one run serves every size), judges the Table III claims of
`python/ftlab/reproduce/papers/part_ftl.toml` on each size with the reproduction's own code
(`ftlab.reproduce.part_ftl.table3_measurements`), and writes OUT/buffer-sweep.json and a
table on stdout. Only orchestration: every number comes from the runs and the claim files.

Usage (from the repository's root, in the project's environment):
    python scripts/part_ftl_buffer_sweep.py [--full] [--sizes 1,2,4,8] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import ftlab
from ftlab.reproduce import claimfile, scenario_file
from ftlab.reproduce import part_ftl as P
from ftlab.reproduce.claims import health
from ftlab.reproduce.run_checks import gc_starts, warmup_s

KNOB = "scheme.part-ftl.write_buffer_blocks_per_data_die"
COUNTERS = ("write_buffer_pages", "write_buffer_pages_max", "write_buffer_overflows", "deferred_writes")


def run_one(path: Path, out: Path, schemes: str, blocks: int | None) -> Any:
    sets = [f"schemes={schemes}"] + ([f"{KNOB}={blocks}"] if blocks is not None else [])
    return ftlab.run(path, out=out, set=sets, jobs=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="the full Table III scenario (default: quick)")
    ap.add_argument("--sizes", default="1,2,4,8", help="blocks per data die, comma-separated")
    ap.add_argument("--out", type=Path, default=Path("results/part-ftl-buffer-sweep"))
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    path = scenario_file(P.SCENARIO if args.full else P.QUICK_SCENARIO, "the PaRT-FTL Table III scenario")
    analysis = {"admit_paper": P.rt_analysis(1)["admit_paper"]}
    spec = claimfile.load(P.NAME)
    t0 = time.perf_counter()
    wao = run_one(path, args.out / "wao-gc", '["wao-gc"]', None)
    rows = []
    for blocks in sizes:
        part = run_one(path, args.out / f"part-ftl-{blocks}", '["part-ftl"]', blocks)
        summary = {"schemes": {P.PART: part.summary["schemes"][P.PART], P.WAO: wao.summary["schemes"][P.WAO]}}
        starts = {**gc_starts(part), **gc_starts(wao)}
        measured = P.table3_measurements(summary, starts, warmup_s(part), analysis)
        checks = {"schemes": {}}
        for name, report in ((P.PART, part), (P.WAO, wao)):
            h = health({"schemes": {name: report.summary["schemes"][name]}})["schemes"][name]
            start = starts.get(name)
            h["ok"] = h["ok"] and start is not None and start <= warmup_s(report)
            checks["schemes"][name] = h
        claims = {s.id: claimfile.evaluate_one(s, [claimfile.SeedResult(0, measured, checks)]) for s in spec.claims if s.measure in measured}
        counters = part.summary["schemes"][P.PART].get("scheme_counters") or {}
        rows.append(
            {
                "blocks_per_data_die": blocks,
                "counters": {k: counters.get(k) for k in COUNTERS},
                "tasks": P.tasks(summary)[P.PART],
                "device": {k: part.summary["schemes"][P.PART]["device"].get(k) for k in ("reads_blocked", "read_rebuilt_us_max")},
                "claims": {cid: {"value": c.ftlab_value, "verdict": c.verdict} for cid, c in claims.items()},
            }
        )
        print(f"{blocks} blocks per data die:")
        for cid, c in claims.items():
            if cid in CLAIM_IDS:
                print(f"  {cid:<34} {c.ftlab_value:>12.4g}  {c.verdict}")
        print(f"  buffer high-water {counters.get('write_buffer_pages_max')} of {counters.get('write_buffer_pages')} pages")
        print(f"  {counters.get('write_buffer_overflows')} overflows, {counters.get('deferred_writes')} deferred writes")
    doc = {"scenario": str(path), "knob": KNOB, "wall_s": round(time.perf_counter() - t0, 1), "wao_gc": P.tasks(wao.summary)[P.WAO], "sizes": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "buffer-sweep.json").write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"wrote {args.out / 'buffer-sweep.json'}")
    print(f"({doc['wall_s']} s)")


CLAIM_IDS = ("max_write_latency_ratio", "max_read_latency_ratio", "part_ftl_no_misses", "part_ftl_admission_passes_device", "reads_never_blocked", "eq8_read_bound")

if __name__ == "__main__":
    main()
