//! Report rendering: formatting, the marker splice, a render of synthetic data, and the
//! committed reports reproduced byte for byte from the committed data alone.

use std::collections::BTreeMap;
use wirelab_bench::catalog::{CaseId, Experiment, VariantInfo, WorkloadInfo};
use wirelab_bench::experiments;
use wirelab_bench::paths::{committed_data, data_file, reports_dir, workspace_root};
use wirelab_bench::records::{
    Alloc, ExperimentData, Output, Receipt, Record, Samples, Wall, read_json,
};
use wirelab_bench::report::view::Page;
use wirelab_bench::report::{self, bootstrap};

#[test]
fn formats() {
    assert_eq!(report::fmt_ns(8.356), "8.36 ns");
    assert_eq!(report::fmt_ns(12_345.0), "12.35 µs");
    assert_eq!(report::fmt_ns(34_000_000.0), "34.00 ms");
    assert_eq!(report::fmt_count(1_234_567), "1,234,567");
    assert_eq!(report::fmt_count(999), "999");
    assert_eq!(report::fmt_ratio(229.63, 26.86), "8.55x");
    assert_eq!(report::fmt_ratio(1.0, 0.0), "∞");
    assert_eq!(report::fmt_bytes(4096.0), "4.0 KiB");
}

#[test]
fn splice_replaces_only_between_markers() {
    let (b, e) = (report::HEADLINE_BEGIN, report::HEADLINE_END);
    let out = report::splice(&format!("a\n{b}\nold\n{e}\nb\n"), b, e, "NEW\n").unwrap();
    assert_eq!(out, format!("a\n{b}\nNEW\n{e}\nb\n"));
    assert!(report::splice("no markers", b, e, "x").is_err());
    assert!(report::splice(&format!("{e}{b}"), b, e, "x").is_err());
}

fn exp(id: &str) -> Experiment {
    experiments::page(id).unwrap()
}

fn record(ns: f64, ir: u64, blocks: u64, result: u64, copied: Option<u64>) -> Record {
    Record {
        output: Some(Output {
            len: result,
            digest: "00".into(),
            result,
            copied,
        }),
        wall: Some(Wall {
            median_ns: ns,
            lower_ns: ns * 0.9,
            upper_ns: ns * 1.1,
            samples: Samples::default(),
            pace: None,
        }),
        instructions: Some(ir),
        alloc: Some(Alloc {
            runs: 4,
            blocks,
            bytes: blocks * 1024,
            peak_bytes: 1024,
        }),
        cycles: None,
        paths: None,
        ladder: None,
    }
}

fn data(id: &str, workloads: &[(&str, u64)], cases: &[(&str, &str, Record)]) -> ExperimentData {
    let variants: Vec<VariantInfo> = exp(id).def.variants();
    ExperimentData {
        schema_version: wirelab_bench::records::SCHEMA_VERSION,
        experiment: id.into(),
        receipt: Receipt {
            command: "cargo lab bench".into(),
            ..Receipt::default()
        },
        variants,
        workloads: workloads
            .iter()
            .map(|(name, bytes)| WorkloadInfo {
                name: (*name).into(),
                about: "x".into(),
                bytes: *bytes,
                ops: 1,
            })
            .collect(),
        cases: cases
            .iter()
            .map(|(w, v, r)| (CaseId::new(id, w, v), r.clone()))
            .collect::<BTreeMap<_, _>>(),
    }
}

#[test]
fn renders_tables_with_ratios_and_originals() {
    let d = data(
        "latin1",
        &[("ascii-1024", 1024)],
        &[
            ("ascii-1024", "naive", record(400.0, 10_000, 4, 0, None)),
            ("ascii-1024", "bulk-into", record(40.0, 1_000, 0, 0, None)),
        ],
    );
    let md = report::render_experiment(&Page::new(exp("latin1"), &d));
    // The main wall table: median · speed-up; without raw samples there is no interval, the
    // bare ratio of the medians.
    assert!(
        md.contains("| 400.00 ns · 1.00x | n/a | n/a | 40.00 ns · 10.00x |"),
        "{md}"
    );
    // The detail table: the medians' intervals and the throughput.
    assert!(
        md.contains("| 400.00 ns [360.00 ns, 440.00 ns], 2.38 GiB/s | n/a | n/a | 40.00 ns [36.00 ns, 44.00 ns], 23.84 GiB/s |"),
        "{md}"
    );
    assert!(md.contains("10,000 (1.00x)"));
    assert!(
        md.contains("229.63 / 151.66 / 26.86 ns (8.55x)"),
        "original column"
    );
    assert!(
        md.contains("1 blocks, 1.0 KiB"),
        "allocations per operation"
    );
    assert!(md.contains("| n/a |"), "variants without a record say n/a");
    assert!(md.contains("The peak is not checked"), "{md}");
    let head = report::headline(&[Page::new(exp("latin1"), &d)]);
    assert!(
        head.contains("naive → bulk-into") && head.contains("10.00x"),
        "{head}"
    );
}

