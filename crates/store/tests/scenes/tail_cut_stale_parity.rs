//! Review R10-5 (WRONG BYTES): the journal's last record cut off at open (torn, or damaged
//! after its fsync: review s9r R9-3) may be a write whose plan had begun its OSS writes. The
//! write was never acknowledged (its `Durable` record never followed), but its stripe may
//! be left with data written and parity not: parity that does not match the data. With
//! one more failed OSS (raid5), or two (raid6), a degraded read decoded the acknowledged
//! bytes of the columns the cut write never touched through that stale parity and
//! returned wrong bytes with no error.
//!
//! Specification: after the cut, every acknowledged byte reads back right (the cut
//! write's range holds its old or its new bytes) or the read fails naming why; never a
//! wrong byte. The open with every OSS up repairs the stripes by itself (parity
//! re-encoded from the checksum-clean data); with an OSS gone before that, a read that
//! would decode through parity no one could check is refused.
//!
//! The scene is built from two trees of one store: before the write and after it. The
//! image is the tree before, with each OSS slot the write changed laid in either as it
//! was or as the write left it (every combination: a kill leaves every returned write
//! whole), and the write's input record appended to the journal and then damaged (so the
//! open cuts it: the write is unknown to the store).
//!
//! `EXARAID_SWEEP=1` makes each test a counting sweep (the numbers of
//! docs/results/s11h-r10.md: how many reads return a wrong byte on the code before the
//! fix): a failed check is counted instead of ending the test at once, the counts are
//! printed, and the test still fails at its end if any check failed.

use crate::common;

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use common::*;
use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};

/// Stripes of file "f": the cut write touches the first only.
const STRIPES: usize = 3;
const CUT_WARNING: &str = "journal's last record was cut off";
/// The part of the warning that a scrub of the parity ends.
const PARITY_WARNING: &str = "until a scrub finds every stripe's parity matching";

/// The warning once the open checked and repaired the parity: the scene's cut record is a
/// whole record with a bad checksum (damage, not a torn append), which may have done what
/// no parity check sees, so its own warning stays until the operator accepts it (review
/// s12r R12-1); the parity part is gone.
fn only_the_damage_warning_left(warning: &Option<String>) -> bool {
    warning
        .as_deref()
        .is_some_and(|w| w.contains("--accept-journal-damage") && !w.contains(PARITY_WARNING))
}
/// Set to 1: count failed checks to the end of the test (see the module docs).
const SWEEP_ENV: &str = "EXARAID_SWEEP";

/// What a test's checks found. Outside a sweep the first failed check panics, as an
/// `assert!` does; in a sweep it is counted here and `finish` fails the test.
#[derive(Default)]
struct Tally {
    sweep: bool,
    /// `check_reads` calls: one per image and failure set (and per image with every
    /// OSS back).
    reads: usize,
    /// Of those, the ones that met a wrong byte (the first one ends the call).
    wrong: usize,
    /// Of those, the ones a read failed in otherwise (the failure ends the call).
    failed: usize,
    /// 4 KiB blocks refused naming the cut.
    refused: usize,
    /// Every other failed check.
    other: usize,
    /// What the first failed check said.
    first: Option<String>,
}

enum Failed {
    WrongByte,
    Read,
    Check,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            sweep: std::env::var(SWEEP_ENV).is_ok_and(|v| v == "1"),
            ..Tally::default()
        }
    }

    #[track_caller]
    fn fail(&mut self, kind: Failed, msg: String) {
        if !self.sweep {
            panic!("{msg}");
        }
        match kind {
            Failed::WrongByte => self.wrong += 1,
            Failed::Read => self.failed += 1,
            Failed::Check => self.other += 1,
        }
        self.first.get_or_insert(msg);
    }

    #[track_caller]
    fn check(&mut self, ok: bool, msg: impl FnOnce() -> String) {
        if !ok {
            self.fail(Failed::Check, msg());
        }
    }

    /// `check` for a helper that asserts on its own (`assert_consistent`).
    fn check_panics(&mut self, what: &str, f: impl FnOnce()) {
        if !self.sweep {
            return f();
        }
        if let Err(panic) = std::panic::catch_unwind(AssertUnwindSafe(f)) {
            let why = crate::common::panic_message(&*panic);
            self.fail(Failed::Check, format!("{what}: {why}"));
        }
    }

    /// The sweep's counts printed; the test fails if any check failed.
    fn finish(self, what: &str) {
        if self.sweep {
            println!(
                "{what}: reads {}, with a WRONG byte {}, failing otherwise {}, blocks refused {}, \
                 other checks failed {}",
                self.reads, self.wrong, self.failed, self.refused, self.other
            );
        }
        assert!(
            self.first.is_none(),
            "{what}: {} reads met a WRONG byte, {} failed otherwise, {} other checks failed; \
             the first: {}",
            self.wrong,
            self.failed,
            self.other,
            self.first.unwrap_or_default()
        );
    }
}

