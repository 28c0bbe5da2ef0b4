//! What a settle says when its reservation met a failing disk (an EIO from `fallocate`) and
//! recording that OSS failed took acknowledged window bytes whose only copy was there (review
//! s19m: `flush`, END, `rm`, `rebuild` and recovery recorded them lost and said nothing; only
//! `status`, reads and the window's END named them). A write's refusal or warning names them
//! since s19d (`Store::tell_failure_notes`); a settle says the same, in its error when it
//! fails, else as a warning told at close.

use super::*;

/// One OSS a settle's reservation recorded failed: its index, the disk's error, and the
/// window bytes that lost their only copy with it.
pub(super) type SettleReserveFailure = (usize, String, Vec<LostRange>);

impl Store {
    /// `result`, the settle's, with what `failures` tell: on success a warning (told at
    /// close) naming the lost bytes, if any (degraded with nothing lost is said as for any
    /// command past a failed OSS: by `status`); on failure the same in its error.
    pub(super) fn tell_settle_reserve_failures(
        &self,
        core: &Core,
        failures: &[SettleReserveFailure],
        result: Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let lost: Vec<&LostRange> = failures.iter().flat_map(|(_, _, l)| l).collect();
        if failures.is_empty() || (result.is_ok() && lost.is_empty()) {
            return result;
        }
        let dir = self.dir.display();
        let failed = failures
            .iter()
            .map(|(oss, why, _)| {
                format!("OSS {oss} was recorded failed (its disk returned an I/O error on reserving room for new elements: {why})")
            })
            .collect::<Vec<String>>()
            .join(", ");
        let first = failures[0].0;
        let rebuild = format!(
            "; rebuild it onto a new disk: `exaraid store rebuild {dir} --oss {first} --to NEWDIR`"
        );
        let what = if lost.is_empty() {
            format!("no acknowledged byte had its only copy there: none was lost{rebuild}")
        } else {
            let named: Vec<&LostRange> =
                lost.iter().copied().take(FAILURE_LOST_NAMED_MAX).collect();
            let mut names = self.lost_range_names(core, &named);
            if lost.len() > named.len() {
                names.push(format!("and more ({} ranges)", lost.len() - named.len()));
            }
            format!(
                "that lost the only copy of these acknowledged bytes, written inside a delayed window and without parity yet: {}. Reads of them fail until they are written again (`exaraid store status {dir}` lists every lost range){}{rebuild}",
                names.join(", "),
                self.restorable_hint(core, &dir.to_string(), &lost),
            )
        };
        let told = format!("while it moved cached bytes home (a settle), {failed}: {what}");
        match result {
            Err(e) => Err(e.with_context(&told)),
            Ok(()) => {
                self.deferred_warnings
                    .lock()
                    .push(format!("the command went on degraded, but {told}"));
                Ok(())
            }
        }
    }

    /// For lost ranges recorded with their cache address (their OSS's disk answered when it
    /// was recorded failed): `online` reads them back where their blocks still verify, and
    /// so does `rebuild --to` while the old directory reads (`read_back_before_rebuild`); said
    /// before the rebuild's advice. Empty when none is. Past `RESTORE_BYTES_MAX` bytes on
    /// record lost with one OSS's cache zone neither takes any back (`online` refuses, a
    /// rebuild makes the loss final), and the hint says so and what keeps them, as `fail`
    /// does (`take_back_advice`). Why (s24c leftover): this promised a take-back past the
    /// bound that `fail`'s advice already denied.
    pub(super) fn restorable_hint(&self, core: &Core, dir: &str, lost: &[&LostRange]) -> String {
        let osses: BTreeSet<usize> = lost
            .iter()
            .filter(|l| l.cache_addr_bytes.is_some())
            .map(|l| l.oss)
            .collect();
        let mut hints = Vec::new();
        for &oss in &osses {
            let addressed = |l: &LostRange| l.oss == oss && l.cache_addr_bytes.is_some();
            let on_record_bytes: u64 = (core.state.lost.iter())
                .filter(|l| addressed(l))
                .map(|l| l.len_bytes)
                .sum();
            // Ranges the caller names may not be on record yet (the next open records them).
            let named_bytes: u64 = (lost.iter())
                .filter(|l| addressed(l))
                .map(|l| l.len_bytes)
                .sum();
            let total_bytes = on_record_bytes.max(named_bytes);
            if total_bytes <= super::repair::RESTORE_BYTES_MAX {
                hints.push(format!(
                    "`exaraid store online {dir} --oss {oss}` takes back, once that disk works again, those whose blocks still verify, as does a rebuild onto a new disk (`--to NEWDIR`) while the old one still reads (in place, a rebuild makes their loss final)"
                ));
                continue;
            }
            let on_record: Vec<&LostRange> =
                (core.state.lost.iter()).filter(|l| addressed(l)).collect();
            hints.push(format!(
                "nothing takes back the window bytes lost with OSS {oss}'s cache zone: {total_bytes} bytes, more than the {} bytes `exaraid store online {dir} --oss {oss}` or a rebuild takes back (they go through the journal), so `online` refuses while they are on record and a rebuild (in place or `--to NEWDIR`) makes their loss final; to keep them, write them again from your own copy: {}then `exaraid store write {dir} FILE --offset OFFSET` each lost range (a write clears its loss from the record), and once no more than {} bytes are on record lost with it, `online` takes back the rest",
                super::repair::RESTORE_BYTES_MAX,
                Self::end_windows_first(dir, core, &on_record),
                super::repair::RESTORE_BYTES_MAX,
            ));
        }
        match hints.is_empty() {
            true => String::new(),
            false => format!("; {}", hints.join("; ")),
        }
    }
}