#[test]
fn the_headline_says_which_pages_came_from_which_cpu() {
    let page_data = |id: &str, cpu: &str| {
        let mut d = data(
            id,
            &[("ascii-1024", 1024)],
            &[("ascii-1024", "naive", record(400.0, 1_000, 0, 0, None))],
        );
        d.receipt.cpu = cpu.into();
        d
    };
    let (a, b) = (page_data("latin1", "cpu A"), page_data("crc", "cpu A"));
    let one = report::headline(&[Page::new(exp("latin1"), &a), Page::new(exp("crc"), &b)]);
    assert!(!one.contains("Measured on"), "{one}");
    let c = page_data("crc", "cpu B");
    let two = report::headline(&[Page::new(exp("latin1"), &a), Page::new(exp("crc"), &c)]);
    assert!(
        two.contains(r#"Measured on 2 CPUs: "cpu A" (latin1); "cpu B" (crc)."#),
        "{two}"
    );
}

#[test]
fn the_cases_timed_off_the_machines_pace_are_named() {
    use wirelab_bench::pace::Reading;
    let paced = |ns: f64, core: f64| {
        let mut r = record(ns, 1_000, 0, 0, None);
        if let Some(w) = r.wall.as_mut() {
            w.pace = Some(Reading { clock: 1.0, core });
        }
        r
    };
    let page = |slow: f64| {
        let d = data(
            "latin1",
            &[("ascii-1024", 1024)],
            &[
                ("ascii-1024", "naive", paced(400.0, 1.0)),
                ("ascii-1024", "bulk-into", paced(40.0, slow)),
            ],
        );
        report::render_experiment(&Page::new(exp("latin1"), &d))
    };
    let calm = page(1.01);
    assert!(
        calm.contains("criterion timed all 2 cases at the machine's full pace"),
        "{calm}"
    );
    let slowed = page(1.25);
    assert!(
        slowed.contains("criterion timed 1 of 2 cases while the machine ran slower")
            && slowed.contains("latin1/ascii-1024/bulk-into (clock 1.00x, core 1.25x)"),
        "{slowed}"
    );
    // Records from before the lab read the pace say nothing of it.
    let old = data(
        "latin1",
        &[("ascii-1024", 1024)],
        &[("ascii-1024", "naive", record(400.0, 1_000, 0, 0, None))],
    );
    let md = report::render_experiment(&Page::new(exp("latin1"), &old));
    assert!(
        !md.contains("full pace") && !md.contains("ran slower"),
        "{md}"
    );
}

#[test]
fn sweep_experiments_get_a_growth_table_and_outputs() {
    let d = data(
        "octet-push",
        &[("fname-2k", 1000), ("fname-4k", 2000)],
        &[
            ("fname-2k", "naive", record(1.0, 10_000, 1, 1 << 20, None)),
            ("fname-4k", "naive", record(1.0, 40_000, 1, 1 << 20, None)),
            (
                "fname-2k",
                "optimized",
                record(1.0, 5_000, 1, 1 << 20, None),
            ),
            (
                "fname-4k",
                "optimized",
                record(1.0, 10_000, 2, 1 << 20, Some(512)),
            ),
        ],
    );
    let md = report::render_experiment(&Page::new(exp("octet-push"), &d));
    assert!(md.contains("## Growth (instructions)"), "{md}");
    assert!(
        md.contains("| fname-2k | 1,000 | 10.0 | 5.0 | not measured |"),
        "{md}"
    );
    assert!(
        md.contains("| fname-4k | 2,000 | 20.0 (4.00x) | 5.0 (2.00x) | not measured |"),
        "{md}"
    );
    assert!(
        md.contains("1,048,576 (1.000x); 512 B / MiB; copied 512 B / MiB"),
        "{md}"
    );
    assert!(
        md.contains("1,048,576 (1.000x); 256 B / MiB; copied —"),
        "{md}"
    );
}

/// `cargo lab report` is a pure function of reports/data: rendering the committed data gives
/// the committed reports, byte for byte (no build, no shared data, no codec run needed).
#[test]
fn committed_data_renders_to_the_committed_reports() {
    let data: Vec<(Experiment, ExperimentData)> = experiments::pages()
        .into_iter()
        .map(|exp| {
            (
                exp,
                serde_json::from_str(&committed_data(&exp.id()).unwrap()).unwrap(),
            )
        })
        .collect();
    let pages: Vec<Page> = data.iter().map(|(e, d)| Page::new(*e, d)).collect();
    for page in &pages {
        let id = page.id();
        let committed = std::fs::read_to_string(reports_dir().join(format!("{id}.md"))).unwrap();
        assert!(
            report::render_experiment(page) == committed,
            "reports/{id}.md is stale: run `cargo lab report`"
        );
    }
    for (path, svg) in report::render_plots(&pages).unwrap() {
        let committed = std::fs::read_to_string(reports_dir().join(&path)).unwrap();
        assert!(
            svg == committed,
            "reports/{path} is stale: run `cargo lab report`"
        );
    }
    let index = std::fs::read_to_string(reports_dir().join("README.md")).unwrap();
    assert!(
        report::render_index(&pages) == index,
        "reports/README.md is stale"
    );
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    assert!(
        report::render_readme(&readme, &pages).unwrap() == readme,
        "README.md is stale"
    );
}

fn samples(per_run: &[f64]) -> Samples {
    Samples {
        iters: vec![2.0; per_run.len()],
        times_ns: per_run.iter().map(|t| t * 2.0).collect(),
    }
}

/// Deterministic noise around `center`.
fn noisy(center: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut rng = wirelab_bench::rng::Rng::new(seed);
    (0..n)
        .map(|_| center * (1.0 + (rng.range(0, 1000) as f64 - 500.0) / 10_000.0))
        .collect()
}

#[test]
fn the_bootstrap_is_deterministic_and_says_when_there_is_no_difference() {
    let (a, b) = (
        samples(&noisy(200.0, 100, 1)),
        samples(&noisy(100.0, 100, 2)),
    );
    let r1 = bootstrap::ratio(&a, &b).unwrap();
    assert_eq!(
        r1,
        bootstrap::ratio(&a, &b).unwrap(),
        "same samples, same interval"
    );
    assert!(r1.lower < r1.value && r1.value < r1.upper, "{r1:?}");
    assert!((r1.value - 2.0).abs() < 0.05 && !r1.spans_one(), "{r1:?}");
    assert!(bootstrap::fmt(&r1).starts_with("2.0") || bootstrap::fmt(&r1).starts_with("1.9"));
    let same = bootstrap::ratio(
        &samples(&noisy(100.0, 100, 3)),
        &samples(&noisy(100.0, 100, 4)),
    )
    .unwrap();
    assert!(same.spans_one(), "{same:?}");
    assert!(
        bootstrap::fmt(&same).starts_with("≈1.00x ["),
        "{}",
        bootstrap::fmt(&same)
    );
    assert!(bootstrap::ratio(&Samples::default(), &b).is_none());
}

/// The chart of a fixed data file equals the committed SVG byte for byte (plotters lays out
/// text without fonts, so the bytes do not depend on the machine).
#[test]
fn a_chart_renders_to_the_same_bytes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let d: ExperimentData = read_json(&dir.join("chart-data.json")).unwrap();
    let svg =
        report::chart::speedup_chart(&report::chart::speedups(&Page::new(exp(&d.experiment), &d)))
            .unwrap();
    let fixture = dir.join("chart.svg");
    if std::env::var_os("WIRELAB_BLESS").is_some() {
        std::fs::write(&fixture, &svg).unwrap();
    }
    let committed = std::fs::read_to_string(&fixture).unwrap();
    assert!(
        svg == committed,
        "the chart of tests/fixtures/chart-data.json changed (WIRELAB_BLESS=1 rewrites the fixture)"
    );
    roxmltree::Document::parse(&svg).unwrap();
}

