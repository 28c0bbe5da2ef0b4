//! Session 19's s19f scene (found by hand, issue #4): a full-stripe rmw write killed
//! between one block's payload and its checksum (a torn block: new bytes under the old
//! checksum), then bit rot in other data columns of the same stripe, more faults in one row
//! than the code tolerates. Recovery cannot decode the row, and nothing proves the rotten
//! blocks' bytes: their checksum fails, and a block the cut write may have reached fails it
//! too. It kept their bytes on disk under a fresh checksum (`compose_stripe`'s last
//! fallback), and `get` exited 0 with the flipped byte. Past the tolerance the right answer
//! is the bytes recorded LOST and named; every byte the record does not name must still
//! read its acknowledged value (or, inside the cut write, its new one).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use exaraid_store::torture::{KILL_AT_ENV, KILL_IN_PLAN_ORDER_ENV, WRITE_TORN_BLOCK};

const UNIT_BYTES: usize = 4096;
/// The stripe the writes rewrite whole: stripe 1.
const STRIPE: u64 = 1;
/// The byte of the first rotten element that flips (element offset); the `j`-th rotten
/// element flips byte `ROT_AT + 37 * j`, bit `j + 2`. Why not all the same byte and bit: two
/// equal flips at one offset cancel in P, and a decode through P then rebuilds the torn
/// block exactly (one fault fewer than the scene means).
const ROT_AT: usize = 100;

/// A data element of stripe `STRIPE` of file `f`: its OSS, its file offset, and where its
/// payload starts in the OSS's data file (slots hold the element and one 4-byte crc per
/// block).
struct Element {
    oss: usize,
    file_offset_bytes: u64,
    path: PathBuf,
    payload_at: usize,
}

fn data_elements(dir: &Path) -> Vec<Element> {
    let store = exaraid_store::Store::open(dir).unwrap();
    let id = store.file_id("f").unwrap();
    let layout = store.layout();
    let g = layout.geometry().clone();
    let mut out = Vec::new();
    for (d, &pos) in g.data_pos.iter().enumerate() {
        let oss = layout.oss_of(id, STRIPE, pos.col);
        let slot = layout.home_addr(STRIPE, pos, 0) / UNIT_BYTES as u64;
        out.push(Element {
            oss,
            file_offset_bytes: layout.file_offset(STRIPE, d, 0),
            path: store.superblock().oss_dirs[oss]
                .join("objects")
                .join(format!("{id}.data")),
            payload_at: slot as usize * (UNIT_BYTES + 4),
        });
    }
    out
}

/// `exaraid store write` killed at the first block write, the plan's steps in plan order:
/// returns the OSS whose block it tore (the kill point names its directory on stderr).
fn write_torn_at_first_block(d: &str, offset: usize, data: &[u8]) -> usize {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "write", d, "f", "--offset", &offset.to_string()])
        .env(KILL_AT_ENV, format!("{WRITE_TORN_BLOCK}:1"))
        .env(KILL_IN_PLAN_ORDER_ENV, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(data).unwrap();
    let out = child.wait_with_output().unwrap();
    use std::os::unix::process::ExitStatusExt;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        Some(9),
        "killed in a block write: {err}"
    );
    let line = err
        .lines()
        .find(|l| l.contains("killed at"))
        .unwrap_or_else(|| panic!("the kill names the torn block: {err}"));
    let at = line.find("/oss-").expect("an OSS directory") + "/oss-".len();
    let digits: String = line[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().unwrap()
}

/// Bit rot: bit `j + 2` of byte `rot_at(j)` of element `e` flips on disk (its checksum stays).
fn flip_bit(e: &Element, j: usize) {
    let mut data = std::fs::read(&e.path).unwrap();
    data[e.payload_at + rot_at(j)] ^= 4 << j;
    std::fs::write(&e.path, &data).unwrap();
}

fn rot_at(j: usize) -> usize {
    ROT_AT + 37 * j
}

