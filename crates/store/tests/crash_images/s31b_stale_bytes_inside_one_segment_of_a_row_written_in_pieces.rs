//! s31b (review of session 30's merge, F2, suspected WRONG BYTES): in a row with a running
//! parity block written in pieces (`Partial`), `version_check_in_pieces` counts a version
//! as checked where ANY one segment is; a segment erasing exactly the tolerance with
//! nothing told is decoded without redundancy. The suspicion: a stale element whose stale
//! bytes lie only inside such a segment goes home with success.
//!
//! The scene is s30c's (`s30c_stale_beside_xcode_parity_written_in_pieces.rs`: WCL xcode
//! p=5, a write from data element 4's byte 3000 to element 5's byte 1000, both on diagonal
//! parity cell (3,2), whose block row 0 then takes two delta runs, 0..1000 and 3000..4096,
//! one block write each), at 16 KiB elements, with the earlier write the stale OSS loses
//! only inside one segment of block row 0 of data element 1 (cell (0,1), on the
//! anti-diagonal (4,3) of element 5's run): before the first piece's end, between the two
//! pieces, after the second piece's start. Cut by a power cut before every mutating call,
//! plan order: after the next open and a settle every acknowledged block reads its bytes
//! or is named LOST on record, none outside the stale cache stripe is lost, and the stale
//! element never reads its stale bytes with success.

use crate::stale_cut;
use stale_cut::*;

use exaraid_codes::{Code, CodeKind, CodeSpec, Pos};

const ELEMENT_BYTES: usize = 16 * 1024;

/// The write under test: element 4 from byte 3000 to element 5's byte 1000.
const CUT_WRITE: std::ops::Range<usize> = 4 * ELEMENT_BYTES + 3000..5 * ELEMENT_BYTES + 1000;

/// The scene's problems (each printed) with the lost write over element 1's bytes
/// `stale_bytes` (offsets inside the element).
fn problems(stale_bytes: std::ops::Range<usize>) -> Vec<String> {
    let code = CodeSpec::array(CodeKind::Xcode, 5);
    // The scene as the header says it (checked, not assumed).
    let g = Code::new(code).unwrap().geometry().clone();
    assert_eq!(g.data_pos[1], Pos { row: 0, col: 1 });
    assert_eq!(g.data_pos[4], Pos { row: 0, col: 4 });
    assert_eq!(g.data_pos[5], Pos { row: 1, col: 0 });
    let terms_of = |cell: Pos| -> Vec<usize> {
        let q = g.parity_pos.iter().position(|&p| p == cell).unwrap();
        g.parity_terms[q].iter().map(|t| t.data).collect()
    };
    let shared = terms_of(Pos { row: 3, col: 2 });
    assert!(shared.contains(&4) && shared.contains(&5));
    let anti = terms_of(Pos { row: 4, col: 3 });
    assert!(anti.contains(&1) && anti.contains(&5));
    assert!(stale_bytes.end <= 4096, "inside block row 0");
    stale_bytes_problems_in_plan_order(code, ELEMENT_BYTES, stale_bytes, CUT_WRITE)
}

#[test]
fn xcode_16k_stale_bytes_only_before_the_first_piece_end_never_read_after_a_power_cut() {
    let found = problems(100..900);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}

#[test]
fn xcode_16k_stale_bytes_only_between_the_pieces_never_read_after_a_power_cut() {
    let found = problems(1200..2800);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}

#[test]
fn xcode_16k_stale_bytes_only_after_the_second_piece_start_never_read_after_a_power_cut() {
    let found = problems(3100..4000);
    assert!(found.is_empty(), "{} problem(s)", found.len());
}
