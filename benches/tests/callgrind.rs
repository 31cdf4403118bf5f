//! Reading callgrind profiles: self and inclusive costs per function with callgrind's name
//! compression, the functions behind a moved count, folded stacks and flamegraphs; and a real
//! profile the instruction-count harness kept (huffman-encode/user-agent/naive).

use wirelab_bench::callgrind::{self, Cost, Profile};

/// `outer` calls `inner` twice (through compressed names) and `leaf` once; `inner` calls
/// `leaf`; `outer` calls itself once (recursion counted once in its inclusive cost).
const SMALL: &str = "\
# callgrind format
version: 1
positions: line
events: Ir Dr

fn=(1) outer
10 5 1
cfn=(2) inner
calls=2 20
11 130 4
cfn=(3) leaf
calls=1 30
+1 7
cfn=(1)
calls=1 10
12 9
fn=(2)
20 100 2
cfn=(3)
calls=1 30
21 30
fn=(3)
30 37
jump=1 31
31
totals: 172
";

fn small() -> Profile {
    Profile::parse(SMALL).unwrap()
}

#[test]
fn self_and_inclusive_costs() {
    let p = small();
    let cost = |f: &str| p.functions[f];
    assert_eq!(
        cost("outer"),
        Cost {
            self_ir: 5,
            inclusive: 5 + 130 + 7
        }
    );
    assert_eq!(
        cost("inner"),
        Cost {
            self_ir: 100,
            inclusive: 130
        }
    );
    assert_eq!(
        cost("leaf"),
        Cost {
            self_ir: 37,
            inclusive: 37
        }
    );
    assert_eq!(p.total(), 142);
    assert_eq!(p.calls["outer"]["inner"], 130);
    let top: Vec<&str> = p.top_by_self(2).into_iter().map(|(f, _)| f).collect();
    assert_eq!(top, ["inner", "leaf"]);
}

#[test]
fn malformed_profiles_are_errors() {
    assert!(
        Profile::parse("events: Dr\nfn=a\n1 2\n")
            .unwrap_err()
            .contains("no Ir")
    );
    let bad = Profile::parse("events: Ir\nfn=a\n1 x2\n").unwrap_err();
    assert!(bad.contains("line 3") && bad.contains("x2"), "{bad}");
    assert!(
        Profile::parse("fn=a\n1 2\n").is_err(),
        "a cost before events:"
    );
}

#[test]
fn why_names_the_function_that_grew_first() {
    let base = small();
    let slower = SMALL
        .replace("20 100 2", "20 160 2")
        .replace("11 130 4", "11 190 4");
    let new = Profile::parse(&slower).unwrap();
    let why = callgrind::why(&base, &new, 5);
    assert_eq!(why[0].function, "inner");
    assert_eq!((why[0].self_ir.base, why[0].self_ir.new), (100, 160));
    assert_eq!((why[0].inclusive.base, why[0].inclusive.new), (130, 190));
    // outer holds the whole run in both: its inclusive change is the total's, not named.
    assert!(why.iter().all(|d| d.function != "outer"), "{why:?}");
    assert!(
        why.iter().all(|d| d.function != "leaf"),
        "leaf did not move"
    );
    // leaf grows inside inner: leaf by its self cost first, then inner by its inclusive cost.
    let deeper = SMALL
        .replace("30 37", "30 57")
        .replace("21 30", "21 50")
        .replace("11 130 4", "11 150 4");
    let why = callgrind::why(&base, &Profile::parse(&deeper).unwrap(), 5);
    let named: Vec<&str> = why.iter().map(|d| d.function.as_str()).collect();
    assert_eq!(named, ["leaf", "inner"]);
    assert_eq!((why[1].self_ir.base, why[1].self_ir.new), (100, 100));
    assert_eq!((why[1].inclusive.base, why[1].inclusive.new), (130, 150));
    assert!(callgrind::why(&base, &base, 5).is_empty());
}

#[test]
fn folded_stacks_add_up_and_draw() {
    let p = small();
    let folded = p.folded("outer");
    let sum: u64 = folded
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, p.functions["outer"].inclusive);
    assert!(
        folded.contains(&"outer;inner;leaf 30".to_owned()),
        "{folded:?}"
    );
    let svg = callgrind::flamegraph("small", &folded).unwrap();
    assert!(svg.starts_with("<?xml") && svg.contains("inner"));
    let slower = Profile::parse(&SMALL.replace("20 100 2", "20 160 2")).unwrap();
    let diff = callgrind::differential_flamegraph("diff", "outer", &p, &slower).unwrap();
    // inferno colours a frame that grew in red: rgb(255,...).
    assert!(diff.contains("rgb(255,"), "a red frame");
}

#[test]
fn a_kept_profile_of_the_harness() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/callgrind/huffman-encode-user-agent-naive.out"
    ))
    .unwrap();
    let p = Profile::parse(&text).unwrap();
    let measured = p.functions[callgrind::MEASURED];
    assert_eq!(
        measured.inclusive,
        p.total(),
        "the measured function holds every instruction"
    );
    let (top, cost) = p.top_by_self(1)[0];
    assert_eq!(top, "wirelab_baselines::hpack::huffman::encode_chars");
    assert!(
        cost.self_ir * 2 > p.total(),
        "the naive twin's char-by-char encoder dominates"
    );
    let sum: u64 = p
        .folded(callgrind::MEASURED)
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
        .sum();
    assert!(
        sum.abs_diff(p.total()) <= p.total() / 100,
        "{sum} vs {}",
        p.total()
    );
}