struct Scene {
    dir: PathBuf,
    before: PathBuf,
    after: PathBuf,
    oss_count: usize,
    tolerance: usize,
    acked: Vec<u8>,
    cut_at: usize,
    new: Vec<u8>,
    /// The OSS slots the cut write changed: `(unit, is parity)`.
    units: Vec<(Unit, bool)>,
    _root: tempfile::TempDir,
}

/// A store of `code` (rmw) holding "f" (acknowledged), and the same store after a write of
/// two data elements of its stripe 0 (the write each image cuts).
fn scene(code: CodeSpec, tolerance: usize) -> Scene {
    let root = scratch();
    let dir = root.path().join("store");
    let before = root.path().join("before");
    let after = root.path().join("after");
    let oss_count = columns(code);
    let store = init(&dir, code, oss_count, WritePath::Rmw);
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
    let units: Vec<(Unit, bool)> = changed_slots(&before, &after, oss_count, |_, n| {
        n == format!("{id}.data") || n == format!("{id}.parity")
    })
    .into_iter()
    .map(|u| {
        let parity = u.1.ends_with(".parity");
        (u, parity)
    })
    .collect();
    assert!(
        units.iter().any(|u| !u.1) && units.iter().any(|u| u.1),
        "the write changed data and parity slots: {units:?}"
    );
    Scene {
        dir,
        before,
        after,
        oss_count,
        tolerance,
        acked,
        cut_at,
        new,
        units,
        _root: root,
    }
}

