"""The HTML report in a real headless Chromium (selenium + the Debian chromedriver), loaded
once per module from file://: no console errors, no network request, every chart drawn with
the number of traces the Report's data call for (counted here from the tables, not from the
report code), working CDF tail axes and wear dropdown, the headline table (its shown text and data
attributes) and the grouped bars (their traces' y values) equal to the numbers of the run's
summary.json, read and formatted here independently of the report code, the headline first
and the full table folded, the summary table and resolved scenario as in the Report, and a
screenshot kept in test-artifacts/. The page is the
report.html of a real run (default scenario, three tenants, unified and partitioned) plus
scheme-specific columns added for one scheme, so the registry's charts are drawn too.

Chromium missing is a failure (scripts/test.sh installs it with `scripts/setup-system.sh test`), not a skip.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import polars as pl
import pytest

import ftlab
from conftest import REPO_ROOT
from ftlab.report import Report
from ftlab.results import Summary, TenantSummary, summary_from_json
from reports import Parsed, default_scenario

if TYPE_CHECKING:
    from selenium.webdriver import Chrome

#: What the page's scripts hand back through WebDriver: JSON decoded, untyped.
JsonObject = Parsed

ARTIFACTS = REPO_ROOT / "test-artifacts"
CHROMIUM = ("/usr/bin/chromium", "chromium", "chromium-browser")
CHROMEDRIVER = ("/usr/bin/chromedriver", "chromedriver")


def _find(candidates: tuple[str, ...]) -> str | None:
    for name in candidates:
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run written by ftlab.run, then the same Report with two extra columns for
    partitioned (UPI's allocation-set columns) and one unknown column for both schemes,
    written with report.html."""
    run_dir = tmp_path_factory.mktemp("run")
    report = ftlab.run(default_scenario(duration_s=8.0, window_s=0.1), seed=5, out=run_dir)
    assert (run_dir / "report.html").read_text(encoding="utf-8") == report.to_html()
    ts = report.timeseries
    partitioned = pl.col("scheme") == "partitioned"
    ts = ts.with_columns(
        pl.when(partitioned)
        .then(pl.col("window_start_s") % 4 + 1)
        .otherwise(float("nan"))
        .alias("alloc_set_dies"),
        pl.when(partitioned)
        .then(pl.col("write_iops") * 2)
        .otherwise(float("nan"))
        .alias("pages_outside_set"),
        (pl.col("read_iops") / 10).alias("mystery_gauge"),
    )
    extended = ftlab.Report(report.summary_json, report.resolved_toml, ts, report.latency_cdf, report.wear)
    out = tmp_path_factory.mktemp("extended")
    extended.write(out, html=True)
    return out


