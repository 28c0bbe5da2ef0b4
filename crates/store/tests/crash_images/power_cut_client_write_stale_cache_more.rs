//! Sequels of power_cut_client_write_stale_cache.rs (session 21, s21b): the same scene (a
//! stale WCL cache element, a client write into another column of its cache stripe cut by
//! a power cut at every point) on every array code, and with an OSS holding acknowledged
//! cached bytes of that cache stripe dead after the power cut (a failed column, which
//! s20a's check beside a cut write skips).
//!
//! Root cause of the array codes' WRONG BYTES (hcode "power cut before mutating call 9 ...
//! 'f' WRONG byte 4096: 0xda, acknowledged 0xf8"): s20a's check (`stale_beside_cut`) ran on
//! one-row codes only. Run on an array code it still passed the stale element: a world (each
//! in-flight block's version, where the power cut dropped the write's crcs) is checked with
//! the columns of its unknown blocks erased, and on an array code a column holds several
//! positions: the stale data column also holds the cut write's anti-diagonal parity, so the
//! world where that parity block is new erased the stale column whole, its decode fit, and
//! the stale bytes on disk beside it were never compared. Fixed: every known position is
//! compared with the decode, also in an erased column, and a stale column that holds only a
//! running parity block of the write (rewritten from the data after the check) is located.
//! xcode, rdp, evenodd, dcode and hdp ran under the one-row guard before (unchecked).
//!
//! The dead column scenes (s21g): WRONG BYTES on raid6, rs 4+3 and hcode ("power cut before
//! mutating call 0 ... 'f' WRONG byte 4096: 0xda, acknowledged 0xf8"): the settle's check of
//! the cache stripe (`read_and_check_cache_stripe`) returned unchecked as soon as one chunk's
//! OSS was out of service, and recovery's check beside a cut write (`stale_beside_cut`)
//! skipped a row with a column without bytes. Fixed: that column is an erasure of both
//! checks. Why erasing alone lost proven bytes in wcl_dead_disk_beside_cut_write*.rs:
//! `decide_cache_stripe` leaves the running parity of a row with a column without bytes as
//! it was (`row_unknown`, it proves that column by its own means), so the settle's check
//! found those rows disagreeing and recorded them lost; the settle now leaves exactly those
//! blocks to recovery (`InFlight::cache_decided`).
//!
//! Fixed in session 22 (s22a): raid6 read WRONG BYTES at a power cut before mutating call 11
//! where the cut write's unsynced writes of one OSS were dropped ('f' byte 0, the dead
//! column), hcode at call 10 (byte 4096, the stale column). There the write's crcs told
//! every block's version and each version had as many erased columns as the code
//! tolerates (the dead column and the write's block of the other version), so no world
//! was checked and the row was taken as it stood (`stale_beside_cut`: "decided as
//! before"): raid6's `confirm_by_versions` then proved the dead column from the k blocks
//! of the old version, through the stale one; hcode moved the stale element home. Now one
//! version's decode of the calm columns (the dead one) is carried into the other, whose
//! erased blocks the crcs tell: the stale column makes that fail, and the row, not
//! located, is recorded LOST (`cross_version_check`).
//!
//! Specification (as the original): after the next open and a settle, every acknowledged
//! block reads its bytes or is named LOST on record (none outside the stale cache stripe),
//! and the stale element's block never reads the stale bytes with success.

use crate::stale_cut;
use stale_cut::*;

use exaraid_codes::{CodeKind, CodeSpec};

fn array(kind: CodeKind) -> CodeSpec {
    CodeSpec::array(kind, 5)
}

fn checked(code: CodeSpec, failed_data: Option<usize>) {
    assert!(power_cut_client_write_beside_stale_cache(Scene { code, failed_data }) > 1);
}

#[test]
fn xcode_a_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    checked(array(CodeKind::Xcode), None);
}

#[test]
fn rdp_a_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    checked(array(CodeKind::Rdp), None);
}

#[test]
fn evenodd_dcode_hdp_a_cut_client_write_beside_a_stale_cache_element_leaves_it_checked() {
    for kind in [CodeKind::Evenodd, CodeKind::Dcode, CodeKind::Hdp] {
        checked(array(kind), None);
    }
}

#[test]
fn raid6_a_cut_client_write_beside_a_stale_cache_element_and_a_dead_column_leaves_it_checked() {
    checked(CodeSpec::raid6(4), Some(0));
}

#[test]
fn rs_4_3_a_cut_client_write_beside_a_stale_cache_element_and_a_dead_column_leaves_it_checked() {
    checked(CodeSpec::rs(4, 3), Some(0));
}

#[test]
fn hcode_a_cut_client_write_beside_a_stale_cache_element_and_a_dead_column_leaves_it_checked() {
    checked(array(CodeKind::Hcode), Some(0));
}
