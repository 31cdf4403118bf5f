//! Selections: `EXP[/WORKLOAD[/VARIANT]]`, with errors that list the valid names.

use wirelab_bench::catalog;
use wirelab_bench::selection::Selection;

#[test]
fn picks_experiments_workloads_and_variants() {
    let sel = Selection::parse(&[
        "crc/frag-4k",
        "latin1",
        "hpack-encode/browser-default/optimized",
    ])
    .unwrap();
    assert!(sel.wants("crc", "frag-4k", "adaptive"));
    assert!(!sel.wants("crc", "frag-64", "adaptive"));
    assert!(sel.wants("latin1", "chunked", "naive"));
    assert!(sel.wants("hpack-encode", "browser-default", "optimized"));
    assert!(!sel.wants("hpack-encode", "browser-default", "naive"));
    assert!(!sel.wants("block", "per-byte-drop", "locking"));
    let ids: Vec<String> = sel.experiments().iter().map(|e| e.id()).collect();
    assert_eq!(ids, ["latin1", "hpack-encode", "crc"], "catalog order");
    assert_eq!(
        sel.to_string(),
        "crc/frag-4k,latin1,hpack-encode/browser-default/optimized"
    );
    let any_workload = Selection::parse(&["gzip/*/optimized"]).unwrap();
    assert!(any_workload.wants("gzip", "alice29", "optimized"));
    assert!(!any_workload.wants("gzip", "alice29", "naive"));
    assert!(
        Selection::parse::<&str>(&[])
            .unwrap()
            .wants("block", "x", "y")
    );
}

#[test]
fn unknown_names_are_errors_that_list_the_valid_ones() {
    let e = Selection::parse(&["crcc"]).unwrap_err();
    assert!(
        e.contains("unknown experiment `crcc`")
            && e.contains("latin1")
            && e.contains("gzip-zlib-rs"),
        "{e}"
    );
    let e = Selection::parse(&["crc/frag-4k/fast"]).unwrap_err();
    assert!(
        e.contains("unknown variant `fast`") && e.contains("adaptive"),
        "{e}"
    );
    let e = Selection::parse(&["crc/a/b/c"]).unwrap_err();
    assert!(e.contains("EXP[/WORKLOAD[/VARIANT]]"), "{e}");
    let sel = Selection::parse(&["crc/frag-5k"]).unwrap();
    let err = catalog::walk(&sel)
        .next()
        .unwrap()
        .err()
        .expect("unknown workload");
    let e = err.to_string();
    assert!(
        e.contains("unknown workload `frag-5k`") && e.contains("frag-4k"),
        "{e}"
    );
}

#[test]
fn a_page_of_another_backend_is_refused_by_this_build() {
    let sel = Selection::parse(&["inflate-zlib-rs"]).unwrap();
    let e = catalog::walk(&sel)
        .next()
        .unwrap()
        .err()
        .expect("not built here");
    assert!(
        e.to_string().contains("--features wirelab-bench/zlib-rs"),
        "{e}"
    );
}

#[test]
fn a_selection_yields_exactly_its_cases() {
    let sel = Selection::parse(&["crc/frag-4k"]).unwrap();
    let groups: Vec<_> = catalog::walk(&sel).map(Result::unwrap).collect();
    assert_eq!(groups.len(), 1);
    let ids: Vec<String> = groups[0].cases.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(
        ids,
        [
            "crc/frag-4k/copy-then-checksum",
            "crc/frag-4k/per-fragment",
            "crc/frag-4k/adaptive",
            "crc/frag-4k/contiguous"
        ]
    );
}