@pytest.fixture(scope="module")
def browser(report_dir: Path) -> Iterator[Chrome]:
    """One headless Chromium with report.html loaded; yields the driver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    chromium, driver_path = _find(CHROMIUM), _find(CHROMEDRIVER)
    if not chromium or not driver_path:
        pytest.fail(
            "chromium and chromedriver are needed for the report test; run "
            "`scripts/setup-system.sh test` to install them"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get((report_dir / "report.html").as_uri())
        expected = driver.execute_script("return document.querySelectorAll('.plotly-graph-div').length")
        WebDriverWait(driver, 60).until(
            lambda d: (
                d.execute_script("return document.querySelectorAll('.js-plotly-plot').length") == expected
            )
        )
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def report(report_dir: Path) -> Report:
    return ftlab.load(report_dir)


def charts(driver: Chrome) -> dict[str, int]:
    counts: dict[str, int] = driver.execute_script(
        "const out = {}; document.querySelectorAll('.js-plotly-plot').forEach(e => { "
        "out[e.id] = e.data.length; }); return out;"
    )
    return counts


def expected_charts(report: ftlab.Report) -> dict[str, int]:
    """Chart id -> trace count, from the Report's tables (the layout the report promises:
    CDF and tail per (scheme, tenant) with data; two lines per (scheme, tenant) in each
    per-tenant time series, one in the backlog series; three device panels per scheme; one per-die heatmap and
    one
    per-block heatmap per scheme; per scheme with extra columns, the allocation-set figure
    (two panels per tenant) or one line per tenant for an unknown column)."""
    out: dict[str, int] = {}
    cdf = report.latency_cdf
    assert cdf is not None and report.wear is not None
    for op in cdf.get_column("op").unique().to_list():
        pairs = cdf.filter(op=op).select("scheme", "tenant").unique().height
        out[f"fig-cdf-{op}"] = 2 * pairs
    ts = report.timeseries
    pairs = ts.select("scheme", "tenant").unique().height
    n_schemes = ts.get_column("scheme").n_unique()
    n_tenants = ts.get_column("tenant").n_unique()
    for name in ("read-latency", "write-latency", "iops"):
        out[f"fig-ts-{name}"] = 2 * pairs
    out["fig-ts-backlog"] = pairs
    out["fig-ts-device"] = 3 * n_schemes
    out["fig-wear"] = 1 + report.wear.get_column("scheme").n_unique()
    bar_op: Literal["read", "write"]
    for bar_op in ("read", "write"):
        if any(
            t[bar_op]["count"] > 0 for d in report.summary["schemes"].values() for t in d["tenants"].values()
        ):
            # Mean and p99 panels, one bar trace per scheme.
            out[f"fig-bars-{bar_op}"] = 2 * len(report.schemes)
    for i, scheme in enumerate(report.schemes):
        rows = ts.filter(scheme=scheme)
        if rows.get_column("alloc_set_dies").fill_nan(None).null_count() < rows.height:
            out[f"fig-series-{i}-alloc-set"] = 2 * n_tenants
        out[f"fig-series-{i}-col-mystery_gauge"] = n_tenants
    return out


def browser_log(driver: Chrome, kind: str) -> list[JsonObject]:
    """The browser's log of `kind` (JSON decoded by WebDriver)."""
    # selenium leaves get_log unannotated.
    entries: list[JsonObject] = driver.get_log(kind)  # type: ignore[no-untyped-call]
    return entries


def test_no_console_errors(browser: Chrome) -> None:
    entries = browser_log(browser, "browser")
    assert [e for e in entries if e["level"] in ("SEVERE", "WARNING")] == []


