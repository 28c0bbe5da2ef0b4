//! Session 47 (s47d), review r46c LOW-3: `scrub --repair` rewrites a stale column the home
//! witness located (s46c's `witness_pick`: the parity equations could not tell, and the one
//! rebuild from a subset of the survivors that matches the witness's pieces changed it),
//! and its report line said "the only column whose rebuild satisfies every parity
//! equation": evidence the repair did not have (the equations located no column, or the
//! wrong one). An operator reading the report must be told which evidence chose the column
//! it rewrote; where the equations did locate it, the line stays as it was.

use crate::common;
use crate::r45c_review::lose_on;
use crate::s44b_lost_home_write::{WRITE_AT, WRITE_BYTES};
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::Store;

const BY_EQUATIONS: &str = "satisfies every parity equation";
const BY_WITNESS: &str = "located by the home witness";

/// raid6 4+2 at `dir`: the `stale` columns (`0`: the written data column, `1`: P) lost one
/// acknowledged write; `scrub --repair`; every block then reads right, nothing lost on
/// record. Returns the repair's `stale_repaired` lines.
fn stale_then_repair(dir: &std::path::Path, stale: &'static [usize]) -> Vec<String> {
    let (acked, _) = lose_on(
        dir,
        CodeSpec::raid6(4),
        6,
        WRITE_AT,
        WRITE_BYTES,
        move |s, id| {
            let cols = [
                s.layout().locate(id, WRITE_AT as u64).oss,
                s.layout().parity_oss(id, 0)[0],
            ];
            stale.iter().map(|&c| cols[c]).collect()
        },
    );
    let store = Store::open(dir).unwrap();
    let report = store.scrub(true).unwrap();
    let got = store.read("f", 0, acked.len() as u64).unwrap();
    assert!(got == acked, "the repair left every byte right");
    assert!(store.status().unwrap().lost_ranges.is_empty());
    store.close().unwrap();
    report.stale_repaired
}

/// The data column and P lost the write, Q holds it: the equations cannot tell (raid6 with
/// two stale columns), the witness picks the rebuild from Q and P is rewritten. Its line
/// names the witness, not the equations. On c092d8a5: "the only column whose rebuild
/// satisfies every parity equation".
#[test]
fn s47d_raid6_repair_of_a_parity_the_witness_located_says_so() {
    let tmp = scratch();
    let lines = stale_then_repair(&tmp.path().join("store"), &[0, 1]);
    eprintln!("{lines:#?}");
    let parity: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("parity element"))
        .collect();
    assert!(!parity.is_empty(), "the stale P rewritten: {lines:#?}");
    for line in parity {
        assert!(line.contains(BY_WITNESS), "names the witness: {line}");
        assert!(!line.contains(BY_EQUATIONS), "not the equations: {line}");
    }
}

/// P alone lost the write: the equations locate it (the witness had no say: every data
/// block matches its piece). Its line names the equations, as before.
#[test]
fn s47d_raid6_repair_of_a_parity_the_equations_located_says_so() {
    let tmp = scratch();
    let lines = stale_then_repair(&tmp.path().join("store"), &[1]);
    eprintln!("{lines:#?}");
    assert!(!lines.is_empty(), "the stale P rewritten");
    for line in &lines {
        assert!(line.contains(BY_EQUATIONS), "names the equations: {line}");
        assert!(!line.contains(BY_WITNESS), "not the witness: {line}");
    }
}