fn lost_ranges(d: &str) -> Vec<(u64, u64)> {
    let st: serde_json::Value =
        serde_json::from_slice(&ok(&["store", "status", d, "--json"], b"")).unwrap();
    st["lost_ranges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["file"] == "f")
        .map(|l| {
            let at = l["offset_bytes"].as_u64().unwrap();
            (at, at + l["len_bytes"].as_u64().unwrap())
        })
        .collect()
}

/// The scene on `code` over `oss` OSSs (rmw, 4 KiB unit, so stripe `STRIPE` is `k` blocks,
/// one per data column): `f` holds stripe 0 and an acknowledged write of stripe 1 whole;
/// the same range written again with other bytes is killed tearing its first block; then
/// `rots` other data columns of stripe 1 flip one bit each (with the torn one: one fault
/// more than the code tolerates). `get` must not exit 0 with a flipped byte: the rotten
/// bytes are LOST on record, and everything else reads acknowledged or new.
fn torn_write_and_rot_past_tolerance_is_lost_not_returned(code: &[&str], oss: &str, rots: usize) {
    let tmp = fast_tempdir("s20b-torn-rot");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let mut args = vec!["--oss", oss, "--write-path", "rmw"];
    args.extend_from_slice(code);
    init_store_unit(d, UNIT_BYTES as u64, &args);
    let k = data_elements_count(d);
    let stripe_bytes = k * UNIT_BYTES;
    let at = STRIPE as usize * stripe_bytes;
    let mut acked = bytes(1, stripe_bytes);
    ok(&["store", "put", d, "f"], &acked);
    let second = bytes(2, stripe_bytes);
    ok(
        &["store", "write", d, "f", "--offset", &at.to_string()],
        &second,
    );
    acked.extend_from_slice(&second);
    let elements = data_elements(&dir);

    let third = bytes(3, stripe_bytes);
    let torn = write_torn_at_first_block(d, at, &third);
    let mut cut = acked.clone();
    cut[at..].copy_from_slice(&third);
    assert!(
        elements.iter().any(|e| e.oss == torn),
        "the first block write is a data block"
    );
    let rotten: Vec<&Element> = elements
        .iter()
        .filter(|e| e.oss != torn)
        .take(rots)
        .collect();
    assert_eq!(
        rotten.len(),
        rots,
        "enough data columns beside the torn one"
    );
    for (j, e) in rotten.iter().enumerate() {
        let i = e.file_offset_bytes as usize;
        let on_disk = std::fs::read(&e.path).unwrap();
        assert_eq!(
            on_disk[e.payload_at..e.payload_at + UNIT_BYTES],
            acked[i..i + UNIT_BYTES],
            "OSS {}'s element holds file bytes {i}.. as acknowledged (the kill never reached it)",
            e.oss
        );
        flip_bit(e, j);
    }

    let out = exaraid(&["store", "get", d, "f"], b"");
    if out.status.success() {
        let got = &out.stdout;
        assert_eq!(got.len(), acked.len(), "the file's size");
        for (j, e) in rotten.iter().enumerate() {
            let i = e.file_offset_bytes as usize + rot_at(j);
            assert!(
                got[i] == acked[i] || got[i] == cut[i],
                "byte {i} (rotten on OSS {}) reads {:#04x} with exit 0: neither the \
                 acknowledged {:#04x} nor the cut write's {:#04x}",
                e.oss,
                got[i],
                acked[i],
                cut[i]
            );
        }
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("'f' bytes"),
            "the refusal names the lost bytes: {err}"
        );
    }
    let lost = lost_ranges(d);
    for (j, e) in rotten.iter().enumerate() {
        let i = e.file_offset_bytes + rot_at(j) as u64;
        assert!(
            lost.iter().any(|&(a, z)| a <= i && i < z),
            "status names the rotten byte {i} (OSS {}) lost: {lost:?}",
            e.oss
        );
    }
    assert!(
        lost.iter().all(|&(a, _)| a >= at as u64),
        "nothing of stripe 0 (untouched) is lost: {lost:?}"
    );
    reads_right_outside_its_losses(d, "f", &acked, Some(&cut), "after the torn write and rot");
}

/// Data columns per stripe, from the store's own geometry.
fn data_elements_count(d: &str) -> usize {
    let store = exaraid_store::Store::open(Path::new(d)).unwrap();
    store.layout().geometry().data_count()
}

#[test]
fn raid5_torn_write_beside_one_rotten_column_records_the_rot_lost() {
    torn_write_and_rot_past_tolerance_is_lost_not_returned(&["--code", "raid5"], "4", 1);
}

#[test]
fn raid6_torn_write_beside_two_rotten_columns_records_the_rot_lost() {
    torn_write_and_rot_past_tolerance_is_lost_not_returned(&["--code", "raid6"], "6", 2);
}

#[test]
fn rs_4_2_torn_write_beside_two_rotten_columns_records_the_rot_lost() {
    torn_write_and_rot_past_tolerance_is_lost_not_returned(
        &["--code", "rs", "--k", "4", "--m", "2"],
        "6",
        2,
    );
}