def test_no_network_requests(browser: Chrome, report_dir: Path) -> None:
    urls = []
    for entry in browser_log(browser, "performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    assert urls, "the performance log saw the page load"
    assert [u for u in urls if not u.startswith(("file:", "data:", "about:", "blob:"))] == []
    page = (report_dir / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)\s*=\s*[\"']?(https?:)?//", page, re.I)


def test_every_chart_has_its_traces(browser: Chrome, report: Report) -> None:
    assert charts(browser) == expected_charts(report)


def test_cdf_traces_are_schemes_with_log_tail_axes(browser: Chrome, report: Report) -> None:
    info = browser.execute_script(
        "const gd = document.getElementById('fig-cdf-read');"
        "const axes = Object.keys(gd._fullLayout).filter(k => "
        "k.startsWith('yaxis')).map(k => gd._fullLayout[k]);"
        "return {names: gd.data.map(t => t.name), xtypes: "
        "Object.keys(gd._fullLayout).filter(k => k.startsWith('xaxis')).map(k => "
        "gd._fullLayout[k].type),"
        " logy: axes.filter(a => a.type === 'log').map(a => a.range[0]),"
        " monotone: gd.data.every(t => t.x.every((v, i) => i === 0 || v >= t.x[i - 1]))};"
    )
    assert set(info["names"]) == set(report.schemes)
    assert set(info["xtypes"]) == {"log"}
    assert report.latency_cdf is not None
    n_tenants = report.latency_cdf.filter(op="read").get_column("tenant").n_unique()
    assert len(info["logy"]) == n_tenants and all(r == pytest.approx(-4) for r in info["logy"])
    assert info["monotone"]


def test_wear_dropdown_shows_blocks_of_one_scheme(browser: Chrome, report: Report) -> None:
    last = len(report.schemes)
    shape = browser.execute_script(
        "const gd = document.getElementById('fig-wear'); const b = "
        "gd.layout.updatemenus[0].buttons[arguments[0]];"
        "return Plotly.update(gd, b.args[0], b.args[1]).then(() => {"
        " const shown = gd.data.map((t, i) => [t.visible, i]).filter(p => p[0] !== false).map(p => p[1]);"
        " return {shown: shown, rows: gd.data[shown[0]].z.length, cols: gd.data[shown[0]].z[0].length}; });",
        last,
    )
    assert report.wear is not None
    wear = report.wear.filter(scheme=report.schemes[last - 1])
    assert shape == {
        "shown": [last],
        "rows": wear.get_column("die").n_unique(),
        "cols": wear.get_column("block").n_unique(),
    }


def test_summary_table_shows_the_summary(browser: Chrome, report: Report) -> None:
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('#summary-tenants tbody tr')).map("
        "tr => Array.from(tr.children).map(c => c.textContent));"
    )
    rows = {r[0]: r[1:] for r in cells}
    tenants = report.tenants
    order = [(t, s) for t in tenants for s in report.schemes if t in report.summary["schemes"][s]["tenants"]]
    shown = [float(v.replace(",", "")) for v in rows["read_p99_us"]]
    want = [report.summary["schemes"][s]["tenants"][t]["read"]["p99_us"] for t, s in order]
    assert shown == pytest.approx(want, rel=1e-3)


# --------------------------------------------------------------------------------------
# The headline and the bars, against summary.json


def _summary_json(report_dir: Path) -> Summary:
    return summary_from_json((report_dir / "summary.json").read_text(encoding="utf-8"))


#: Headline metric key -> how to read it from a tenant of summary.json (written here, not
#: taken from ftlab.report.headline).
HEADLINE_VALUES: dict[str, Callable[[TenantSummary], float | None]] = {
    "read_p99": lambda t: t["read"]["p99_us"],
    "read_mean": lambda t: t["read"]["mean_us"],
    "write_p99": lambda t: t["write"]["p99_us"],
    "waf": lambda t: t["waf"],
    "lifetime": lambda t: t["wear"]["lifetime_days"],
    "iops": lambda t: t["read"]["iops"] + t["write"]["iops"] + t["trim"]["iops"],
}


def _shown(value: float, metric: str = "") -> str:
    """How a value is shown: three significant digits below 100, thousands separators above;
    a lifetime in days ("d"), or in years ("y") from 365.25 days on."""
    unit = ""
    if metric == "lifetime":
        value, unit = (value / 365.25, " y") if value >= 365.25 else (value, " d")
    if abs(value) >= 100:
        return f"{value:,.0f}{unit}"
    return (f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}") + unit


#: The declared noise of the headline's best mark, in percent, and the fewest requests a
#: ranked value comes from (docs/python.md, "The headline").
NOISE_PCT = 5.0
SAMPLES_MIN = 100
#: Metric -> the operation whose request count is its sample count (none: not from samples).
SAMPLED_OP: dict[str, Literal["read", "write"]] = {
    "read_p99": "read",
    "read_mean": "read",
    "write_p99": "write",
    "waf": "write",
    "lifetime": "write",
}


