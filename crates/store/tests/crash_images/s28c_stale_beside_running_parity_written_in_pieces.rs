//! s28c: a WCL client write whose running parity delta has two runs in one block (the tail
//! of data element 2 and the head of element 3 of one cache stripe) updates each parity
//! block in two block writes, each with its checksum; a crash between them leaves a parity
//! block that verifies holding new bytes in one piece and old bytes in the other. Since
//! s28c `stale_beside_cut_write` takes such a block as neither version (`Partial`), told by
//! the write's crcs and by its bytes on disk outside the write, where it took it as either
//! and no world fit the row (its acknowledged cached bytes recorded LOST by a crash alone:
//! `crates/cli/tests/cli/s28c_wcl_running_parity_written_in_pieces.rs`).
//!
//! This is the guard on the other side: the rule must not let a stale cache element (its
//! OSS lost a write: old bytes under valid checksums) beside such a write go home. s19f's
//! scene (`common/stale_cut.rs`) with the write under test over file bytes 2*UNIT+3000 ..
//! 3*UNIT+1000, cut by a power cut before every mutating call: after the next open and a
//! settle the stale element's block reads its acknowledged bytes or is named LOST on record,
//! never the stale bytes with success, and nothing outside the stale cache stripe is lost.
//! Passes on the base too (there the rows with the block in pieces were LOST).

use crate::common;

use crate::stale_cut;
use stale_cut::*;

use common::UNIT;
use exaraid_codes::CodeSpec;

/// The write under test: element 2 from byte 3000 to element 3's byte 1000 (first writes
/// into both, beside elements 0 and 1 acknowledged whole).
const CUT_WRITE: std::ops::Range<usize> = 2 * UNIT + 3000..3 * UNIT + 1000;

/// The power cuts checked. Plans run their steps in plan order (one thread): with one
/// thread per OSS the images, taken before each mutating call in arrival order, varied with
/// the machine's load (s27e).
fn checked(code: CodeSpec) -> usize {
    exaraid_store::torture::run_steps_in_plan_order_in_this_process();
    power_cut_client_write_over_beside_stale_cache(code, (&[], &[]), Cuts::All, CUT_WRITE)
}

#[test]
fn raid6_a_stale_cache_element_beside_a_running_parity_block_written_in_part_is_never_read() {
    assert!(checked(CodeSpec::raid6(4)) > 1);
}

#[test]
fn raid5_a_stale_cache_element_beside_a_running_parity_block_written_in_part_is_never_read() {
    assert!(checked(CodeSpec::raid5(4)) > 1);
}

#[test]
fn rs_4_3_a_stale_cache_element_beside_a_running_parity_block_written_in_part_is_never_read() {
    assert!(checked(CodeSpec::rs(4, 3)) > 1);
}
