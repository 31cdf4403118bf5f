//! Selections: `EXP[/WORKLOAD[/VARIANT]]`, the one syntax every verb and harness takes.
//!
//! `latin1` picks every case of the experiment, `crc/frag-4k` every variant on one workload,
//! `hpack-encode/browser-default/optimized` one case and `gzip/*/optimized` one variant on every
//! workload. No argument picks everything. Experiment and variant names are checked when the
//! selection is parsed; workload names (some come from the shared data) when the walk loads the
//! experiment. An unknown name is an error that lists the valid ones.

use crate::catalog::{CaseId, Experiment};
use crate::experiments;
use std::fmt;

/// One `EXP[/WORKLOAD[/VARIANT]]` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    /// Experiment (page) id.
    pub exp: String,
    /// Workload name, `None` for all.
    pub workload: Option<String>,
    /// Variant name, `None` for all.
    pub variant: Option<String>,
}

impl Pick {
    fn wants(&self, exp: &str, workload: &str, variant: &str) -> bool {
        self.exp == exp
            && self.workload.as_deref().is_none_or(|w| w == workload)
            && self.variant.as_deref().is_none_or(|v| v == variant)
    }
}

impl fmt::Display for Pick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.exp)?;
        match (&self.workload, &self.variant) {
            (None, None) => Ok(()),
            (Some(w), None) => write!(f, "/{w}"),
            (w, Some(v)) => write!(f, "/{}/{v}", w.as_deref().unwrap_or("*")),
        }
    }
}

/// A set of picks; empty means everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    picks: Vec<Pick>,
}

impl Selection {
    /// Every case of the catalog.
    pub fn all() -> Self {
        Self::default()
    }

    /// Parses selection arguments (none: everything) against the registry's pages.
    ///
    /// # Errors
    ///
    /// On a malformed argument, an unknown experiment or an unknown variant, listing the valid
    /// names.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Self, String> {
        Self::parse_in(&experiments::pages(), args)
    }

    /// Parses selection arguments against the pages of `catalog` (a made-up one in tests).
    ///
    /// # Errors
    ///
    /// As [`Selection::parse`].
    pub fn parse_in<S: AsRef<str>>(catalog: &[Experiment], args: &[S]) -> Result<Self, String> {
        let picks = args
            .iter()
            .flat_map(|a| a.as_ref().split(','))
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| parse_pick(catalog, a))
            .collect::<Result<_, _>>()?;
        Ok(Self { picks })
    }

    /// The picks (empty: everything).
    pub fn picks(&self) -> &[Pick] {
        &self.picks
    }

    /// Whether the case is selected.
    pub fn wants(&self, exp: &str, workload: &str, variant: &str) -> bool {
        self.picks.is_empty() || self.picks.iter().any(|p| p.wants(exp, workload, variant))
    }

    /// Whether the case `id` is selected.
    pub fn wants_case(&self, id: &CaseId) -> bool {
        self.wants(&id.exp, &id.workload, &id.variant)
    }

    /// The registry's pages with anything selected, in catalog order.
    pub fn experiments(&self) -> Vec<Experiment> {
        self.pages_of(experiments::pages())
    }

    /// The pages of `catalog` with anything selected, in its order.
    pub fn pages_of(&self, catalog: Vec<Experiment>) -> Vec<Experiment> {
        catalog
            .into_iter()
            .filter(|e| self.picks.is_empty() || self.picks.iter().any(|p| p.exp == e.id()))
            .collect()
    }

    /// The part of this selection that concerns `exp` (everything of it when the selection is
    /// empty).
    pub fn narrowed_to(&self, exp: &str) -> Selection {
        let picks: Vec<Pick> = if self.picks.is_empty() {
            vec![Pick {
                exp: exp.to_owned(),
                workload: None,
                variant: None,
            }]
        } else {
            self.picks
                .iter()
                .filter(|p| p.exp == exp)
                .cloned()
                .collect()
        };
        Selection { picks }
    }

    /// This selection without the pages `dropped`; `None` when nothing is left (an empty
    /// selection would mean everything).
    pub fn without(&self, dropped: &[String]) -> Option<Selection> {
        let picks: Vec<Pick> = self
            .experiments()
            .iter()
            .filter(|e| !dropped.contains(&e.id()))
            .flat_map(|e| self.narrowed_to(&e.id()).picks)
            .collect();
        (!picks.is_empty()).then_some(Selection { picks })
    }

    /// Fails when a pick names a workload `exp` does not have (`workloads`: the ones it has).
    ///
    /// # Errors
    ///
    /// Names the workload and lists the valid ones.
    pub fn check_workloads(&self, exp: &str, workloads: &[&str]) -> Result<(), String> {
        for p in self.picks.iter().filter(|p| p.exp == exp) {
            if let Some(w) = &p.workload
                && !workloads.contains(&w.as_str())
            {
                return Err(format!(
                    "unknown workload `{w}` in {exp} (workloads: {})",
                    if workloads.is_empty() {
                        "none: its data is missing".to_owned()
                    } else {
                        workloads.join(", ")
                    }
                ));
            }
        }
        Ok(())
    }
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.picks.iter().map(ToString::to_string).collect();
        f.write_str(&parts.join(","))
    }
}

fn parse_pick(catalog: &[Experiment], arg: &str) -> Result<Pick, String> {
    let parts: Vec<&str> = arg.split('/').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(format!(
            "`{arg}` is not a selection (EXP[/WORKLOAD[/VARIANT]])"
        ));
    }
    let ids: Vec<String> = catalog.iter().map(Experiment::id).collect();
    let Some(exp) = catalog.iter().find(|e| e.id() == parts[0]) else {
        return Err(format!(
            "unknown experiment `{}` (experiments: {})",
            parts[0],
            ids.join(", ")
        ));
    };
    let variant = parts.get(2).map(|v| v.to_string());
    if let Some(v) = &variant {
        let names: Vec<String> = exp.def.variants().into_iter().map(|v| v.name).collect();
        if !names.contains(v) {
            return Err(format!(
                "unknown variant `{v}` in {} (variants: {})",
                parts[0],
                names.join(", ")
            ));
        }
    }
    Ok(Pick {
        exp: parts[0].to_owned(),
        workload: parts.get(1).filter(|w| **w != "*").map(|w| w.to_string()),
        variant,
    })
}
