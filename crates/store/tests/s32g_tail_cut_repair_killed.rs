//! s32g ("OPEN after session 31" (6): repairs that journal no decision): the open's own
//! `scrub --repair` after a journal tail cut (`reencode_parity_after_tail_cut`) rewrites the
//! parity of the cut write's stripe from the data as it reads, and journals nothing but
//! `JournalTailChecked` once every stripe is done. A kill inside it leaves some parity
//! blocks re-encoded and others not, with the cut still on record; one more fault within
//! the code's tolerance follows before the next open could finish the repair.
//!
//! Specification: whatever block write of that repair the kill comes before (or tears),
//! and whichever OSSs (up to the tolerance) are lost after it, every 4 KiB block of the
//! file reads its acknowledged bytes (inside the cut write's range, each byte old or new)
//! or is refused naming the cut, never a wrong byte; with every OSS there, the next open
//! finishes the repair and every block reads.
//!
//! The image before the repair is `tail_cut_stale_parity.rs`'s (the tree before the write,
//! each slot the write changed laid as it was or as the write left it, the write's input
//! record appended and damaged); the kill is real (`EXARAID_KILL_AT` in a child process).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::torture::{WRITE_BEFORE_BLOCK, WRITE_TORN_BLOCK};
use exaraid_store::{StoreError, WritePath};

const CHILD_DIR_ENV: &str = "EXARAID_TEST_S32G_TAIL_CUT_REPAIR_CHILD_DIR";
/// Stripes of file "f": the cut write touches the first only.
const STRIPES: usize = 3;
const CUT_WARNING: &str = "journal's last record was cut off";
/// Block writes of one open's repair a kill is tried before: the scene's repair rewrites at
/// most the two parity elements of one 4 KiB block row (raid6), so 4 leaves room.
const KILLS_PER_POINT_MAX: u64 = 4;

struct Scene {
    dir: PathBuf,
    before: PathBuf,
    after: PathBuf,
    acked: Vec<u8>,
    cut_at: usize,
    new: Vec<u8>,
    units: Vec<Unit>,
    root: tempfile::TempDir,
}

/// A raid6 store (rmw) holding "f" (acknowledged) before, and after, a write of two data
/// elements' worth of stripe 0 starting half way into element 0.
fn scene(code: CodeSpec) -> Scene {
    let root = scratch();
    let dir = root.path().join("store");
    let before = root.path().join("before");
    let after = root.path().join("after");
    let store = init(&dir, code, columns(code), WritePath::Rmw);
    let sdb = store.layout().stripe_data_bytes() as usize;
    let acked = pattern(1, STRIPES * sdb);
    store.put("f", &acked).unwrap();
    store.close().unwrap();
    copy_tree(&dir, &before);
    let (cut_at, new) = (UNIT / 2, pattern(2, 2 * UNIT));
    let store = open_unsynced(&dir);
    store.write("f", cut_at as u64, &new).unwrap();
    let id = store.file_id("f").unwrap();
    store.close().unwrap();
    copy_tree(&dir, &after);
    let units = changed_slots(&before, &after, columns(code), |_, n| {
        n == format!("{id}.data") || n == format!("{id}.parity")
    });
    assert!(units.len() >= 3, "data and parity slots changed: {units:?}");
    Scene {
        dir,
        before,
        after,
        acked,
        cut_at,
        new,
        units,
        root,
    }
}

