//! s32g ("OPEN after session 31" (6), F4's dead-OSS form): a recovery's record
//! (`Rec::RecoveryDecision`, s30d) is not used for a cache stripe row with a column without
//! bytes (`Held::Absent`: its OSS failed after the decision); the rules on the disk decide
//! that row as before the record. Here the recovery was killed inside its running parity
//! rewrite (after the record, `settle-before-block:n`), so the row's parities may be of two
//! versions, and then one OSS dies: one fault, within the tolerance of a 4+2 code.
//!
//! Specification: whichever OSS dies, `get` after it returns the put's bytes and, in the cut
//! write's range, each byte old (zeros) or new; or it fails naming bytes lost. Never a
//! wrong byte. LOSS (a named failure) is counted and printed: a loss of the put's bytes is
//! the dead-OSS form's cost, allowed by this guard, and the number the next step lowers.
//!
//! Scene (s31c's): WCL, 4 KiB unit; a put of 4 KiB (data column 0 of home stripe 0), a
//! write of the next 4 KiB killed at its first block write (plan order), `store ls`
//! killed at `settle-before-block:n` (its recovery), an OSS moved away and `store fail`ed,
//! `get`.

use crate::common;
use common::{
    exaraid, killed_recovery_of_a_cut_cache_write, ok, random_bytes, s, RAID6_4_2_WCL, RS_4_2_WCL,
};
use exaraid_store::torture::SETTLE_BEFORE_BLOCK;

const UNIT_BYTES: usize = 4096;
const OSS_COUNT: usize = 6;
/// Recovery block writes tried: before the record's first parity write (1), between its two
/// (2), after both (3).
const RECOVERY_KILLS: u32 = 3;

fn one_dead_oss_after_a_killed_recovery_never_reads_wrong_bytes(name: &str, init: &[&str]) {
    let (mut runs, mut lost) = (0, Vec::new());
    for n in 1..=RECOVERY_KILLS {
        for dead in 0..OSS_COUNT {
            let tmp = common::fast_tempdir("s32g-dead-oss");
            let dir = tmp.path().join("store");
            let d = s(&dir);
            let old = random_bytes(0x32a0 + n as u64, UNIT_BYTES);
            let new = random_bytes(0x32b0 + n as u64, UNIT_BYTES);
            killed_recovery_of_a_cut_cache_write(d, name, init, (&old, &new), n);
            let recovery_kill = format!("{SETTLE_BEFORE_BLOCK}:{n}");
            assert!(
                common::journal_records(&dir)
                    .iter()
                    .any(|r| r.contains("RecoveryDecision")),
                "{name}: the killed recovery journaled its decision"
            );
            std::fs::rename(dir.join(format!("oss-{dead}")), tmp.path().join("oss-gone")).unwrap();
            ok(&["store", "fail", d, "--oss", &dead.to_string()], b"");
            runs += 1;
            let what = format!("{name}, recovery killed at {recovery_kill}, OSS {dead} dead");
            let got = exaraid(&["store", "get", d, "f"], b"");
            if !got.status.success() {
                let why = String::from_utf8_lossy(&got.stderr).to_string();
                assert!(
                    why.contains("lost") || why.contains("could not tell"),
                    "{what}: get failed without naming a loss: {why}"
                );
                lost.push(format!("{what}: {}", why.trim()));
                continue;
            }
            let got = got.stdout;
            assert_eq!(&got[..UNIT_BYTES], &old[..], "{what}: WRONG put bytes");
            assert!(
                got.len() == UNIT_BYTES || got.len() == 2 * UNIT_BYTES,
                "{what}: {} bytes read",
                got.len()
            );
            let wrong = (got[UNIT_BYTES..].iter().zip(&new))
                .filter(|&(&g, &n)| g != 0 && g != n)
                .count();
            assert_eq!(wrong, 0, "{what}: cut write's bytes neither old nor new");
        }
    }
    println!(
        "{name}: {runs} runs, get failed naming a loss in {}",
        lost.len()
    );
    for l in &lost {
        println!("  {l}");
    }
}

#[test]
fn rs_4_2_a_killed_recovery_then_one_dead_oss_never_reads_wrong_bytes() {
    one_dead_oss_after_a_killed_recovery_never_reads_wrong_bytes("rs 4+2", RS_4_2_WCL);
}

#[test]
fn raid6_4_2_a_killed_recovery_then_one_dead_oss_never_reads_wrong_bytes() {
    one_dead_oss_after_a_killed_recovery_never_reads_wrong_bytes("raid6 4+2", RAID6_4_2_WCL);
}