def _headline_cells(driver: Chrome) -> list[JsonObject]:
    cells: list[JsonObject] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#headline-table td.hl-cell')).map(td => ({"
        " tenant: td.parentElement.dataset.tenant, scheme: "
        "td.parentElement.dataset.scheme, metric: td.dataset.metric,"
        " value: td.dataset.value, change: td.dataset.change, best: td.dataset.best, "
        "applies: td.dataset.applies,"
        " shown: td.querySelector('.hl-value') ? td.querySelector('.hl-value').textContent : td.textContent,"
        " text: td.textContent, bold: getComputedStyle(td).fontWeight}));"
    )
    return cells


def test_headline_is_the_first_section_and_the_full_table_is_folded(browser: Chrome) -> None:
    order = browser.execute_script("return Array.from(document.querySelectorAll('h2')).map(h => h.id);")
    assert order[:3] == ["headline", "bars", "summary"], order
    folded = browser.execute_script(
        "const d = document.getElementById('summary-details');"
        "return {open: d.open, tableInside: d.contains(document.getElementById('summary-tenants')),"
        " tableVisible: document.getElementById('summary-tenants').checkVisibility(),"
        " headlineVisible: document.getElementById('headline-table').checkVisibility(),"
        " headlineTop: document.getElementById('headline-table').getBoundingClientRect().top};"
    )
    assert folded["open"] is False and folded["tableInside"] is True
    assert folded["tableVisible"] is False, "folded"
    assert folded["headlineVisible"] is True and folded["headlineTop"] < 1000, (
        "the headline is on the first screen"
    )


def test_headline_numbers_are_the_summary_numbers(browser: Chrome, report_dir: Path) -> None:
    summary = _summary_json(report_dir)
    schemes = list(summary["schemes"])
    baseline = browser.execute_script("return document.getElementById('headline-table').dataset.baseline")
    assert baseline == schemes[0], "the default baseline is the first scheme"
    caption = browser.execute_script("return document.querySelector('#headline-table caption').textContent")
    assert f"baseline scheme, {baseline}" in caption
    cells = _headline_cells(browser)
    metrics = {c["metric"] for c in cells}
    assert set(HEADLINE_VALUES) <= metrics, metrics
    tenants = [t for t in summary["schemes"][schemes[0]]["tenants"]]
    assert len(cells) == len(tenants) * len(schemes) * len(metrics)
    checked = 0
    for c in cells:
        if c["metric"] not in HEADLINE_VALUES:
            continue
        t = summary["schemes"][c["scheme"]]["tenants"][c["tenant"]]
        want = HEADLINE_VALUES[c["metric"]](t)
        base = HEADLINE_VALUES[c["metric"]](summary["schemes"][baseline]["tenants"][c["tenant"]])
        if want is None:
            assert c["value"] == "" and c["shown"] == "–", c
            continue
        assert float(c["value"]) == pytest.approx(want, rel=1e-12), c
        assert c["shown"].removesuffix("†") == _shown(want, c["metric"]), c
        if c["scheme"] == baseline:
            assert c["change"] == "" and "(" not in c["text"], c
        elif base:
            pct = (want - base) / abs(base) * 100
            assert float(c["change"]) == pytest.approx(pct, rel=1e-9, abs=1e-9), c
            assert c["text"].rstrip().endswith("%)"), c
        checked += 1
    assert checked >= len(tenants) * len(schemes) * 5


