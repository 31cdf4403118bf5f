//! The catalog is a test: every variant agrees with the baseline on every workload, workloads
//! are deterministic, every variant applies somewhere, case ids are unique, and the names are
//! usable as file names. Experiments whose workloads need the shared data are skipped (and say
//! so) when it is absent; under `CI=true` its absence is a failure.

use std::collections::HashSet;
use wirelab_bench::catalog::{self, Check, Expected, Role};
use wirelab_bench::experiments;
use wirelab_bench::selection::Selection;

fn built_here() -> Selection {
    let ids: Vec<String> = experiments::pages()
        .into_iter()
        .filter(catalog::Experiment::built_here)
        .map(|e| e.id())
        .collect();
    Selection::parse(&ids).unwrap()
}

#[test]
fn every_variant_matches_the_baseline_on_every_workload() {
    let mut checked = 0;
    for group in catalog::walk(&built_here()) {
        for mut case in group.unwrap().cases {
            let Expected::Baseline(expected) = &case.expected else {
                panic!("{}: the walk expects the baseline's output", case.id)
            };
            assert!(!expected.is_empty(), "{}: no output", case.id);
            // Twice: a runner must give the same output on every run (steady state).
            for round in 0..2 {
                let check = case.verify().check;
                let ok =
                    check == Check::Pass || (case.role == Role::Peer && check == Check::Equivalent);
                assert!(ok, "{} round {round}: {check}", case.id);
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} cases checked");
}

#[test]
fn workloads_are_deterministic() {
    for exp in built_here().experiments() {
        let a = exp.def.load(&|_, _| true, true).unwrap();
        let b = exp.def.load(&|_, _| true, true).unwrap();
        assert_eq!(a.workloads, b.workloads, "{}", exp.id());
        for (ca, cb) in a.cases.iter().zip(&b.cases) {
            assert_eq!(
                ca.expected,
                cb.expected,
                "{}/{}",
                exp.id(),
                ca.workload.name
            );
        }
    }
}

fn well_formed(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[test]
fn ladders_and_names_are_well_formed() {
    let mut ids = HashSet::new();
    for exp in experiments::pages() {
        let id = exp.id();
        assert!(
            well_formed(&id) && ids.insert(id.clone()),
            "experiment id {id}"
        );
        let variants = exp.def.variants();
        assert_eq!(
            variants[0].role,
            Role::Baseline,
            "{id}: the ladder starts with the baseline"
        );
        assert!(
            variants.iter().any(|v| v.role == Role::Optimized),
            "{id}: no optimized variant"
        );
        let mut names = HashSet::new();
        for v in &variants {
            assert!(
                well_formed(&v.name) && names.insert(v.name.clone()),
                "{id}: variant {}",
                v.name
            );
        }
    }
}

#[test]
fn every_variant_applies_to_some_workload_and_the_headline_exists() {
    let have_data = wirelab_bench::data::shared_data().unwrap().is_some();
    for exp in built_here().experiments() {
        let id = exp.id();
        let loaded = exp.def.load(&|_, _| true, false).unwrap();
        if loaded.workloads.is_empty() {
            eprintln!("skipped: {id} (its workloads need the shared data)");
            continue;
        }
        let names: Vec<&str> = loaded.workloads.iter().map(|w| w.name.as_str()).collect();
        if have_data {
            assert!(
                names.contains(&exp.meta().headline),
                "{id}: headline workload"
            );
            for o in exp.meta().originals {
                assert!(
                    names.contains(&o.workload),
                    "{id}: original for {}",
                    o.workload
                );
            }
            // A typo in a scaling axis would silently drop a point from its chart.
            for s in exp.meta().scaling {
                for (w, size) in s.sizes {
                    assert!(
                        names.contains(w) && *size > 0.0,
                        "{id}: scaling `{}` names unknown workload {w}",
                        s.name
                    );
                }
            }
        } else {
            eprintln!(
                "skipped: {id}'s headline and originals (some workloads need the shared data)"
            );
        }
        for w in &loaded.workloads {
            assert!(
                well_formed(&w.name) && w.ops > 0,
                "{id}: workload {}",
                w.name
            );
        }
        for v in exp.def.variants() {
            assert!(
                loaded.cases.iter().any(|c| c.variant.name == v.name),
                "{id}: variant {} applies to no workload",
                v.name
            );
        }
    }
}

#[test]
fn case_ids_are_unique() {
    let mut seen = HashSet::new();
    for group in catalog::walk(&built_here()) {
        for case in group.unwrap().cases {
            assert!(
                seen.insert(case.id.to_string()),
                "two cases share the id {}",
                case.id
            );
        }
    }
    assert!(!seen.is_empty());
}

/// Every `unseeded` cell names a variant of its ladder: a typo would silently hold that
/// variant's counts to the exact check (and drop the report's note).
#[test]
fn unseeded_cells_name_real_variants() {
    for exp in experiments::pages() {
        let variants = exp.def.variants();
        for (variant, why) in exp.meta().unseeded {
            assert!(
                variants.iter().any(|v| v.name == *variant) && !why.is_empty(),
                "{}: unseeded names unknown variant {variant}",
                exp.id()
            );
        }
    }
}

/// Every dispatch point a ladder names is one the lab records (the wirelab crate's kernels and
/// the AVX-512 point), on a variant the ladder has: a typo would silently drop a † mark.
#[test]
fn dispatch_points_name_real_variants_and_points() {
    let mut points: Vec<&str> = wirelab::kernels().into_iter().map(|(p, _)| p).collect();
    points.push(wirelab_bench::records::AVX512_POINT);
    for exp in experiments::pages() {
        let variants = exp.def.variants();
        for (variant, named) in exp.meta().dispatch {
            assert!(
                variants.iter().any(|v| v.name == *variant),
                "{}: dispatch names unknown variant {variant}",
                exp.id()
            );
            for p in *named {
                assert!(
                    points.contains(p),
                    "{}/{variant}: unknown dispatch point `{p}`",
                    exp.id()
                );
            }
        }
    }
}
