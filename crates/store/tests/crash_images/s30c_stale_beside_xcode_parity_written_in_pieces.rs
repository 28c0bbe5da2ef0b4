//! s30c: s29e's crash-alone LOSS on WCL xcode (a running parity block on the chains of two
//! data blocks of one write, updated in one block write per delta run and cut between them:
//! `Partial`) is fixed by taking such a block as known piece by piece (each piece proven
//! landed by the crc the write journaled for exactly it, the others as they stand), so each
//! version of the row has fewer unknown columns and the row is checked
//! (`crates/cli/tests/cli/s29e_write_before_block.rs`).
//!
//! This is the guard on the other side: knowing more of the row must not let a stale cache
//! element (its OSS lost a write: old bytes under valid checksums) beside the same cut go
//! home. s19f's scene (`common/stale_cut.rs`) on xcode p=5 at 4 KiB, the write under test
//! over data element 4 (cell (0,4)) from byte 3000 to element 5's (cell (1,0)) byte 1000:
//! both on the diagonal parity cell (3,2), whose delta then has two runs in one block, the
//! s29e shape; their anti-diagonal cells (4,1) and (4,3) each take one run. The stale
//! element is data element 1 (cell (0,1)), in the column of (4,1). Cut by a power cut before
//! every mutating call, plan order: after the next open and a settle the stale element's
//! block reads its acknowledged bytes or is named LOST on record, never the stale bytes
//! with success, and nothing outside the stale cache stripe is lost.
//!
//! The `Partial` states (the first block write of (3,2) landed, the second not) come from a
//! crash that keeps every issued write (no unsynced write dropped): those cuts are the
//! guard. One cut that drops OSS 0's unsynced writes read the stale bytes with success on
//! 6b51ed6 and on s30c's branch alone (no `Partial` block there: every block's version
//! told by crcs, no version checkable, "decided as before": s29c's WRONG BYTES (2)); s30a's
//! completable check (merged beside s30c) closes it.

use crate::common;

use crate::stale_cut;
use stale_cut::*;

use common::UNIT;
use exaraid_codes::{Code, CodeKind, CodeSpec, Pos};

/// The write under test: element 4 from byte 3000 to element 5's byte 1000.
const CUT_WRITE: std::ops::Range<usize> = 4 * UNIT + 3000..5 * UNIT + 1000;

/// The scene's problems at the power cuts of `dropped` kind (`true`: some OSS's unsynced
/// writes dropped), each printed.
fn problems(dropped: bool) -> Vec<String> {
    let code = CodeSpec::array(CodeKind::Xcode, 5);
    // The scene as the header says it (checked, not assumed: another data order would
    // make it another scene).
    let g = Code::new(code).unwrap().geometry().clone();
    assert_eq!(g.data_pos[1], Pos { row: 0, col: 1 });
    assert_eq!(g.data_pos[4], Pos { row: 0, col: 4 });
    assert_eq!(g.data_pos[5], Pos { row: 1, col: 0 });
    let shared = g
        .parity_pos
        .iter()
        .position(|&p| p == Pos { row: 3, col: 2 });
    let terms: Vec<usize> = g.parity_terms[shared.unwrap()]
        .iter()
        .map(|t| t.data)
        .collect();
    assert!(terms.contains(&4) && terms.contains(&5));
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    let (checked, problems) = power_cut_client_write_over_beside_stale_cache_problems(
        code,
        (&[], &[]),
        Cuts::All,
        CUT_WRITE,
        true,
    );
    assert!(checked > 1);
    let problems: Vec<String> = (problems.into_iter())
        .filter(|p| p.contains("OSS [] dropped") != dropped)
        .collect();
    for p in &problems {
        eprintln!("PROBLEM {p}");
    }
    problems
}

#[test]
fn xcode_a_stale_cache_element_beside_a_shared_parity_block_written_in_pieces_is_never_read_after_a_crash_alone(
) {
    let found = problems(false);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}

#[test]
fn xcode_a_stale_cache_element_beside_a_shared_parity_block_written_in_pieces_is_never_read_after_a_power_cut(
) {
    let found = problems(true);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}
