//! `cargo lab list`: the selected experiments, their variants and workloads (loading each
//! experiment's workloads, so a broken data file shows here too).

use anyhow::Result;
use wirelab_bench::catalog::Definition;
use wirelab_bench::selection::Selection;

/// Prints the selected experiments, each whole.
pub fn run(sel: &Selection) -> Result<()> {
    for exp in sel.experiments() {
        let id = exp.id();
        println!("{id}: {}", exp.title());
        println!("  from: {}", exp.meta().origin);
        println!("  variants:");
        let variants = exp.def.variants();
        for v in &variants {
            println!("    {:<14} {:<10} {}", v.name, v.role.to_string(), v.about);
        }
        println!("  workloads:");
        // Every workload and variant of the experiment, whatever the selection's finer parts.
        let loaded = Definition::load(exp.def, &|_, _| true, false)?;
        for w in &loaded.workloads {
            let applies = |v: &str| {
                loaded
                    .cases
                    .iter()
                    .any(|c| c.workload.name == w.name && c.variant.name == v)
            };
            let na: Vec<&str> = variants
                .iter()
                .map(|v| v.name.as_str())
                .filter(|v| !applies(v))
                .collect();
            let na = if na.is_empty() {
                String::new()
            } else {
                format!(" [n/a: {}]", na.join(", "))
            };
            println!("    {:<16} {}{na}", w.name, w.about);
        }
        println!();
    }
    Ok(())
}
