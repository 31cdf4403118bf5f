//! One page as its renderers see it, built once from its data file and the catalog's prose:
//! each case's speed-up over the baseline, the original's figures per workload, the headline
//! pair and the scaling points. The page's tables and charts, `reports/README.md` and the
//! README render from a [`Page`] and derive nothing themselves.

use super::bootstrap::{self, Ratio};
use super::chart;
use super::format::fmt_ratio;
use crate::catalog::{CaseId, Experiment, Original, Role, Scaling, WorkloadInfo};
use crate::records::{ExperimentData, Record};
use std::collections::BTreeMap;

/// A variant's wall-time speed-up over its page's baseline on one workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speedup {
    /// The baseline itself.
    Baseline,
    /// From the ladder over link layouts, or a bootstrap over both cells' criterion samples.
    Measured {
        /// The ratio baseline / variant and its 95 % interval.
        ratio: Ratio,
        /// The lowest and highest layout's own ratio, where the layouts alone move it by more
        /// than it differs from 1 (then a page does not rank the variant).
        spread: Option<(f64, f64)>,
    },
    /// Without samples: the baseline's median over the variant's.
    Medians {
        /// The baseline's median, ns.
        base_ns: f64,
        /// The variant's median, ns.
        ns: f64,
    },
}

impl Speedup {
    /// The speed-up of `r` over `base` (both timed), or `None` when one lacks a wall time.
    pub fn of(base: &Record, r: &Record) -> Option<Self> {
        let (bw, w) = (base.wall.as_ref()?, r.wall.as_ref()?);
        Some(match bootstrap::speedup(base, r) {
            Some(ratio) => Speedup::Measured {
                ratio,
                spread: r
                    .ladder
                    .as_ref()
                    .filter(|l| l.within_layout_spread())
                    .map(|l| l.layout_range()),
            },
            None => Speedup::Medians {
                base_ns: bw.median_ns,
                ns: w.median_ns,
            },
        })
    }

    /// The ratio with its interval, where one was measured (what a chart draws).
    pub fn ratio(&self) -> Option<Ratio> {
        match self {
            Speedup::Measured { ratio, .. } => Some(*ratio),
            _ => None,
        }
    }

    /// As a report shows it: `2.65x [2.58, 2.73]`, `≈1.00x [0.98, 1.02]`, `≈ within layout
    /// spread (0.95-1.06)`, the bare ratio of the medians without samples, `1.00x` for the
    /// baseline.
    pub fn text(&self) -> String {
        match self {
            Speedup::Baseline => "1.00x".to_owned(),
            Speedup::Measured {
                spread: Some((lo, hi)),
                ..
            } => format!("≈ within layout spread ({lo:.2}-{hi:.2})"),
            Speedup::Measured { ratio, .. } => bootstrap::fmt(ratio),
            Speedup::Medians { base_ns, ns } => fmt_ratio(*base_ns, *ns),
        }
    }
}

/// A page's headline: its headline workload, baseline against the first optimized variant.
#[derive(Debug)]
pub struct Headline<'a> {
    /// The workload.
    pub workload: &'a WorkloadInfo,
    /// The baseline's name.
    pub baseline: &'a str,
    /// The optimized variant's name.
    pub optimized: &'a str,
    /// The baseline's record.
    pub base: &'a Record,
    /// The optimized variant's record.
    pub opt: &'a Record,
    /// The optimized variant's speed-up, where both were timed.
    pub speedup: Option<Speedup>,
    /// The original change's figures on this workload, where it published them.
    pub original: Option<&'static Original>,
}

/// One experiment page with everything derived from its data.
#[derive(Debug)]
pub struct Page<'a> {
    /// The catalog's page (title, notes, originals, scaling).
    pub exp: Experiment,
    /// Its data file.
    pub data: &'a ExperimentData,
    /// Each timed case's speed-up over the baseline of its workload.
    speedups: BTreeMap<CaseId, Speedup>,
    /// The headline pair, where both are recorded.
    pub headline: Option<Headline<'a>>,
}

impl<'a> Page<'a> {
    /// The view of `data`, the data file of page `exp`.
    pub fn new(exp: Experiment, data: &'a ExperimentData) -> Self {
        let mut speedups = BTreeMap::new();
        for w in &data.workloads {
            let Some(base) = data.record(&w.name, data.baseline()) else {
                continue;
            };
            for v in &data.variants {
                let Some(r) = data.record(&w.name, &v.name) else {
                    continue;
                };
                let speedup = if v.name == data.baseline() {
                    r.wall.as_ref().map(|_| Speedup::Baseline)
                } else {
                    Speedup::of(base, r)
                };
                if let Some(s) = speedup {
                    speedups.insert(CaseId::new(&data.experiment, &w.name, &v.name), s);
                }
            }
        }
        let mut page = Page {
            exp,
            data,
            speedups,
            headline: None,
        };
        page.headline = page.find_headline();
        page
    }

    fn find_headline(&self) -> Option<Headline<'a>> {
        let data = self.data;
        let name = self.exp.meta().headline;
        let workload = data.workloads.iter().find(|w| w.name == name)?;
        let optimized = data
            .variants
            .iter()
            .find(|v| v.role == Role::Optimized)
            .map_or(data.baseline(), |v| v.name.as_str());
        let (base, opt) = (
            data.record(name, data.baseline())?,
            data.record(name, optimized)?,
        );
        Some(Headline {
            workload,
            baseline: data.baseline(),
            optimized,
            base,
            opt,
            // The headline's ratio is that of its cell: a bootstrap of the pair when the
            // optimized variant is the baseline (a page without one), else the case's.
            speedup: if optimized == data.baseline() {
                Speedup::of(base, opt)
            } else {
                self.speedup(name, optimized)
            },
            original: self.original(name),
        })
    }

    /// The page id.
    pub fn id(&self) -> &str {
        &self.data.experiment
    }

    /// The speed-up of `variant` on `workload`, where both it and the baseline were timed.
    pub fn speedup(&self, workload: &str, variant: &str) -> Option<Speedup> {
        self.speedups
            .get(&CaseId::new(&self.data.experiment, workload, variant))
            .copied()
    }

    /// The original change's figures on `workload`, where it published them.
    pub fn original(&self, workload: &str) -> Option<&'static Original> {
        self.exp
            .meta()
            .originals
            .iter()
            .find(|o| o.workload == workload)
    }

    /// A scaling chart's lines: per variant, (size, median ns per input byte) of the workloads
    /// on the size axis.
    pub fn scaling_lines(&self, scaling: &Scaling) -> Vec<chart::Line> {
        let data = self.data;
        data.variants
            .iter()
            .map(|v| chart::Line {
                name: v.name.clone(),
                points: scaling
                    .sizes
                    .iter()
                    .filter_map(|(w, size)| {
                        let bytes = data.workloads.iter().find(|x| x.name == *w)?.bytes.max(1);
                        let wall = data.record(w, &v.name)?.wall.as_ref()?;
                        Some((*size, wall.median_ns / bytes as f64))
                    })
                    .collect(),
            })
            .filter(|l| !l.points.is_empty())
            .collect()
    }
}
