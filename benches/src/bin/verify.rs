//! Verification harness: every case of the selection run once in this build and compared with
//! the baseline (`wirelab_bench::verify`), the tables on stdout, the records under
//! `target/wirelab/verify`. The lab runs it for the pages of the backend it was not built with,
//! a small binary where the lab's own would be a second build of the whole command line.
//!
//! ```text
//! verify [SELECTION...]
//! ```
//!
//! Exit status: 0 every output equals the baseline's, 1 some differ, 2 an error.

use wirelab_bench::selection::Selection;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sel = if args.is_empty() {
        wirelab_bench::selection_from_env()
    } else {
        Selection::parse(&args)
    }
    .unwrap_or_else(|e| error(&e));
    let tally = wirelab_bench::verify::verify_built(&sel).unwrap_or_else(|e| error(&e));
    if tally.failed > 0 {
        eprintln!(
            "verify: {} of {} outputs differ from the baseline",
            tally.failed, tally.checked
        );
        std::process::exit(1);
    }
}

/// Ends the process on an error (status 2: a difference is status 1).
fn error(what: &str) -> ! {
    eprintln!("error: {what}");
    std::process::exit(2)
}
