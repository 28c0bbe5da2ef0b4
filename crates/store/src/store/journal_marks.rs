//! The OSSs' journal marks at open (review s32r R32-3): a journal that lost whole records at
//! rest, cut at a record boundary after the session's epoch bump (a file system that lost
//! an fsync'd tail, a copy of the store directory taken during a session and put back),
//! passes every epoch check, and an acknowledged WCL write whose records it lost read its
//! old bytes with success: its bytes sit in the cache zone, which only those records point
//! at. Each OSS keeps, with the sync that makes cache zone bytes durable, the journal record
//! the journal was durable through then (`backend::JOURNAL_MARK_FILE`). The journal is
//! written ahead of those bytes, so no crash leaves a mark past the journal's last record:
//! an open that finds one refuses the store, changing nothing.

use super::*;

impl Store {
    /// Refuse the open when an OSS's journal mark of the epoch on record (`state`) is past
    /// the journal's last record (`journal_last_seq`: the state's last or the last intact
    /// record, whichever is later). `tail_cut`: the journal has a torn tail, which the open
    /// reports and handles as a damaged last record (`Journal::tail_cut`); its record, one
    /// past `journal_last_seq`, is not counted as lost here. Marks of another epoch are not
    /// compared: one from an epoch before the record's cannot be past a journal that holds
    /// the later epoch's bump, one beyond it is `refuse_older_metadata`'s, and one of no
    /// epoch of this store (another store's directory) says nothing of this journal.
    pub(super) fn refuse_journal_behind_marks(
        dir: &Path,
        backends: &[Box<dyn Backend>],
        state: &State,
        journal_last_seq: u64,
        tail_cut: bool,
    ) -> Result<(), StoreError> {
        let Some(epoch) = state.metadata_epoch() else {
            return Ok(());
        };
        let allowed_seq = journal_last_seq + u64::from(tail_cut);
        for (i, b) in backends.iter().enumerate() {
            let Some(mark) = b.journal_mark() else {
                continue;
            };
            if mark.epoch != epoch || mark.seq <= allowed_seq {
                continue;
            }
            // A store run without fsync made nothing durable: a power cut alone leaves its
            // journal behind its marks, and the lost records may be in no copy, so the refusal
            // says so rather than "durable" (review r38c LOW-5). Still a refusal: the cache
            // bytes those records pointed at may be on disk, and a kill keeps them.
            if mark.without_fsync {
                return Err(StoreError::Metadata(format!(
                    "{0}: the journal {0}/{JOURNAL_FILE} lost records this store had written: OSS {i} ({1}) wrote cached write bytes when the journal was written through record {2}, but the journal (with the state) ends at record {journal_last_seq}, in the same metadata epoch {3}. The store ran WITHOUT fsync (its fsync option off, as `store bench --no-fsync`), so nothing it wrote was durable: a power cut alone leaves this, and the writes of the lost records are gone unless a copy of the store directory taken during that session holds them. Nothing was changed. Opened as it is, writes whose records were lost would read their older bytes, with no error. If a copy holds those records, restore the journal and state ({0}/state, {0}/journal) from it; otherwise removing {4} from every OSS directory opens the store as this journal has it: writes whose records were lost read back their older bytes, with no error",
                    dir.display(),
                    b.location(),
                    mark.seq,
                    epoch.number,
                    crate::backend::JOURNAL_MARK_FILE,
                )));
            }
            return Err(StoreError::Metadata(format!(
                "{0}: the journal {0}/{JOURNAL_FILE} lost records it had made durable: OSS {i} ({1}) made cached write bytes durable when the journal was durable through record {2}, but the journal (with the state) ends at record {journal_last_seq}, in the same metadata epoch {3}. The journal was cut (a file system that lost its last writes, a copy of the store directory taken during a session and put back); the lost records may be acknowledged writes whose bytes only they point at, so opened, the store would read those writes' old bytes as current. Nothing was changed. Restore the journal and state ({0}/state, {0}/journal) from the copy that holds those records, or restore the OSS directories from the same backup as them. If the records are gone for good, removing {4} from every OSS directory opens the store as this journal has it: writes whose records were lost read back their older bytes, with no error",
                dir.display(),
                b.location(),
                mark.seq,
                epoch.number,
                crate::backend::JOURNAL_MARK_FILE,
            )));
        }
        Ok(())
    }
}
