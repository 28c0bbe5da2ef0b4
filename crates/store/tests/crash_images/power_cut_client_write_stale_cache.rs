//! s18a's leftover: recovery's settle skips the stale-cache check (`stale_cache_checks`) on
//! the stripes in `cut_write_stripes`, those a cut CLIENT write wrote home. On WCL a client
//! write never writes home (the planner's WCL plans write the cache zone; only its destages
//! go home, and those are checked since s18a), so no WCL stripe is ever in that set: the
//! check does run on the cache stripe of a cut client write (checked by a print: one check
//! per settled stripe in every image below).
//!
//! The scene (s19f): a WCL cache stripe holds a stale element (its OSS lost a write: old
//! bytes under valid checksums), and a client write into another column of the same cache
//! stripe (it does not complete the stripe: no destage) is cut by a power cut (its input
//! journaled, its plan not durable). Without the cut, the flush's check names the blocks
//! lost on raid5 and corrects them on raid6.
//!
//! Root cause (s20a; was OPEN, WRONG BYTES: raid5 "power cut before mutating call 7 ... 'f'
//! WRONG byte 4096: 0xda, acknowledged 0xf8", raid6 the same at call 9): the cut write put
//! the cache stripe in `decide_cache_stripe`'s hands, and that rewrites the running parity
//! of every row the write touched from the data as it stands, stale element and all; the
//! settle's check then found the row clean and moved the stale bytes home. (s19f's guess,
//! blame taken by the in-flight column inside the check, was not it: the check never saw a
//! disagreement.) Fixed by checking the row before that rewrite (`stale_beside_cut`): each
//! in-flight block is its version before or after the write, told by the write's journaled
//! crcs (or either, where the power cut dropped them); where no such world fits the row,
//! the one column no write touched whose decode makes one fit is corrected (raid6), else the
//! row's acknowledged cached bytes are recorded lost (raid5; raid6 where the dropped crcs
//! leave the blame unplaced).
//!
//! Array codes (was OPEN after session 20; fixed in session 21, s21b). hcode: "power cut
//! before mutating call 9 ... 'f' WRONG byte 4096: 0xda, acknowledged 0xf8". The row check
//! ran on one-row codes only, and run on an array code it still let the stale element
//! through: where the power cut dropped the write's crcs, a world is checked with the
//! columns of its unknown blocks erased, and hcode's stale data column also holds the cut
//! write's anti-diagonal parity, so the world where that parity block is new erased the
//! stale column whole and fit, its stale bytes never compared. Now every known position is
//! compared with the decode, erased column or not, and a column whose only in-flight block
//! is running parity may be located (more codes, and a failed column beside the scene:
//! power_cut_client_write_stale_cache_more.rs).
//!
//! Specification: after the next open and a settle (the open's recovery, or `flush` where
//! no plan was cut), the stale element's block reads its acknowledged bytes or is named
//! LOST on record, never the stale bytes with success.

use crate::stale_cut;
use stale_cut::*;

use exaraid_codes::CodeSpec;

fn power_cut_client_write_beside_stale_cache(code: CodeSpec) -> usize {
    stale_cut::power_cut_client_write_beside_stale_cache(Scene {
        code,
        failed_data: None,
    })
}

#[test]
fn raid5_a_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    assert!(power_cut_client_write_beside_stale_cache(CodeSpec::raid5(4)) > 1);
}

#[test]
fn raid6_a_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    assert!(power_cut_client_write_beside_stale_cache(CodeSpec::raid6(4)) > 1);
}

#[test]
fn rs_4_3_a_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    assert!(power_cut_client_write_beside_stale_cache(CodeSpec::rs(4, 3)) > 1);
}

#[test]
fn hcode_a_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    let hcode = CodeSpec::array(exaraid_codes::CodeKind::Hcode, 5);
    assert!(power_cut_client_write_beside_stale_cache(hcode) > 1);
}
