//! The tables of an experiment's page: a row per workload, a column per variant.

use super::bootstrap;
use super::format::{fmt_bytes, fmt_count, fmt_ns, fmt_ratio, fmt_throughput, trim_float};
use super::view::{Page, Speedup};
use crate::catalog::WorkloadInfo;
use crate::records::{ExperimentData, Record};
use std::fmt::Write as _;

/// What a table's cell shows one case from.
pub struct Cell<'a> {
    /// The case's record.
    pub record: &'a Record,
    /// The baseline's record on the same workload.
    pub base: Option<&'a Record>,
    /// The workload.
    pub workload: &'a WorkloadInfo,
    /// The case's wall-time speed-up over the baseline, from the page's view.
    pub speedup: Option<Speedup>,
}

/// Renders a table of `page` whose cell for a case is `cell(...)` ("n/a" where the variant
/// does not apply, "not measured" where `cell` gives nothing), with the original's figures in
/// a last column when `originals` is set.
pub fn table<F>(page: &Page, originals: bool, cell: F) -> String
where
    F: Fn(&Cell) -> Option<String>,
{
    let data = page.data;
    let mut out = String::from("| workload |");
    for v in &data.variants {
        let _ = write!(out, " {} ({}) |", v.name, v.role);
    }
    if originals {
        out.push_str(" original |");
    }
    out.push_str("\n| --- |");
    out.push_str(&" ---: |".repeat(data.variants.len()));
    if originals {
        out.push_str(" --- |");
    }
    out.push('\n');
    for w in &data.workloads {
        let base = data.record(&w.name, data.baseline());
        let _ = write!(out, "| {} |", w.name);
        for v in &data.variants {
            let text = match data.record(&w.name, &v.name) {
                None => "n/a".to_owned(),
                Some(record) => cell(&Cell {
                    record,
                    base,
                    workload: w,
                    speedup: page.speedup(&w.name, &v.name),
                })
                .unwrap_or_else(|| "not measured".to_owned()),
            };
            let _ = write!(out, " {text} |");
        }
        if originals {
            let _ = write!(out, " {} |", original(page, &w.name));
        }
        out.push('\n');
    }
    out
}

/// The original's figures for a workload, with the ratio they imply.
fn original(page: &Page, workload: &str) -> String {
    page.original(workload)
        .map(|o| match o.ratio {
            Some(r) => format!("{} ({r:.2}x)", o.figures),
            None => o.figures.to_owned(),
        })
        .unwrap_or_else(|| "—".to_owned())
}

/// A wall-time cell as the page's main table shows it: the median and the speed-up over the
/// baseline with its interval (the baseline's own cell says 1.00x).
pub fn wall_cell(c: &Cell) -> Option<String> {
    let wall = c.record.wall.as_ref()?;
    Some(match c.speedup {
        Some(s) => format!("{} · {}", fmt_ns(wall.median_ns), s.text()),
        None => fmt_ns(wall.median_ns),
    })
}

/// A wall-time cell of the detail table: the median with its 95 % interval, and the
/// throughput.
pub fn wall_detail_cell(c: &Cell) -> Option<String> {
    let (wall, w) = (c.record.wall.as_ref()?, c.workload);
    let throughput = if w.bytes > 0 {
        format!(", {}", fmt_throughput(w.bytes, wall.median_ns))
    } else {
        String::new()
    };
    Some(format!(
        "{} [{}, {}]{throughput}",
        fmt_ns(wall.median_ns),
        fmt_ns(wall.lower_ns),
        fmt_ns(wall.upper_ns)
    ))
}

/// An instruction-count cell: the count and its ratio to the baseline.
pub fn icount_cell(c: &Cell) -> Option<String> {
    let (r, base) = (c.record, c.base);
    let ir = r.instructions?;
    let ratio = base
        .and_then(|b| b.instructions)
        .map(|b| fmt_ratio(b as f64, ir as f64))
        .unwrap_or_default();
    let mark = if r.paths.is_some() { " †" } else { "" };
    Some(format!("{} ({ratio}){mark}", fmt_count(ir)))
}

/// A cache-simulation cell: estimated cycles with the ratio baseline / variant, then L1 and
/// last-level misses.
pub fn cycles_cell(cell: &Cell) -> Option<String> {
    let c = cell.record.cycles?;
    let ratio = cell
        .base
        .and_then(|b| b.cycles)
        .map(|b| {
            format!(
                " ({})",
                fmt_ratio(b.estimated_cycles as f64, c.estimated_cycles as f64)
            )
        })
        .unwrap_or_default();
    Some(format!(
        "{}{ratio}; L1 miss {}, LL miss {}",
        fmt_count(c.estimated_cycles),
        fmt_count(c.l1_misses),
        fmt_count(c.ll_misses)
    ))
}

/// An allocation cell: blocks and bytes per `per` operations, and the peak.
pub fn alloc_cell(c: &Cell, per: u64) -> Option<String> {
    let a = c.record.alloc?;
    let n = (a.runs * c.workload.ops.max(1)) as f64;
    let scale = per as f64 / n;
    Some(format!(
        "{} blocks, {}; peak {}",
        trim_float(a.blocks as f64 * scale),
        fmt_bytes(a.bytes as f64 * scale),
        fmt_bytes(a.peak_bytes as f64)
    ))
}