#[test]
fn every_svg_under_reports_is_xml() {
    let mut n = 0;
    for entry in std::fs::read_dir(reports_dir().join("plots")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let text = std::fs::read_to_string(&path).unwrap();
            let doc = roxmltree::Document::parse(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            n += 1;
        }
    }
    assert!(
        n > experiments::pages().len(),
        "one chart per page and the headline: {n}"
    );
}

#[test]
fn incomplete_names_the_cases_missing_a_metric() {
    let mut data: ExperimentData = read_json(&data_file("crc")).unwrap();
    assert!(
        data.incomplete().is_empty(),
        "the committed crc data is complete"
    );
    let ids: Vec<CaseId> = data.cases.keys().take(2).cloned().collect();
    data.cases.get_mut(&ids[0]).unwrap().wall = None;
    data.cases.get_mut(&ids[1]).unwrap().instructions = None;
    assert_eq!(data.incomplete(), vec![&ids[0], &ids[1]]);
}

#[test]
fn committed_data_round_trips_byte_for_byte() {
    // Case ids are typed; they must still read, write and sort as their text.
    for exp in experiments::pages() {
        let text = committed_data(&exp.id()).unwrap();
        let data: ExperimentData = serde_json::from_str(&text).unwrap();
        let again = serde_json::to_string_pretty(&data).unwrap() + "\n";
        assert!(
            again == text,
            "reports/data/{}.json changed on a round trip",
            exp.id()
        );
    }
}