impl Scene {
    /// The tree before the write with the slots `landed` names (bit i: unit i) as the write
    /// left them, its input record appended to the journal and damaged (the open cuts it).
    fn crash(&self, landed: u32) {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.before, &self.dir);
        for (i, unit) in self.units.iter().enumerate() {
            if landed & (1 << i) != 0 {
                lay_block(&self.after, &self.dir, unit, Block::Landed);
            }
        }
        let journal = self.dir.join("journal");
        let start = std::fs::metadata(&journal).unwrap().len() as usize;
        leave_write_in_flight(&self.dir, "f", self.cut_at as u64, self.new.len() as u64);
        let mut bytes = std::fs::read(&journal).unwrap();
        assert!(bytes.len() > start + 8, "the input record was appended");
        let flip = start + 8 + (bytes.len() - start - 8) / 2;
        bytes[flip] ^= 0x10;
        std::fs::write(&journal, bytes).unwrap();
    }

    fn lay(&self, image: &Path) {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(image, &self.dir);
    }

    /// Each 4 KiB block of "f" read on its own, with the OSSs `dead` lost first.
    fn reads(&self, image: &Path, dead: &[usize]) -> Vec<Outcome> {
        self.lay(image);
        dead.iter().for_each(|&o| lose_disk(&self.dir, o));
        let store = open_unsynced(&self.dir);
        let cut = self.cut_at..self.cut_at + self.new.len();
        let mut outcomes = Vec::new();
        for at in (0..self.acked.len()).step_by(4096) {
            let len = 4096.min(self.acked.len() - at);
            outcomes.push(match store.read("f", at as u64, len as u64) {
                Ok(got) => {
                    let wrong = got.iter().enumerate().find(|&(j, &x)| {
                        let i = at + j;
                        x != self.acked[i] && !(cut.contains(&i) && x == self.new[i - cut.start])
                    });
                    match wrong {
                        Some((j, &x)) => Outcome::Wrong(format!(
                            "byte {}: {x:#04x}, acknowledged {:#04x}",
                            at + j,
                            self.acked[at + j]
                        )),
                        None => Outcome::Read,
                    }
                }
                Err(StoreError::DataLost(msg)) if msg.contains(CUT_WARNING) => Outcome::RefusedCut,
                Err(e) => Outcome::Lost(format!("bytes {at}..{}: {e}", at + len)),
            });
        }
        outcomes
    }
}

/// What a read of one 4 KiB block of "f" did.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// Its acknowledged bytes (inside the cut write's range each byte old or new).
    Read,
    /// Refused naming the cut: the decode nothing can check, until every OSS is back.
    RefusedCut,
    /// Failed otherwise (a LOSS, named).
    Lost(String),
    /// Success with a byte that was never written there.
    Wrong(String),
}

/// The killed child: an open of the store (its recovery, then its repair after the tail
/// cut), in a process set to kill itself at a kill point. Run on its own it does nothing.
#[test]
fn child_open_repairing_after_a_tail_cut() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = open_unsynced(Path::new(&dir));
    store.close().unwrap();
}

/// Every set of one OSS up to `tolerance` OSSs, ascending.
fn failure_sets(oss_count: usize, tolerance: usize) -> Vec<Vec<usize>> {
    let mut sets: Vec<Vec<usize>> = (0..oss_count).map(|a| vec![a]).collect();
    if tolerance >= 2 {
        sets.extend((0..oss_count).flat_map(|a| (a + 1..oss_count).map(move |b| vec![a, b])));
    }
    assert!(tolerance <= 2, "tolerance {tolerance}");
    sets
}

