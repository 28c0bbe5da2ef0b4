//! A crash ALONE (no failed OSS, no rot) that catches a small write's per-OSS threads each
//! between a block's payload and its checksum: the data block and every parity block torn
//! at once (session 29, s29a). The row then has more suspect columns than the code decodes,
//! and recovery recorded the written block LOST though the write journaled the crc of that
//! whole new block (its edge-block crc) and the payload on disk matched it. Deterministic:
//! plan order with every OSS torn from the first block write on
//! (`torture::KILL_TEAR_EVERY_OSS_ENV`), where the threads' own order reaches that state
//! only by chance (the CI of 8aa0b29 met it beside a failed OSS). Not raid6: its small
//! write's plan writes the data block in a wave before the parity blocks, so no kill
//! catches the three at once.

use crate::common;

use common::{bytes, fast_tempdir, killed_at_with, ok, s};
use exaraid_store::torture::{KILL_IN_PLAN_ORDER_ENV, KILL_TEAR_EVERY_OSS_ENV, WRITE_TORN_BLOCK};

const FILE_BYTES: usize = 64 * 1024;
/// Inside the file's 13th 4 KiB block, away from its edges: the write covers part of one
/// data block, so that block's bytes beside it are acknowledged ones.
const WRITE_OFFSET_BYTES: u64 = 12 * 4096 + 1000;
const WRITE_BYTES: usize = 100;

fn torn_at_once_keeps_every_acknowledged_byte(code: &[&str]) {
    let tmp = fast_tempdir("exaraid-crash-alone-torn");
    let dir = tmp.path().join("store");
    common::init_store(s(&dir), code);
    let old = bytes(3, FILE_BYTES);
    ok(&["store", "put", s(&dir), "c"], &old);
    let new = bytes(7, WRITE_BYTES);
    let offset = WRITE_OFFSET_BYTES.to_string();
    let args = ["store", "write", s(&dir), "c", "--offset", &offset];
    let point = format!("{WRITE_TORN_BLOCK}:1");
    let envs = [KILL_IN_PLAN_ORDER_ENV, KILL_TEAR_EVERY_OSS_ENV];
    assert!(
        killed_at_with(&args, &new, &point, &envs),
        "{code:?}: the write finished unkilled"
    );
    let out = common::exaraid(&["store", "get", s(&dir), "c"], b"");
    assert!(
        out.status.success(),
        "{code:?}, a crash alone tore the data and parity blocks at once: get fails: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = out.stdout;
    assert_eq!(got.len(), old.len(), "{code:?}: size");
    let (a, z) = (
        WRITE_OFFSET_BYTES as usize,
        WRITE_OFFSET_BYTES as usize + WRITE_BYTES,
    );
    for (i, (&g, &m)) in got.iter().zip(&old).enumerate() {
        let in_write = (a..z).contains(&i);
        assert!(
            g == m || (in_write && g == new[i - a]),
            "{code:?}: byte {i} is {g}, acknowledged {m}"
        );
    }
    // The open settled the crash: the stripe's parity agrees with its data again.
    ok(&["store", "scrub", s(&dir)], b"");
}

#[test]
fn a_raid5_write_torn_in_its_data_and_parity_blocks_at_once_by_a_crash_alone_keeps_every_acknowledged_byte(
) {
    torn_at_once_keeps_every_acknowledged_byte(&["--oss", "4", "--code", "raid5"]);
}

#[test]
fn an_rs_4_2_write_torn_in_its_data_and_both_parity_blocks_at_once_by_a_crash_alone_keeps_every_acknowledged_byte(
) {
    torn_at_once_keeps_every_acknowledged_byte(&[
        "--oss", "6", "--code", "rs", "--k", "4", "--m", "2",
    ]);
}
