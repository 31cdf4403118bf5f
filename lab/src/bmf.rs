//! `cargo lab bench --bmf`: the run's numbers in Bencher Metric Format
//! (<https://bencher.dev/docs/reference/bencher-metric-format/>), one entry per case: `latency`
//! (the median wall time in nanoseconds with its 95 % interval), `instructions`, `allocations`
//! and `allocated-bytes` per run, each where the run measured it. The testbed is the receipt's
//! CPU, printed with the `bencher run` line that uploads the file.

use anyhow::Result;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use wirelab_bench::paths::lab_dir;
use wirelab_bench::records::{ExperimentData, Receipt, Record, write_json};

/// Writes `target/wirelab/bench.bmf.json` from the pages of one run; returns its path.
pub fn write(pages: &[ExperimentData], receipt: &Receipt) -> Result<PathBuf> {
    let mut out = Map::new();
    for page in pages {
        for (id, record) in &page.cases {
            let metrics = metrics(record);
            if !metrics.is_empty() {
                out.insert(id.to_string(), Value::Object(metrics));
            }
        }
    }
    let path = lab_dir().join("bench.bmf.json");
    write_json(&path, &Value::Object(out)).map_err(anyhow::Error::msg)?;
    eprintln!(
        "lab: Bencher Metric Format: {} (testbed \"{}\"; upload with `bencher run --testbed \"{}\" --adapter json --file {}`)",
        path.display(),
        receipt.cpu,
        receipt.cpu,
        path.display()
    );
    Ok(path)
}

/// One case's measures, by Bencher measure name.
fn metrics(r: &Record) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(w) = &r.wall {
        m.insert(
            "latency".into(),
            json!({"value": w.median_ns, "lower_value": w.lower_ns, "upper_value": w.upper_ns}),
        );
    }
    if let Some(ir) = r.instructions {
        m.insert("instructions".into(), json!({ "value": ir }));
    }
    if let Some(a) = r.alloc {
        let runs = a.runs.max(1) as f64;
        m.insert(
            "allocations".into(),
            json!({"value": a.blocks as f64 / runs}),
        );
        m.insert(
            "allocated-bytes".into(),
            json!({"value": a.bytes as f64 / runs}),
        );
    }
    m
}
