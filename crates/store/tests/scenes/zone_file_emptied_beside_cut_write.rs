//! Session 20 lead of s20f: an OSS's home zone file emptied (`set_len(0)`) or cut short
//! outside exaraid while a write over it was cut by a kill. An emptied slot reads `Missing`;
//! but the open's recovery reserves room for the stripe it settles first, which fills the
//! slot in with zeros and zero checksums, and it then took the slot's blocks for bytes on
//! disk failing their checksums: at the cut write's offsets it kept those "bytes on disk"
//! (zeros), and `get` returned zeros over acknowledged bytes with success (raid5 and raid6,
//! the column the cut write touched). Beside it, a column the cut write did not touch was
//! rebuilt through columns in flight and taken unproven (its checksum gone "matches
//! anything").
//!
//! Specification (issue #4: nothing acknowledged comes back wrong; what cannot be proven
//! is LOST, named): whatever OSS lost its file, `get` returns the acknowledged bytes exact
//! (the cut write wrote nothing here, so its range keeps the old bytes), nothing recorded
//! lost, `scrub --repair` puts the elements back; or it fails naming the loss, which lies
//! inside the cut write's stripe, every other byte reading exact. Never zeros, never other
//! bytes. Checked on every OSS that holds a data zone file of the file, raid5 3+1 and
//! raid6 4+2 (rmw). The cases that read exact are pinned below so that a change either way
//! is seen.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};
use std::path::Path;

/// Two stripes of the widest code below and then some.
const FILE_BYTES: usize = 40_000;
/// The cut write: inside stripe 0, over column 0 and into column 1.
const CUT: (u64, u64) = (1000, 6000);

#[derive(Clone, Copy, Debug)]
enum Damage {
    Emptied,
    CutShort,
}

fn damage(path: &Path, how: Damage) {
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let len = f.metadata().unwrap().len();
    assert!(len > 0, "{} holds bytes", path.display());
    match how {
        Damage::Emptied => f.set_len(0).unwrap(),
        Damage::CutShort => f.set_len(len / 3).unwrap(),
    }
}

