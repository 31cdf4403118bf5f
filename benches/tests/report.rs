//! Report rendering: formatting, the headline splice, and a render of synthetic data.

use wirelab_bench::report;
use wirelab_bench::results::{Alloc, ExperimentData, Receipt, Row, Wall, WorkloadInfo};

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
fn headline_splice_replaces_only_between_markers() {
    let readme = format!(
        "a\n{}\nold\n{}\nb\n",
        report::HEADLINE_BEGIN,
        report::HEADLINE_END
    );
    let out = report::splice_headline(&readme, "NEW\n").unwrap();
    assert_eq!(
        out,
        format!(
            "a\n{}\nNEW\n{}\nb\n",
            report::HEADLINE_BEGIN,
            report::HEADLINE_END
        )
    );
    assert!(report::splice_headline("no markers", "x").is_err());
    let reversed = format!("{}{}", report::HEADLINE_END, report::HEADLINE_BEGIN);
    assert!(report::splice_headline(&reversed, "x").is_err());
}

#[test]
fn renders_tables_with_ratios_and_originals() {
    let exp = wirelab_bench::find("latin1").unwrap();
    let row = |variant: &str, ns: f64, ir: u64, blocks: u64| Row {
        workload: "ascii-1024".into(),
        variant: variant.into(),
        role: exp.variant(variant).unwrap().role,
        wall: Some(Wall {
            median_ns: ns,
            lower_ns: ns * 0.9,
            upper_ns: ns * 1.1,
        }),
        instructions: Some(ir),
        result: None,
        copied: None,
        alloc: Some(Alloc {
            runs: 4,
            blocks,
            bytes: blocks * 1024,
            peak_bytes: 1024,
        }),
    };
    let data = ExperimentData {
        experiment: "latin1".into(),
        receipt: Receipt {
            command: "cargo lab bench".into(),
            ..Receipt::default()
        },
        workloads: vec![WorkloadInfo {
            name: "ascii-1024".into(),
            about: "x".into(),
            bytes: 1024,
            ops: 1,
        }],
        rows: vec![
            row("naive", 400.0, 10_000, 4),
            row("bulk-into", 40.0, 1_000, 0),
        ],
    };
    let md = report::render_experiment(exp, &data);
    assert!(
        md.contains("400.00 ns [360.00 ns, 440.00 ns] (1.00x)"),
        "{md}"
    );
    assert!(
        md.contains("40.00 ns [36.00 ns, 44.00 ns] (10.00x)"),
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
    assert!(md.contains("| n/a |"), "variants without a row say n/a");
    let head = report::headline(&[(exp, &data)]);
    assert!(head.contains("naive → bulk-into"));
    assert!(head.contains("10.00x"));
}

#[test]
fn sweep_experiments_get_a_growth_table() {
    let exp = wirelab_bench::find("octet-push").unwrap();
    assert!(exp.sweep);
    let row = |workload: &str, variant: &str, ir: u64| Row {
        workload: workload.into(),
        variant: variant.into(),
        role: exp.variant(variant).unwrap().role,
        wall: None,
        instructions: Some(ir),
        result: None,
        copied: None,
        alloc: None,
    };
    let info = |name: &str, bytes: u64| WorkloadInfo {
        name: name.into(),
        about: "x".into(),
        bytes,
        ops: 1,
    };
    let data = ExperimentData {
        experiment: "octet-push".into(),
        receipt: Receipt::default(),
        workloads: vec![info("fname-2k", 1000), info("fname-4k", 2000)],
        rows: vec![
            row("fname-2k", "naive", 10_000),
            row("fname-4k", "naive", 40_000),
            row("fname-2k", "optimized", 5_000),
            Row {
                result: Some(1 << 20),
                copied: Some(512),
                alloc: Some(Alloc {
                    runs: 2,
                    blocks: 8,
                    bytes: 4096,
                    peak_bytes: 2048,
                }),
                ..row("fname-4k", "optimized", 10_000)
            },
        ],
    };
    let md = report::render_experiment(exp, &data);
    assert!(md.contains("## Growth (instructions)"), "{md}");
    // Per input octet, then the growth from the size before.
    assert!(
        md.contains("| fname-2k | 1,000 | 10.0 | 5.0 | not measured |"),
        "{md}"
    );
    assert!(
        md.contains("| fname-4k | 2,000 | 20.0 (4.00x) | 5.0 (2.00x) | not measured |"),
        "{md}"
    );
    // The output table: octets decoded, heap bytes allocated and bytes copied per MiB of them.
    assert!(
        md.contains("1,048,576; 2.0 KiB / MiB; copied 512 B / MiB"),
        "{md}"
    );
    assert!(
        md.contains("bytes copied from one buffer into another per MiB"),
        "{md}"
    );
    let latin1 = wirelab_bench::find("latin1").unwrap();
    assert!(!latin1.sweep, "only size sweeps get the table");
}
