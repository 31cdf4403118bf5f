//! A case's instruction and allocation counts do not depend on what else is measured with it:
//! a few cases of two experiments measured alone, and as a group of a few, give the counts the
//! whole experiments give. Needs valgrind and the instruction-count build (minutes the first
//! time): ignored by `cargo test`; `.ci/run` runs it after `cargo lab check` has built the
//! harness (`cargo test -p wirelab-lab --test counts_independent -- --ignored`).

use std::collections::BTreeMap;
use std::process::Command;
use wirelab_bench::records::{Alloc, Metric, read_json};

/// The experiments measured whole, and the cases measured alone (among them the one whose
/// count moved most with the selection before: hpack-decode/browser-raw/naive, +12.9 %).
const WHOLE: [&str; 2] = ["huffman-encode", "hpack-decode"];
const ALONE: [&str; 4] = [
    "hpack-decode/browser-raw/naive",
    "hpack-decode/browser-huffman/optimized",
    "huffman-encode/user-agent/optimized",
    "huffman-encode/all-octets/naive",
];

type Counts = BTreeMap<String, (u64, (u64, u64))>;

/// Counts `selection` with the lab (instructions and allocations, no wall time, reports/ left
/// alone) and returns every case's instructions and (blocks, bytes).
fn counts(selection: &[&str]) -> Counts {
    let status = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["bench", "--metrics", "icount,alloc", "--no-report"])
        .args(selection)
        .env_remove("WIRELAB_INPUTS")
        .status()
        .unwrap();
    assert!(status.success(), "lab bench {selection:?} failed");
    let mut out = Counts::new();
    for exp in WHOLE {
        let Ok(icount) = read_json::<BTreeMap<String, u64>>(&Metric::Instructions.file(exp)) else {
            continue;
        };
        let alloc: BTreeMap<String, Alloc> = read_json(&Metric::Alloc.file(exp)).unwrap();
        // Files of an experiment this call did not select are left from an earlier call.
        for (case, ir) in icount
            .into_iter()
            .filter(|(c, _)| selection.iter().any(|s| c.starts_with(s)))
        {
            let a = alloc[&case];
            out.insert(case, (ir, (a.blocks, a.bytes)));
        }
    }
    out
}

#[test]
#[ignore = "needs valgrind and the instruction-count build; .ci/run runs it after lab check"]
fn counts_do_not_depend_on_the_selection() {
    let whole = counts(&WHOLE);
    assert!(whole.len() > 8, "the whole experiments measured: {whole:?}");
    for case in ALONE {
        let alone = counts(&[case]);
        assert_eq!(alone.len(), 1, "{case} alone: {alone:?}");
        assert_eq!(
            alone[case], whole[case],
            "{case}: alone vs in its whole experiment"
        );
    }
    let group = counts(&ALONE);
    for case in ALONE {
        assert_eq!(
            group[case], whole[case],
            "{case}: in a group of four vs whole"
        );
    }
}