/// Per OSS holding a data zone file of f (in OSS order): whether f read exact (else its
/// loss was named, inside the cut write's stripe).
fn emptied_beside_cut_write(code: CodeSpec, oss_count: usize, how: Damage) -> Vec<(usize, bool)> {
    let tmp = scratch();
    let image = tmp.path().join("image");
    let store = init(&image, code, oss_count, WritePath::Rmw);
    let stripe_bytes = (code.k.expect("a k+m code") * UNIT) as u64;
    let f = pattern(5, FILE_BYTES);
    store.put("f", &f).unwrap();
    let id = store.file_id("f").unwrap();
    store.close().unwrap();
    // A kill right after the write's input was journaled: nothing of it reached the OSSs.
    leave_write_in_flight(&image, "f", CUT.0, CUT.1 - CUT.0);
    assert!(CUT.1 <= stripe_bytes, "the cut write lies in stripe 0");

    let mut outcomes = Vec::new();
    for oss in 0..oss_count {
        let dir = tmp.path().join(format!("oss{oss}"));
        copy_tree(&image, &dir);
        let zone = object_file(&dir, oss, &format!("{id}.data"));
        if !zone.exists() {
            std::fs::remove_dir_all(&dir).unwrap();
            continue;
        }
        damage(&zone, how);
        let what = format!("{code}, OSS {oss}'s data zone file of f {how:?}, a write cut");
        let store = Store::open(&dir).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        match store.get("f") {
            Ok(got) => {
                assert_eq!(got.len(), f.len(), "{what}: size");
                if let Some(i) = (0..f.len()).find(|&i| got[i] != f[i]) {
                    panic!(
                        "{what}: f read wrong bytes with success from byte {i} (zero: {})",
                        got[i] == 0
                    );
                }
                let lost = store.status().unwrap().lost_ranges;
                assert!(lost.is_empty(), "{what}: recorded lost: {lost:?}");
                let report = store.scrub(true).unwrap();
                assert!(
                    report.unrepairable.is_empty(),
                    "{what}: scrub --repair: {report:?}"
                );
                assert!(store.get("f").unwrap() == f, "{what}: after scrub --repair");
                assert_consistent(&store);
                outcomes.push((oss, true));
            }
            Err(e) => {
                assert!(
                    matches!(e, StoreError::DataLost(_)) && e.to_string().contains("'f'"),
                    "{what}: a failed read names the loss: {e}"
                );
                let lost = store.status().unwrap().lost_ranges;
                assert!(!lost.is_empty(), "{what}: the loss is on record");
                for l in &lost {
                    assert!(
                        l.file == "f" && l.offset_bytes + l.len_bytes <= stripe_bytes,
                        "{what}: only bytes of the cut write's stripe are lost: {l:?}"
                    );
                }
                let rest = store
                    .read("f", stripe_bytes, FILE_BYTES as u64 - stripe_bytes)
                    .unwrap_or_else(|e| panic!("{what}: f past the cut stripe: {e}"));
                assert!(
                    rest == f[stripe_bytes as usize..],
                    "{what}: f past the cut stripe reads exact"
                );
                outcomes.push((oss, false));
            }
        }
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    assert!(outcomes.len() >= 2, "f has data zone files on several OSSs");
    outcomes
}

// Which OSSs read exact is pinned (the rest fail naming the loss): a decode is taken only
// where the stripe proves it (`confirm_by_parity`: two codewords of an MDS code that agree
// in k columns are equal). Stripe 0 of f: raid5 columns 0, 1, 2, 3 on OSSs 0..3 (3 parity),
// raid6 columns 0..5 on OSSs 0..5 (4 P, 5 Q); the cut write is over columns 0 and 1 and
// every parity. raid5: a parity OSS reads (rewritten from the data decided); a data column
// beside more columns in flight than the code can place is lost. raid6 (session 22, s22b):
// its rmw plans journal their home parity crcs before their first write, so a cut write
// with none on record (this scene's: only its input) wrote nothing, and every column of the
// stripe is its old version: the emptied column decodes from k of them with one more
// agreeing (`confirm_by_one_version`), on every OSS; before s22b OSSs 2 and 3 (columns
// beside four in flight) were lost. Before the session-21 fix these read zeros with success
// (a touched column) or an unproven decode (the others).

#[test]
fn raid5_a_data_zone_file_emptied_beside_a_cut_write_is_lost_or_exact_never_zeros() {
    let got = emptied_beside_cut_write(CodeSpec::raid5(3), 4, Damage::Emptied);
    assert_eq!(got, [(0, false), (1, false), (2, false), (3, true)]);
}

#[test]
fn raid5_a_data_zone_file_cut_short_beside_a_cut_write_is_lost_or_exact_never_zeros() {
    // Cut to a third: stripe 0's slots stay whole on every OSS here.
    let got = emptied_beside_cut_write(CodeSpec::raid5(3), 4, Damage::CutShort);
    assert_eq!(got, [(0, true), (1, true), (2, true), (3, true)]);
}

#[test]
fn raid6_a_data_zone_file_emptied_beside_a_cut_write_is_lost_or_exact_never_zeros() {
    let got = emptied_beside_cut_write(CodeSpec::raid6(4), 6, Damage::Emptied);
    assert_eq!(
        got,
        [
            (0, true),
            (1, true),
            (2, true),
            (3, true),
            (4, true),
            (5, true)
        ]
    );
}

#[test]
fn raid6_a_data_zone_file_cut_short_beside_a_cut_write_is_lost_or_exact_never_zeros() {
    // Cut to a third: OSSs 2 and 3 hold fewer slots of f, so it cuts their stripe-0 slot
    // (read back as above: every column's old version proves it).
    let got = emptied_beside_cut_write(CodeSpec::raid6(4), 6, Damage::CutShort);
    assert_eq!(
        got,
        [
            (0, true),
            (1, true),
            (2, true),
            (3, true),
            (4, true),
            (5, true)
        ]
    );
}
