//! `exaraid store repair-label`: rewrite one OSS's damaged label from the superblock (review
//! s16r2 R16b-2). Why: a label is one small file with no checksum; one flipped bit makes its
//! OSS unavailable (right inside the tolerance: it is decoded around), but beside failed disks
//! that used the tolerance up it refused every read and the rebuild of the dead disks, though
//! every field of the label is known from the superblock and the OSS's data is intact.
//!
//! Never automatic, and never on trust: the label is rewritten only when the directory is
//! shown to be this OSS of this store. Its epoch file must name this store directory (or one
//! that no longer exists: a moved store), it must not be another OSS's directory of this
//! store, its label must be damaged or moved aside (one that parses and agrees is left alone;
//! one that names another store or index is never overwritten: that is a misordered or
//! foreign directory as often as damage), and every written block on it
//! must verify under the checksums of this store and index (they are seeded by both) before
//! the new label is written (temp file, fsync, rename, directory fsync). The OSS is not taken
//! into service by this command: the next open checks it like any other (label, epoch,
//! generation), and an OSS failed on record still needs `online` or `rebuild`.

use std::path::Path;

use super::{Store, StoreError};
use crate::backend::{Backend, BlockCrcSeed, DirBackend, OssLabel, LABEL_FILE};

/// What `Store::repair_label` did.
#[derive(Debug)]
pub struct LabelRepair {
    /// 4 KiB blocks of the OSS verified under the rewritten label (all passed).
    pub blocks_checked: u64,
    /// The OSS is failed on record: the label alone does not bring it back (`online` does).
    pub failed_on_record: bool,
    /// Crash recovery is still due (a write was cut while OSSs did not answer): the next
    /// open runs it, with this OSS answering.
    pub recovery_pending: bool,
}

impl Store {
    /// Rewrite OSS `oss`'s damaged label from the superblock; refused, nothing changed, unless
    /// the directory is shown to be that OSS of this store (see the module).
    pub fn repair_label(&mut self, oss: usize) -> Result<LabelRepair, StoreError> {
        // Crash recovery left for the next open (`open_for_label_repair`: OSSs not answering)
        // is no reason to refuse: the checks below read only this OSS's directory and the
        // superblock, and the label file is all that is written. A store open for reads only
        // (hard links, read-only metadata) or poisoned by this process still refuses.
        let recovery_waits = self
            .recovery_waits
            .load(std::sync::atomic::Ordering::SeqCst);
        if !recovery_waits || self.metadata_read_only.is_some() || self.reads_only.lock().is_some()
        {
            self.check_usable()?;
        }
        self.check_oss_index(oss)?;
        if self.backends_supplied {
            return Err(StoreError::BadInput(
                "refused, nothing changed: the backends came from the caller, which keeps no label files".into(),
            ));
        }
        let dir = self.dir.display().to_string();
        let path = self.sb.oss_dirs[oss].clone();
        let label_path = path.join(LABEL_FILE);
        let expect = self.sb.oss_label(oss);
        let refused = |why: String| {
            StoreError::BadInput(format!(
                "refused, nothing changed: OSS {oss} ({}): {why}",
                path.display()
            ))
        };
        let what = label_damage(&label_path, &expect).map_err(refused)?;
        // A missing label leaves the OSS failed for this process with no problem of its own.
        let label_missing = !label_path.exists() && self.backends[oss].problem().is_none();
        if !self.backends[oss].label_damaged() && !label_missing {
            // The label file changed since the open (or another damage came first): the
            // store's own view must agree before anything is written.
            return Err(refused(format!(
                "its label {what}, but this open did not find the OSS damaged by its label alone ({}); run the command again, or `exaraid store status {dir}`",
                self.backends[oss]
                    .problem()
                    .unwrap_or_else(|| "no problem".into())
            )));
        }
        self.refuse_foreign_oss_dir(oss, &path).map_err(refused)?;
        if expect.block_crc_seed == BlockCrcSeed::Address {
            // Its block crcs do not name the OSS index, so no check of its data could tell
            // this OSS's elements from another OSS's of the store.
            return Err(refused(format!(
                "its label {what}, but this store was made before session 12 and its block checksums do not name the OSS they belong to, so nothing can show this directory holds OSS {oss}'s elements; rebuild it (`exaraid store fail {dir} --oss {oss}` then `exaraid store rebuild {dir} --oss {oss}`)"
            )));
        }
        let relabelled = DirBackend::open_as_labelled(&path, &expect, self.sb.oss_capacity_bytes)
            .map_err(|e| {
            refused(format!(
                "its label {what}, and opening it under the label it should have failed ({e})"
            ))
        })?;
        if let Some(problem) = relabelled.problem() {
            return Err(refused(format!(
                "its label {what}, and the label is not its only damage: {problem}; rebuild it: `exaraid store fail {dir} --oss {oss}` then `exaraid store rebuild {dir} --oss {oss}`"
            )));
        }
        let (blocks_checked, blocks_failed) = relabelled.written_blocks_checked().map_err(|e| {
            refused(format!(
                "its label {what}, and its data could not be checked ({e})"
            ))
        })?;
        drop(relabelled);
        if blocks_failed > 0 {
            return Err(refused(format!(
                "its label {what}, and {blocks_failed} of its {blocks_checked} written 4 KiB blocks fail the checksums of OSS {oss} of this store (seeded by the store and the OSS index), so the directory does not hold (only) this OSS's intact elements: another OSS's or another store's directory, or rot beside the label; the label is not rewritten. Check that the OSS directories are in order; if they are, rebuild it: `exaraid store fail {dir} --oss {oss}` then `exaraid store rebuild {dir} --oss {oss}`"
            )));
        }
        let text = serde_json::to_string_pretty(&expect).expect("label serialises");
        crate::superblock::write_atomic(&label_path, text.as_bytes()).map_err(|e| {
            StoreError::Io(format!(
                "OSS {oss} ({}): writing its label {} from the superblock failed ({e}); the old label may still be in place (a rename either happened or did not); run the command again",
                path.display(),
                label_path.display()
            ))
        })?;
        let failed_on_record = self.core.lock().state.failed_oss.contains(&oss);
        Ok(LabelRepair {
            blocks_checked,
            failed_on_record,
            recovery_pending: recovery_waits,
        })
    }

