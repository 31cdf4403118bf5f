//! The catalog is a test: every variant agrees with the baseline on every workload, workloads
//! are deterministic, and the names are usable as file names.

use wirelab_bench::catalog::{self, Check, Role};
use wirelab_bench::experiments::ALL;

#[test]
fn every_variant_matches_the_baseline_on_every_workload() {
    let mut checked = 0;
    for exp in ALL {
        for w in (exp.workloads)() {
            let expected = catalog::expected_output(exp, &w);
            assert!(
                !expected.is_empty(),
                "{}/{} produces no output",
                exp.id,
                w.name
            );
            for v in exp.variants {
                if let Some(mut r) = w.runner(v.name) {
                    // Twice: a runner must give the same output on every run (steady state).
                    for round in 0..2 {
                        let check = w.check(v.role, &catalog::output_of(&mut r), &expected);
                        // Only a peer may produce a different (equivalent) encoding.
                        let ok = check == Check::Pass
                            || (v.role == Role::Peer && check == Check::Equivalent);
                        assert!(
                            ok,
                            "{}/{}/{} round {round}: {check}",
                            exp.id, w.name, v.name
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} cells checked");
}

#[test]
fn a_wrong_variant_is_caught() {
    let exp = wirelab_bench::find("latin1").unwrap();
    let w = &(exp.workloads)()[0];
    let expected = catalog::expected_output(exp, w);
    let mut wrong = expected.clone();
    wrong[0] ^= 1;
    assert!(matches!(
        catalog::compare(&wrong, &expected),
        Check::Mismatch { offset: 0, .. }
    ));
    let mut short = expected.clone();
    short.pop();
    assert!(matches!(
        catalog::compare(&short, &expected),
        Check::Mismatch { .. }
    ));
}

#[test]
fn workloads_are_deterministic() {
    for exp in ALL {
        let a = (exp.workloads)();
        let b = (exp.workloads)();
        assert_eq!(a.len(), b.len());
        for (wa, wb) in a.iter().zip(&b) {
            assert_eq!(wa.name, wb.name);
            assert_eq!(
                catalog::expected_output(exp, wa),
                catalog::expected_output(exp, wb)
            );
        }
    }
}

#[test]
fn ladders_and_names_are_well_formed() {
    let ok = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    let mut ids = std::collections::HashSet::new();
    for exp in ALL {
        assert!(ok(exp.id) && ids.insert(exp.id), "experiment id {}", exp.id);
        assert_eq!(
            exp.variants[0].role,
            Role::Baseline,
            "{}: the ladder starts with the baseline",
            exp.id
        );
        assert!(
            exp.variants.iter().any(|v| v.role == Role::Optimized),
            "{}: no optimized variant",
            exp.id
        );
        let workloads = (exp.workloads)();
        assert!(
            workloads.iter().any(|w| w.name == exp.headline),
            "{}: headline workload",
            exp.id
        );
        for o in exp.originals {
            assert!(
                workloads.iter().any(|w| w.name == o.workload),
                "{}: original for {}",
                exp.id,
                o.workload
            );
        }
        let mut names = std::collections::HashSet::new();
        for v in exp.variants {
            assert!(
                ok(v.name) && names.insert(v.name),
                "{}: variant {}",
                exp.id,
                v.name
            );
        }
        for w in &workloads {
            assert!(
                ok(&w.name) && names.insert(&w.name),
                "{}: workload {}",
                exp.id,
                w.name
            );
            assert!(w.ops > 0);
        }
    }
}

#[test]
fn case_list_covers_every_applicable_cell() {
    let cases = wirelab_bench::cases(ALL);
    for id in &cases {
        let mut r = wirelab_bench::checked_case(id).unwrap();
        let _ = r(&mut catalog::Sink::discard());
    }
    let unique: std::collections::HashSet<String> = cases.iter().map(ToString::to_string).collect();
    assert_eq!(unique.len(), cases.len());
}