def test_headline_marks_the_best_scheme(browser: Chrome, report_dir: Path) -> None:
    summary = _summary_json(report_dir)
    lower = {
        "read_p99": True,
        "read_mean": True,
        "write_p99": True,
        "waf": True,
        "lifetime": False,
        "iops": False,
    }
    by_key: dict[tuple[str, str], dict[str, JsonObject]] = {}
    for c in _headline_cells(browser):
        if c["metric"] in lower:
            by_key.setdefault((c["tenant"], c["metric"]), {})[c["scheme"]] = c
    for (tenant, metric), cells in by_key.items():
        objects = {s: summary["schemes"][s]["tenants"][tenant] for s in cells}
        values = {s: HEADLINE_VALUES[metric](t) for s, t in objects.items()}
        op = SAMPLED_OP.get(metric)
        # Ranked: a value from at least SAMPLES_MIN requests of its operation, of a tenant
        # neither unstable nor starved under the scheme (issue 42: those never win).
        present = {
            s: v
            for s, v in values.items()
            if v is not None
            and (op is None or objects[s][op]["count"] >= SAMPLES_MIN)
            and not objects[s].get("unstable")
            and not objects[s].get("starved")
        }
        want: set[str] = set()
        if len(present) > 1:
            best_value = (min if lower[metric] else max)(present.values())
            # Within the noise of the best: shown the same, or within NOISE_PCT of it.
            want = {
                s
                for s, v in present.items()
                if _shown(v, metric) == _shown(best_value, metric)
                or (best_value != 0 and abs(v - best_value) / abs(best_value) * 100 <= NOISE_PCT)
            }
            if len(want) == len(present):
                want = set()  # no scheme beyond the noise: none is best
        marked = {s for s, c in cells.items() if c["best"] == "true"}
        assert marked == want, (tenant, metric, values, marked)
        for s, c in cells.items():
            assert c["text"].startswith("★") == (s in want), c
            assert (int(c["bold"]) >= 600) == (s in want), c


def test_headline_flags_unstable_tenants(browser: Chrome, report_dir: Path) -> None:
    summary = _summary_json(report_dir)
    flagged = browser.execute_script(
        "return Array.from(document.querySelectorAll('#headline-table "
        "tr.hl-row')).filter(tr => tr.querySelector('.hl-unstable'))"
        ".map(tr => [tr.dataset.tenant, tr.dataset.scheme]);"
    )
    want = [
        [t, s]
        for t in summary["schemes"][next(iter(summary["schemes"]))]["tenants"]
        for s in summary["schemes"]
        if summary["schemes"][s]["tenants"][t]["unstable"]
    ]
    assert flagged == want


def _bar_traces(driver: Chrome, div_id: str) -> list[JsonObject]:
    traces: list[JsonObject] = driver.execute_script(
        "const gd = document.getElementById(arguments[0]);"
        "return gd.data.map(t => ({type: t.type, name: t.name, stat: t.meta[0], x: "
        "Array.from(t.x), y: Array.from(t.y)}));",
        div_id,
    )
    return traces


def _stat(op_summary: Mapping[str, object], stat: str) -> object:
    """An operation's statistic named by the page (a trace's `meta`), e.g. "p99_us"."""
    return op_summary[stat]


@pytest.mark.parametrize("op", ["read", "write"])
def test_bars_are_the_summary_means_and_p99s(
    browser: Chrome, report_dir: Path, op: Literal["read", "write"]
) -> None:
    summary = _summary_json(report_dir)
    schemes = list(summary["schemes"])
    tenants = [
        t
        for t in summary["schemes"][schemes[0]]["tenants"]
        if any(summary["schemes"][s]["tenants"][t][op]["count"] > 0 for s in schemes)
    ]
    traces = _bar_traces(browser, f"fig-bars-{op}")
    assert {t["type"] for t in traces} == {"bar"}
    seen = set()
    for trace in traces:
        assert trace["x"] == tenants
        want = [_stat(summary["schemes"][trace["name"]]["tenants"][t][op], trace["stat"]) for t in tenants]
        assert trace["y"] == want, (op, trace["name"], trace["stat"])
        seen.add((trace["name"], trace["stat"]))
    assert seen == {(s, stat) for s in schemes for stat in ("mean_us", "p99_us")}


def test_resolved_scenario_is_shown_verbatim(browser: Chrome, report: Report) -> None:
    text = browser.execute_script("return document.getElementById('scenario-toml').textContent")
    assert text == report.resolved_toml


def test_screenshot_artifact(browser: Chrome) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1400, min(height, 12000))
    path = ARTIFACTS / "report.png"
    assert browser.save_screenshot(str(path))
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