    /// Why OSS directory `path` may not be OSS `oss` of this store although it sits where
    /// the superblock names it: its epoch file names another store directory (or none), or
    /// it is the same directory as another OSS of this store.
    fn refuse_foreign_oss_dir(&self, oss: usize, path: &Path) -> Result<(), String> {
        let here = self.epoch_store_dir();
        match (crate::backend::epoch_file_store_dir(path), here) {
            (Some(told_by), Some(here)) if told_by == here => {}
            // The store directory was moved (or the copy it came from is gone) since its
            // last write: no other store runs on this OSS; the data check below still shows
            // whether it is this store's (its crcs are seeded by the store id and index).
            (Some(told_by), Some(_)) if !told_by.exists() => {}
            (Some(told_by), _) => {
                return Err(format!(
                    "its epoch file ({}) says the store directory {} told it last, not this one: it may be another store's (or a copy's) OSS, and a label written here would make its elements this store's; the label is not rewritten. If that directory is an old copy of this store that is no longer used, delete it and run the command again; otherwise rebuild this OSS",
                    crate::backend::EPOCH_FILE,
                    told_by.display()
                ))
            }
            (None, _) => {
                return Err(format!(
                    "its epoch file ({}) names no store directory (missing, damaged, or written by an exaraid before session 15), so nothing shows this directory is this store's; the label is not rewritten; rebuild it: `exaraid store fail {1} --oss {oss}` then `exaraid store rebuild {1} --oss {oss}`",
                    crate::backend::EPOCH_FILE,
                    self.dir.display()
                ))
            }
        }
        let same = |a: &Path, b: &Path| {
            use std::os::unix::fs::MetadataExt;
            match (std::fs::metadata(a), std::fs::metadata(b)) {
                (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
                _ => false,
            }
        };
        for (other, other_path) in self.sb.oss_dirs.iter().enumerate() {
            if other != oss && same(path, other_path) {
                return Err(format!(
                    "it is the same directory as OSS {other} ({}); check the OSS directories",
                    other_path.display()
                ));
            }
        }
        Ok(())
    }
}

/// What is wrong with the label at `label_path` that a rewrite from `expect` undoes, or why
/// it is not rewritten (missing, fine, or naming another store or OSS).
fn label_damage(label_path: &Path, expect: &OssLabel) -> Result<String, String> {
    let text = match std::fs::read(label_path) {
        Ok(text) => text,
        // Moved aside (the way out of a flip that still parses, which refuses the open) or
        // deleted. An unmounted disk's empty mount point is refused by the epoch file check.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(format!(
                "{} is missing (moved aside or deleted)",
                label_path.display()
            ))
        }
        Err(e) => return Ok(format!("{} cannot be read ({e})", label_path.display())),
    };
    let found: OssLabel = match serde_json::from_slice(&text) {
        Ok(found) => found,
        Err(e) => return Ok(format!("{} does not parse ({e})", label_path.display())),
    };
    if (&found.store_id, found.index, found.element_bytes)
        != (&expect.store_id, expect.index, expect.element_bytes)
    {
        // A bit flipped in the store id or index parses as well as a directory of another
        // store or another OSS; nothing tells them apart, so neither is overwritten.
        return Err(format!(
            "its label {} parses and says store {} OSS #{} ({} byte elements), where the superblock expects store {} OSS #{} ({} byte elements); a label that names another store or OSS is never rewritten (the directories may be out of order, or it may be another store's); if they are in order and this label was damaged, move it aside and run this command again: it checks the data under this store's id and index first",
            label_path.display(),
            found.store_id,
            found.index,
            found.element_bytes,
            expect.store_id,
            expect.index,
            expect.element_bytes
        ));
    }
    let settings_differ = found.settings.is_some() && found.settings != expect.settings;
    if !settings_differ && found.block_crc_seed == expect.block_crc_seed {
        return Err(format!(
            "its label {} parses and agrees with the superblock; nothing to repair",
            label_path.display()
        ));
    }
    Ok(format!(
        "{} disagrees with the superblock on its settings or block crc seed",
        label_path.display()
    ))
}
