//! The published JSON Schemas (reports/schema/): current with the Rust types, and what the lab
//! writes validates against them (the committed pages' data, and a comparison with every
//! optional part filled in).

use wirelab_bench::catalog::CaseId;
use wirelab_bench::compare::{
    self, FunctionDelta, Pair, PairedDesign, PairedWall, Side, WallMethod,
};
use wirelab_bench::experiments;
use wirelab_bench::paths::{committed_data, data_file, reports_dir};
use wirelab_bench::records::{Alloc, CacheSim, Paths, Samples};
use wirelab_bench::schema::{self, SchemaFile};

fn published(name: &str) -> SchemaFile {
    schema::published()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no published schema {name}"))
}

fn validator(name: &str) -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(&published(name).text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{name} is not a schema: {e}"))
}

/// The validation errors of `value`, one line each.
fn errors(v: &jsonschema::Validator, value: &serde_json::Value) -> Vec<String> {
    v.iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn the_committed_schemas_are_current() {
    for s in schema::published() {
        let path = reports_dir().join("schema").join(s.name);
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run `cargo lab report`)", path.display()));
        assert!(
            committed == s.text,
            "reports/schema/{} is stale: run `cargo lab report`",
            s.name
        );
    }
}

#[test]
fn every_committed_data_file_validates() {
    let v = validator("experiment-data.schema.json");
    for exp in experiments::pages() {
        let text = committed_data(&exp.id()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let errs = errors(&v, &value);
        assert!(errs.is_empty(), "{}: {errs:#?}", exp.id());
    }
}

#[test]
fn the_data_schema_rejects_a_wrong_type_and_a_missing_field() {
    let v = validator("experiment-data.schema.json");
    let text = std::fs::read_to_string(data_file("crc")).unwrap();
    let good: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut wrong_type = good.clone();
    let first = wrong_type["cases"].as_object_mut().unwrap().values_mut();
    first.into_iter().next().unwrap()["instructions"] = "many".into();
    assert!(!errors(&v, &wrong_type).is_empty());
    let mut missing = good;
    missing.as_object_mut().unwrap().remove("receipt");
    let errs = errors(&v, &missing);
    assert!(errs.iter().any(|e| e.contains("receipt")), "{errs:?}");
}

/// A comparison with every optional part of a case present: counts, allocations, the cache
/// simulation, a paired wall ratio with its layouts, the functions behind the move and the
/// other kernel path.
fn full_comparison() -> compare::Comparison {
    let side = |ir: u64, ns: f64| {
        let mut s = Side::default();
        let id: CaseId = "crc/frag-64/adaptive".parse().unwrap();
        s.digests.insert(id.clone(), "d".into());
        s.instructions.insert(id.clone(), ir);
        let alloc = Alloc {
            runs: 4,
            blocks: 1,
            bytes: 64,
            peak_bytes: 64,
        };
        s.alloc.insert(id.clone(), alloc);
        let cache = CacheSim {
            l1_misses: 3,
            ll_misses: 1,
            estimated_cycles: ir + 130,
        };
        s.cycles.insert(id.clone(), cache);
        let samples = Samples {
            iters: vec![10.0; 5],
            times_ns: vec![10.0 * ns; 5],
        };
        s.wall.insert(id, vec![samples]);
        s
    };
    let (base, new) = (side(1000, 100.0), side(1100, 110.0));
    let paired = PairedWall {
        design: PairedDesign {
            layouts: 2,
            max_layouts: 10,
            precision: 0.01,
            processes: 3,
            placements: 3,
        },
        cases: [(
            "crc/frag-64/adaptive".parse().unwrap(),
            vec![vec![0.09, 0.1], vec![0.1, 0.11]],
        )]
        .into(),
    };
    let mut cmp = compare::compare("main (abc)", "working tree", &base, &new, Some(&paired));
    let case = &mut cmp.cases[0];
    case.why.push(FunctionDelta {
        function: "wirelab::crc::fold".into(),
        self_ir: Pair {
            base: 600,
            new: 700,
        },
        inclusive: Pair {
            base: 900,
            new: 1000,
        },
    });
    case.other_path = Some(Paths {
        native: "crc: avx512".into(),
        counted: "crc: sse".into(),
    });
    cmp.added.push("crc/new-workload/adaptive".parse().unwrap());
    cmp
}

#[test]
fn a_full_comparison_validates_and_a_broken_one_does_not() {
    let cmp = full_comparison();
    assert!(matches!(
        cmp.wall_method,
        Some(WallMethod::Paired(PairedDesign {
            layouts: 2,
            max_layouts: 10,
            processes: 3,
            placements: 3,
            ..
        }))
    ));
    let value = serde_json::to_value(&cmp).unwrap();
    for part in [
        "instructions",
        "alloc",
        "cycles",
        "wall",
        "why",
        "other_path",
    ] {
        assert!(
            value["cases"][0].get(part).is_some(),
            "{part} missing: {value}"
        );
    }
    let v = validator("comparison.schema.json");
    let errs = errors(&v, &value);
    assert!(errs.is_empty(), "{errs:#?}");
    let mut broken = value;
    broken["cases"][0]["wall"]["layouts"] = serde_json::json!(["fast"]);
    assert!(!errors(&v, &broken).is_empty());
}
