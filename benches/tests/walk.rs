//! The walk over a made-up catalog: one small experiment defined here with the catalog's model
//! alone (no registry), walked the way the harnesses walk the real one.

use std::collections::BTreeMap;
use std::rc::Rc;
use wirelab_bench::catalog::{
    self, Backend, Check, Expected, Experiment, Ladder, Meta, Role, Runner, Variant, Workload,
    on_copy,
};
use wirelab_bench::records::Output;
use wirelab_bench::selection::Selection;

/// A workload's input: some octets.
type Octets = Rc<[u8]>;

fn copy(input: &Octets) -> Option<Runner> {
    on_copy(input, |input, sink| {
        sink.emit(input);
        input.len() as u64
    })
}

fn per_byte(input: &Octets) -> Option<Runner> {
    on_copy(input, |input, sink| {
        for b in input.iter() {
            sink.emit(std::slice::from_ref(b));
        }
        input.len() as u64
    })
}

/// Wrong on purpose: the last octet flipped.
fn off_by_one(input: &Octets) -> Option<Runner> {
    let mut input = input.to_vec();
    *input.last_mut()? ^= 1;
    Some(Box::new(move |sink| {
        sink.emit(&input);
        0
    }))
}

/// Applies to long inputs only ("n/a" elsewhere).
fn long_only(input: &Octets) -> Option<Runner> {
    (input.len() > 8).then(|| copy(input)).flatten()
}

fn workloads() -> Result<Vec<Workload<Octets>>, catalog::LoadError> {
    Ok(vec![
        Workload::new("short", "4 octets", 4, 1, Rc::from(&b"abcd"[..])),
        Workload::new("long", "64 octets", 64, 1, (0..64).collect()),
    ])
}

static TOY: Ladder<Octets> = Ladder {
    meta: Meta {
        id: "toy",
        title: "A made-up experiment",
        headline: "long",
        ..Meta::DEFAULT
    },
    variants: &[
        Variant {
            name: "naive",
            role: Role::Baseline,
            about: "per byte",
            build: per_byte,
        },
        Variant {
            name: "copy",
            role: Role::Optimized,
            about: "one emit",
            build: copy,
        },
        Variant {
            name: "long-only",
            role: Role::Peer,
            about: "long inputs",
            build: long_only,
        },
        Variant {
            name: "wrong",
            role: Role::Step,
            about: "flips a bit",
            build: off_by_one,
        },
    ],
    workloads,
};

fn toy() -> Vec<Experiment> {
    vec![Experiment {
        def: &TOY,
        backend: Backend::BUILT,
    }]
}

fn select(args: &[&str]) -> Selection {
    Selection::parse_in(&toy(), args).unwrap()
}

#[test]
fn the_walk_yields_the_selected_applicable_cases_in_catalog_order() {
    let sel = select(&["toy"]);
    let groups: Vec<_> = catalog::walk_pages(toy(), &sel, None).collect();
    assert_eq!(groups.len(), 1);
    let group = groups.into_iter().next().unwrap().unwrap();
    assert_eq!(group.exp.id(), "toy");
    assert_eq!(group.workloads.len(), 2);
    let ids: Vec<String> = group.cases.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(
        ids,
        [
            "toy/short/naive",
            "toy/short/copy",
            "toy/short/wrong",
            "toy/long/naive",
            "toy/long/copy",
            "toy/long/long-only",
            "toy/long/wrong",
        ]
    );
}

#[test]
fn every_case_is_checked_against_the_baseline_and_a_wrong_one_is_refused() {
    let sel = select(&["toy"]);
    let group = catalog::walk_pages(toy(), &sel, None)
        .next()
        .unwrap()
        .unwrap();
    for mut case in group.cases {
        let Expected::Baseline(expected) = &case.expected else {
            panic!("{}: the walk expects the baseline's output", case.id)
        };
        assert!(!expected.is_empty());
        let result = case.verified();
        if case.id.variant == "wrong" {
            let err = result.unwrap_err();
            assert!(err.contains(&case.id.to_string()), "{err}");
            assert!(matches!(case.verify().check, Check::Mismatch { .. }));
        } else {
            assert_eq!(result.unwrap().check, Check::Pass, "{}", case.id);
        }
    }
}

#[test]
fn a_changed_output_is_caught_by_its_digest() {
    let sel = select(&["toy/*/copy"]);
    let mut digests: BTreeMap<String, String> = BTreeMap::new();
    for group in catalog::walk_pages(toy(), &sel, None) {
        for mut case in group.unwrap().cases {
            let v = case.verified().unwrap();
            let digest = Output::of(&v.output, v.result, v.copied).digest;
            digests.insert(case.id.to_string(), digest);
        }
    }
    assert_eq!(digests.len(), 2);
    for group in catalog::walk_pages(toy(), &sel, Some(&digests)) {
        for mut case in group.unwrap().cases {
            assert!(
                case.verified().is_ok(),
                "{}: same output, same digest",
                case.id
            );
            case.expected = Expected::Digest("0".repeat(64));
            assert_eq!(case.verify().check, Check::Changed);
        }
    }
    digests.remove("toy/long/copy");
    let err = catalog::walk_pages(toy(), &sel, Some(&digests))
        .next()
        .unwrap()
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("toy/long/copy: no verified output digest"),
        "{err}"
    );
}

#[test]
fn unknown_names_are_errors_that_list_the_valid_ones() {
    let err = Selection::parse_in(&toy(), &["toy/*/fast"]).unwrap_err();
    assert!(
        err.contains("variants: naive, copy, long-only, wrong"),
        "{err}"
    );
    let err = Selection::parse_in(&toy(), &["latin1"]).unwrap_err();
    assert!(err.contains("experiments: toy"), "{err}");
    let sel = select(&["toy/medium"]);
    let err = catalog::walk_pages(toy(), &sel, None)
        .next()
        .unwrap()
        .err()
        .unwrap();
    assert!(err.to_string().contains("workloads: short, long"), "{err}");
}