/// An output cell: the run's result, its ratio to the baseline's, heap bytes per MiB of it
/// and, where `copies` (some variant counts its copies), the bytes copied per MiB.
pub fn output_cell(c: &Cell, copies: bool) -> Option<String> {
    let (r, base) = (c.record, c.base);
    let out = r.output.as_ref()?;
    let v = out.result;
    let ratio = base
        .and_then(|b| b.output.as_ref())
        .map(|b| format!(" ({:.3}x)", v as f64 / b.result.max(1) as f64))
        .unwrap_or_default();
    let per_mib = |bytes: f64| fmt_bytes(bytes * f64::from(1u32 << 20) / v as f64);
    let heap = r
        .alloc
        .filter(|a| a.runs > 0 && v > 0)
        .map(|a| format!("; {} / MiB", per_mib(a.bytes as f64 / a.runs as f64)))
        .unwrap_or_default();
    let copied = match out.copied {
        Some(c) if v > 0 => format!("; copied {} / MiB", per_mib(c as f64)),
        _ if copies => "; copied —".to_owned(),
        _ => String::new(),
    };
    Some(format!("{}{ratio}{heap}{copied}", fmt_count(v)))
}

/// The sweep table: instructions per input octet for each variant and workload, and the growth
/// from the workload before.
pub fn growth_table(data: &ExperimentData) -> String {
    let mut out = String::from("| workload | input bytes |");
    for v in &data.variants {
        let _ = write!(out, " {} ({}) |", v.name, v.role);
    }
    out.push_str("\n| --- | ---: |");
    out.push_str(&" ---: |".repeat(data.variants.len()));
    out.push('\n');
    let mut previous: Option<&str> = None;
    for w in &data.workloads {
        let _ = write!(out, "| {} | {} |", w.name, fmt_count(w.bytes));
        for v in &data.variants {
            let ir = data.record(&w.name, &v.name).and_then(|r| r.instructions);
            let before = previous
                .and_then(|p| data.record(p, &v.name))
                .and_then(|r| r.instructions);
            let per_octet = |ir: u64| ir as f64 / w.bytes.max(1) as f64;
            let text = match (ir, before) {
                (None, _) => "not measured".to_owned(),
                (Some(ir), None) => format!("{:.1}", per_octet(ir)),
                (Some(ir), Some(b)) => {
                    format!("{:.1} ({:.2}x)", per_octet(ir), ir as f64 / b.max(1) as f64)
                }
            };
            let _ = write!(out, " {text} |");
        }
        out.push('\n');
        previous = Some(&w.name);
    }
    out
}

/// The cases where instructions and wall time disagree, each with what the cache simulation
/// says: another variant of a workload that runs at least 97 % of the optimized variant's
/// instructions but is faster in wall time (the whole bootstrap interval of the ratio above
/// 1). One generated sentence per pair.
pub fn disagreements(data: &ExperimentData) -> Vec<String> {
    let Some(opt) = data
        .variants
        .iter()
        .find(|v| v.role == crate::catalog::Role::Optimized)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for w in &data.workloads {
        let Some(o) = data.record(&w.name, &opt.name) else {
            continue;
        };
        for v in data.variants.iter().filter(|v| v.name != opt.name) {
            if let Some(r) = data.record(&w.name, &v.name)
                && let Some(line) = disagreement(o, r)
            {
                out.push(format!(
                    "{}: {} against {}: {line}",
                    w.name, opt.name, v.name
                ));
            }
        }
    }
    out
}

/// The sentence for one pair (optimized `o`, other `r`), when they disagree.
fn disagreement(o: &Record, r: &Record) -> Option<String> {
    let (oi, ri) = (o.instructions? as f64, r.instructions? as f64);
    let (ow, rw) = (o.wall.as_ref()?, r.wall.as_ref()?);
    // Time of the optimized variant over the other's: above 1 means the other is faster.
    let slower = bootstrap::ratio(&ow.samples, &rw.samples)?;
    if ri < 0.97 * oi || slower.lower <= 1.0 {
        return None;
    }
    let (oc, rc) = (o.cycles?, r.cycles?);
    let cyc = oc.estimated_cycles as f64 / rc.estimated_cycles.max(1) as f64;
    let verdict = if cyc > 1.0 {
        "the cache simulation agrees with the wall time"
    } else {
        "the cache simulation does not explain it (the cause lies outside what callgrind models: branch prediction, prefetching, out-of-order execution, or a kernel valgrind does not run)"
    };
    Some(format!(
        "{} vs {} instructions ({:.2}x), {} vs {} wall ({:.2}x slower), {} vs {} estimated cycles ({:.2}x), last-level misses {} vs {}: {verdict}",
        fmt_count(oi as u64),
        fmt_count(ri as u64),
        oi / ri,
        fmt_ns(ow.median_ns),
        fmt_ns(rw.median_ns),
        slower.value,
        fmt_count(oc.estimated_cycles),
        fmt_count(rc.estimated_cycles),
        cyc,
        fmt_count(oc.ll_misses),
        fmt_count(rc.ll_misses),
    ))
}