/// The sweep: every image (slots landed), every kill of the open's repair (before each of
/// its block writes, or tearing it), every loss set; `losses_allowed`: whether a block that
/// read with the same losses before the repair may fail after the kill (the guard) or not
/// (the specification, OPEN).
fn a_kill_inside_the_repair_after_a_tail_cut(
    code: CodeSpec,
    tolerance: usize,
    losses_allowed: bool,
) {
    let s = scene(code);
    let oss_count = columns(code);
    let image = s.root.path().join("image");
    let killed = s.root.path().join("killed");
    // WRONG bytes anywhere; a block failing after a kill that read with the same losses
    // before the repair (LOSS the kill made); a block not reading with every OSS up.
    let (mut wrong, mut kill_losses, mut not_repaired) = (Vec::new(), Vec::new(), Vec::new());
    let (mut kills, mut reads, mut lost_before, mut refused_before) = (0, 0, 0, 0);
    for landed in 0..1u32 << s.units.len() {
        s.crash(landed);
        let _ = std::fs::remove_dir_all(&image);
        copy_tree(&s.dir, &image);
        // The same losses before any repair: what a kill is measured against.
        let sets = failure_sets(oss_count, tolerance);
        let before: Vec<Vec<Outcome>> = sets.iter().map(|dead| s.reads(&image, dead)).collect();
        for (dead, outcomes) in sets.iter().zip(&before) {
            for o in outcomes {
                match o {
                    Outcome::Wrong(e) => {
                        wrong.push(format!("landed {landed:#b}, no kill, lost {dead:?}: {e}"))
                    }
                    Outcome::Lost(_) => lost_before += 1,
                    Outcome::RefusedCut => refused_before += 1,
                    Outcome::Read => {}
                }
            }
        }
        for point in [WRITE_BEFORE_BLOCK, WRITE_TORN_BLOCK] {
            for n in 1..=KILLS_PER_POINT_MAX {
                s.lay(&image);
                if !child_test_killed_at(
                    "child_open_repairing_after_a_tail_cut",
                    CHILD_DIR_ENV,
                    &s.dir,
                    point,
                    n,
                ) {
                    break;
                }
                kills += 1;
                let _ = std::fs::remove_dir_all(&killed);
                copy_tree(&s.dir, &killed);
                let what = format!("landed {landed:#b}, killed at {point}:{n}");
                for (dead, was) in sets.iter().zip(&before) {
                    reads += 1;
                    for (b, (o, w)) in s.reads(&killed, dead).iter().zip(was).enumerate() {
                        match o {
                            Outcome::Wrong(e) => wrong.push(format!("{what}, lost {dead:?}: {e}")),
                            Outcome::Lost(_) | Outcome::RefusedCut if *w == Outcome::Read => {
                                let e = if let Outcome::Lost(e) = o {
                                    e.as_str()
                                } else {
                                    "refused naming the cut"
                                };
                                kill_losses.push(format!("{what}, lost {dead:?}, block {b}: {e}"));
                            }
                            _ => {}
                        }
                    }
                }
                // Every OSS there: the next open finishes the repair.
                let all_up = s.reads(&killed, &[]);
                if all_up.iter().any(|o| *o != Outcome::Read) {
                    not_repaired.push(format!("{what}, every OSS up: {all_up:?}"));
                }
            }
        }
    }
    println!(
        "{code:?}: {kills} kills, {reads} loss sets read after one; before any repair, blocks \
         failing otherwise than naming the cut {lost_before}, refused naming it \
         {refused_before}; WRONG {}, blocks failing after a kill that read before it {}, \
         every OSS up and not read {}",
        wrong.len(),
        kill_losses.len(),
        not_repaired.len()
    );
    for p in wrong
        .iter()
        .chain(&kill_losses)
        .chain(&not_repaired)
        .take(12)
    {
        println!("  {p}");
    }
    assert!(kills > 0, "{code:?}: some repair was killed");
    assert!(wrong.is_empty(), "{code:?}: WRONG bytes: {}", wrong[0]);
    if !losses_allowed {
        assert!(
            kill_losses.is_empty(),
            "{code:?}: the kill lost blocks: {}",
            kill_losses[0]
        );
    }
    assert!(not_repaired.is_empty(), "{code:?}: {}", not_repaired[0]);
}

/// Guard (passes on c3ad65a): no WRONG byte after a kill inside the repair and up to two lost
/// OSSs, and with every OSS up the next open finishes the repair.
#[test]
fn raid6_a_kill_inside_the_repair_after_a_tail_cut_never_reads_wrong_bytes() {
    a_kill_inside_the_repair_after_a_tail_cut(CodeSpec::raid6(4), 2, true);
}

/// The rule the repair breaks (LOSS from a kill plus ONE lost OSS): on c3ad65a, 18 blocks
/// over 112 kills fail that read with the same losses before the repair. E.g. only data
/// column 0 of the cut write landed; the repair re-encodes P and is killed before Q; column
/// 0's OSS is lost: P (new) and Q (old) disagree over the decode of column 0 and file bytes
/// 0..4096 are named lost, 0..2048 of them acknowledged and never in the cut write (before
/// the repair both parities were old and agreed: the block read). Killed tearing P (its
/// payload, not its checksum), the decode from Q alone is refused naming the cut.
#[test]
#[ignore = "OPEN (s32g): the open's repair after a tail cut journals no decision; killed between its P and Q writes, one lost data OSS loses acknowledged bytes that read before it (18 blocks); next: journal the crcs of the kept data blocks and of the parity it writes before the first parity write, and decode by them"]
fn raid6_a_kill_inside_the_repair_after_a_tail_cut_loses_no_block_that_read_before_it() {
    a_kill_inside_the_repair_after_a_tail_cut(CodeSpec::raid6(4), 2, false);
}
