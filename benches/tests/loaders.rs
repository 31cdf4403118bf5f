//! Loading a workload is fallible: a truncated or malformed data file is a typed error naming
//! the file and what is wrong, never a panic.

use std::path::Path;
use wirelab_bench::experiments::common::stories;

const GOOD: &str = r#"{"cases":[{"seqno":0,"wire":"8286","headers":[{":method":"GET"},{":scheme":"http"}]},{"seqno":1,"header_table_size":256,"headers":[{"a":"b"}]}]}"#;

#[test]
fn a_story_parses() {
    let story = stories::parse(Path::new("s.json"), GOOD.as_bytes()).unwrap();
    assert_eq!(story.cases.len(), 2);
    assert_eq!(story.cases[0].wire, [0x82, 0x86]);
    assert_eq!(
        story.cases[0].headers[1],
        (":scheme".to_owned(), "http".to_owned())
    );
    assert_eq!(story.cases[1].table_size, Some(256));
    assert!(story.cases[1].wire.is_empty());
}

#[test]
fn a_truncated_story_names_the_file() {
    for cut in [1, GOOD.len() / 3, GOOD.len() / 2, GOOD.len() - 1] {
        let e =
            stories::parse(Path::new("dir/story_07.json"), &GOOD.as_bytes()[..cut]).unwrap_err();
        assert_eq!(e.path, Path::new("dir/story_07.json"));
        assert!(e.to_string().starts_with("dir/story_07.json: "), "{e}");
    }
}

#[test]
fn malformed_stories_say_what_is_wrong() {
    let cases = [
        (
            r#"{"cases":[{"wire":"8","headers":[]}]}"#,
            "odd number of hex digits",
        ),
        (r#"{"cases":[{"wire":"zz","headers":[]}]}"#, "not hex"),
        (r#"{"cases":[{"wire":"82"}]}"#, "headers"),
        (
            r#"{"cases":[{"wire":"82","headers":[{"a":1}]}]}"#,
            "expected a string",
        ),
        (r#"{"stories":[]}"#, "cases"),
    ];
    for (text, what) in cases {
        let e = stories::parse(Path::new("x.json"), text.as_bytes()).unwrap_err();
        assert!(e.to_string().contains(what), "{text}: {e}");
    }
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let e = wirelab_bench::data::read(Path::new("/nonexistent/wirelab/file")).unwrap_err();
    assert!(
        e.to_string().starts_with("/nonexistent/wirelab/file: "),
        "{e}"
    );
    let e = wirelab_bench::data::files(Path::new("/nonexistent/wirelab")).unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/wirelab: "), "{e}");
}
