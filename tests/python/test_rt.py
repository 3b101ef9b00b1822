"""`ftlab rt`: admission and bounds on the command line (the arithmetic is tested in
crates/ftlab/tests/rt.rs; here, that the CLI shows it, exits right and reports bad input)."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

TABLE_III = "".join(
    [f'[[tasks]]\nname = "r{i}"\nread_pages = 3\nread_period_ms = 15.0\n' for i in range(4)]
    + [f'[[tasks]]\nname = "w{i}"\nwrite_pages = 12\nwrite_period_ms = 60.0\n' for i in range(4)]
)


def test_admit_prints_every_term_and_exits_by_verdict(tmp_path: Path) -> None:
    small = tmp_path / "small.toml"
    small.write_text('[[tasks]]\nread_pages = 1\nread_period_ms = 100.0\n[[tasks]]\nwrite_pages = 4\nwrite_period_ms = 1000.0\n')
    ok = run_cli(["rt", "admit", str(small)])
    assert ok.returncode == 0, ok.stderr
    for fragment in ["Eq. 6", "Eq. 7", "t_r / min(T^r)", "C_0^r / T_0^r", "C_1^g / T_1^g", "admitted"]:
        assert fragment in ok.stdout, fragment
    # The paper's Table III set: Eq. 6 sums to 1.066 (see docs/rt.md).
    table_iii = tmp_path / "table3.toml"
    table_iii.write_text(TABLE_III)
    rejected = run_cli(["rt", "admit", str(table_iii), "--scheme", "part-ftl"])
    assert rejected.returncode == 1
    assert "1.066000" in rejected.stdout and "FAILS" in rejected.stdout and "rejected" in rejected.stdout
    # WAO-GC admits anything, and says why.
    wao = run_cli(["rt", "admit", str(table_iii), "--scheme", "wao-gc"])
    assert wao.returncode == 0 and "no admission control" in wao.stdout


def test_admit_reports_bad_input_with_file_and_line_or_key(tmp_path: Path) -> None:
    bad_value = tmp_path / "v.toml"
    bad_value.write_text("[[tasks]]\nread_pages = 3\nread_period_ms = -1.0\n")
    r = run_cli(["rt", "admit", str(bad_value)])
    assert r.returncode == 2 and f"{bad_value}: tasks.0.read_period_ms: must be in (0, 10000000000] ms, got -1" in r.stderr
    bad_syntax = tmp_path / "s.toml"
    bad_syntax.write_text("[[tasks]]\nread_pages = 3\nread_period_ms = \n")
    r = run_cli(["rt", "admit", str(bad_syntax)])
    assert r.returncode == 2 and f"{bad_syntax}:3:" in r.stderr
    r = run_cli(["rt", "admit", str(bad_value), "--scheme", "rtgc"])
    assert r.returncode == 2 and "not implemented" in r.stderr
    r = run_cli(["rt", "admit", str(tmp_path / "missing.toml")])
    assert r.returncode == 2 and "missing.toml" in r.stderr


def test_bounds_show_table_iv_with_both_readings() -> None:
    r = run_cli(["rt", "bounds"])
    assert r.returncode == 0, r.stderr
    # Eq. 9 printed 5.51 MB/s and read as reported 7.34 MB/s; Eq. 10 76.22 MiB/s; Eq. 15 and
    # 16 15.49 and 13.44 MiB/s; Eq. 12 0.6641 (worked out in crates/ftlab/tests/rt.rs).
    for fragment in ["5.51", "7.34", "76.22", "15.49", "13.44", "0.6641", "8.070", "9.300"]:
        assert fragment in r.stdout, fragment
