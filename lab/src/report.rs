//! `cargo lab report`: renders reports/ and the README's generated tables from
//! reports/data/*.json alone (no build of the harnesses, no shared data, no codec run), and
//! writes the JSON Schemas of the published files (reports/schema/).

use anyhow::{Context, Result};
use wirelab_bench::catalog::Experiment;
use wirelab_bench::experiments;
use wirelab_bench::paths::{data_file, reports_dir, workspace_root};
use wirelab_bench::records::{ExperimentData, read_json, write_atomically};
use wirelab_bench::report::view::Page;
use wirelab_bench::{report, schema};

/// Re-renders every page from the committed data.
pub fn run() -> Result<()> {
    publish(Vec::new())
}

/// Writes `fresh` data files (newly measured pages) and re-renders every page, the index and
/// the README from them and the committed data of the other pages. Everything is rendered
/// before anything is written.
pub fn publish(fresh: Vec<ExperimentData>) -> Result<()> {
    let mut files: Vec<(std::path::PathBuf, String)> = Vec::new();
    let mut pages: Vec<(Experiment, ExperimentData)> = Vec::new();
    for exp in experiments::pages() {
        let id = exp.id();
        let data = match fresh.iter().find(|d| d.experiment == id) {
            Some(d) => {
                files.push((data_file(&id), serde_json::to_string_pretty(d)? + "\n"));
                d.clone()
            }
            None if data_file(&id).exists() => {
                read_json(&data_file(&id)).map_err(anyhow::Error::msg)?
            }
            None => {
                eprintln!("lab: {id} has no data yet (run `cargo lab bench {id}`)");
                continue;
            }
        };
        pages.push((exp, data));
    }
    let views: Vec<Page> = pages.iter().map(|(e, d)| Page::new(*e, d)).collect();
    for page in &views {
        let path = reports_dir().join(format!("{}.md", page.id()));
        files.push((path, report::render_experiment(page)));
    }
    for (path, svg) in report::render_plots(&views).map_err(anyhow::Error::msg)? {
        files.push((reports_dir().join(path), svg));
    }
    files.push((
        reports_dir().join("README.md"),
        report::render_index(&views),
    ));
    files.push((workspace_root().join("README.md"), readme(&views)?));
    for schema in schema::published() {
        files.push((reports_dir().join("schema").join(schema.name), schema.text));
    }
    for (path, text) in &files {
        write_atomically(path, text.as_bytes()).map_err(anyhow::Error::msg)?;
    }
    eprintln!("lab: rendered {} files from reports/data", files.len());
    Ok(())
}

/// The README with its generated headline and experiment tables replaced.
fn readme(pages: &[Page]) -> Result<String> {
    let path = workspace_root().join("README.md");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    report::render_readme(&text, pages).map_err(anyhow::Error::msg)
}