impl Scene {
    /// The tree before the write, the write's slots laid as `landed` says (bit i: unit i),
    /// its input record appended to the journal and one of its bytes flipped.
    fn crash(&self, landed: u32) {
        std::fs::remove_dir_all(&self.dir).unwrap();
        copy_tree(&self.before, &self.dir);
        for (i, (unit, _)) in self.units.iter().enumerate() {
            let block = if landed & (1 << i) != 0 {
                Block::Landed
            } else {
                Block::Old
            };
            lay_block(&self.after, &self.dir, unit, block);
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

    /// Every 4 KiB block of "f" read on its own: its acknowledged bytes (in the cut write's
    /// range each byte old or new), or, with `refused_ok`, a `DataLost` naming the cut.
    /// Never a wrong byte. Returns how many blocks were refused.
    fn check_reads(&self, t: &mut Tally, store: &Store, refused_ok: bool, what: &str) -> usize {
        let cut = self.cut_at..self.cut_at + self.new.len();
        let mut refused = 0;
        t.reads += 1;
        for at in (0..self.acked.len()).step_by(4096) {
            let len = 4096.min(self.acked.len() - at);
            match store.read("f", at as u64, len as u64) {
                Ok(got) => {
                    for (j, &x) in got.iter().enumerate() {
                        let i = at + j;
                        let old = self.acked[i];
                        let ok = x == old || (cut.contains(&i) && x == self.new[i - cut.start]);
                        if !ok {
                            let msg = format!(
                                "{what}: WRONG byte {i}: {x:#04x}, acknowledged {old:#04x}"
                            );
                            t.fail(Failed::WrongByte, msg);
                            return refused;
                        }
                    }
                }
                Err(StoreError::DataLost(msg)) if refused_ok && msg.contains(CUT_WARNING) => {
                    refused += 1;
                    t.refused += 1;
                }
                Err(e) => {
                    let msg = format!("{what}: read of bytes {at}..{}: {e}", at + len);
                    t.fail(Failed::Read, msg);
                    return refused;
                }
            }
        }
        refused
    }

    /// Every set of `self.tolerance` OSSs, ascending.
    fn failure_sets(&self) -> Vec<Vec<usize>> {
        let n = self.oss_count;
        match self.tolerance {
            1 => (0..n).map(|a| vec![a]).collect(),
            2 => (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| vec![a, b]))
                .collect(),
            t => panic!("tolerance {t}"),
        }
    }
}

/// The open after the cut (every OSS up) repairs the cut write's stripe, and then any
/// failures the code tolerates leave every acknowledged byte readable and right.
fn the_open_repairs_the_cut_stripe(code: CodeSpec, tolerance: usize) {
    let s = scene(code, tolerance);
    let mut t = Tally::new();
    let repaired = s._root.path().join("repaired");
    for landed in 0..1u32 << s.units.len() {
        s.crash(landed);
        let what = format!("{code:?}, slots landed {landed:#b} of {:?}", s.units);
        let store = open_unsynced(&s.dir);
        let warning = store.journal_tail_cut_warning();
        let notes = store.close_with_warnings().unwrap();
        let _ = std::fs::remove_dir_all(&repaired);
        copy_tree(&s.dir, &repaired);
        for dead in s.failure_sets() {
            std::fs::remove_dir_all(&s.dir).unwrap();
            copy_tree(&repaired, &s.dir);
            for &oss in &dead {
                lose_disk(&s.dir, oss);
            }
            let store = open_unsynced(&s.dir);
            let what = format!("{what}, OSSs {dead:?} lost");
            let refused = s.check_reads(&mut t, &store, false, &what);
            t.check(refused == 0, || format!("{what}: {refused} blocks refused"));
        }
        // Checked after the reads: they are the point (wrong bytes before the fix).
        t.check(only_the_damage_warning_left(&warning), || {
            format!("{what}: the open checked and repaired every stripe: {warning:?}")
        });
        t.check(
            notes
                .iter()
                .any(|n| n.contains("the open checked every stripe's parity")),
            || format!("{what}: the open says what it did: {notes:?}"),
        );
        let store = open_unsynced(&s.dir);
        t.check_panics(&what, || assert_consistent(&store));
    }
    t.finish(&format!("{code:?}, the open repairs"));
}

#[test]
fn raid5_the_open_after_a_tail_cut_repairs_the_cut_stripe() {
    the_open_repairs_the_cut_stripe(CodeSpec::raid5(4), 1);
}

#[test]
fn raid6_the_open_after_a_tail_cut_repairs_the_cut_stripe() {
    the_open_repairs_the_cut_stripe(CodeSpec::raid6(4), 2);
}

/// The disks are gone before any open could repair (the open that cuts the journal finds
/// them missing): a read whose decode nothing can check is refused, naming the cut; every
/// other block reads right. With every disk there, the open repairs by itself.
fn reads_refuse_unchecked_decodes_until_the_repair(code: CodeSpec, tolerance: usize) {
    let s = scene(code, tolerance);
    let image = s._root.path().join("image");
    let mut t = Tally::new();
    let mut refused_total = 0;
    for landed in 0..1u32 << s.units.len() {
        s.crash(landed);
        let _ = std::fs::remove_dir_all(&image);
        copy_tree(&s.dir, &image);
        for dead in s.failure_sets() {
            let what = format!("{code:?}, slots landed {landed:#b}, OSSs {dead:?} lost first");
            std::fs::remove_dir_all(&s.dir).unwrap();
            copy_tree(&image, &s.dir);
            for &oss in &dead {
                lose_disk(&s.dir, oss);
            }
            let store = open_unsynced(&s.dir);
            refused_total += s.check_reads(&mut t, &store, true, &what);
            t.check(store.journal_tail_cut_warning().is_some(), || {
                format!("{what}: the cut stays on record")
            });
        }
        // Every disk there (a mount that came back): the open repairs, every byte reads.
        let what = format!("{code:?}, slots landed {landed:#b}, every OSS back");
        std::fs::remove_dir_all(&s.dir).unwrap();
        copy_tree(&image, &s.dir);
        let store = open_unsynced(&s.dir);
        let refused = s.check_reads(&mut t, &store, false, &what);
        t.check(refused == 0, || format!("{what}: {refused} blocks refused"));
        let warning = store.journal_tail_cut_warning();
        t.check(only_the_damage_warning_left(&warning), || {
            format!("{what}: repaired: {warning:?}")
        });
        t.check_panics(&what, || assert_consistent(&store));
    }
    t.check(refused_total > 0, || {
        format!("{code:?}: some image needed a decode nothing could check")
    });
    t.finish(&format!("{code:?}, reads refuse until the repair"));
}

#[test]
fn raid5_reads_refuse_unchecked_decodes_while_the_cut_is_not_repaired() {
    reads_refuse_unchecked_decodes_until_the_repair(CodeSpec::raid5(4), 1);
}

#[test]
fn raid6_reads_refuse_unchecked_decodes_while_the_cut_is_not_repaired() {
    reads_refuse_unchecked_decodes_until_the_repair(CodeSpec::raid6(4), 2);
}
