//! An OSS past the epoch lineage at open, and an OSS not told the latest epoch in `status`
//! (review s15r R15-3, directions a, b and d).
//!
//! An OSS (not failed on record) told an epoch the lineage no longer keeps the token of
//! (`EPOCH_LINEAGE_LEN` or more epochs behind), which does not hold the epoch the store
//! recorded it left at, cannot be proven this store's own OSS left behind and not another
//! copy's. Until session 16 that refused every command, reads of files not on it included:
//! its return took the whole store down. Now it is taken out of service for this open
//! (UNAVAILABLE, as an OSS rolled back behind its recorded generation: reads decode around
//! it, `online` refuses it, `rebuild` replaces it), and the whole open is refused only when
//! that leaves more OSSs out of service than the code tolerates (then every read needing
//! it would fail anyway, and the refusal names the ways out, which no command could run).
//! Its bytes are never read as current: the backend refuses every read and write of it.

use super::*;

/// What `refuse_older_metadata` let through for the open to act on.
#[derive(Default)]
pub(super) struct OssEpochsChecked {
    /// The journal's torn tail is the damaged bump of the epoch an OSS holds
    /// (`cut_tail_is_bump`): `(seq, record)`, for the caller to apply.
    pub(super) recovered: Option<(u64, Rec)>,
    /// OSSs not failed on record, past the lineage, not holding the epoch they were
    /// recorded left at: each OSS and the epoch it holds.
    pub(super) beyond_lineage: Vec<(usize, MetadataEpoch)>,
}

impl Store {
    /// Take the OSSs `checked` found past the lineage out of service (see the module), or
    /// refuse the open, nothing changed, when that leaves more OSSs out of service than
    /// the code tolerates, or when a backend cannot be taken out of service (a
    /// caller-supplied one that ignores `set_rolled_back`): then it would be read as current.
    pub(super) fn take_beyond_lineage_out(
        dir: &Path,
        (backends, state): (&[Box<dyn Backend>], &State),
        checked: &OssEpochsChecked,
        layout: &Layout,
    ) -> Result<(), StoreError> {
        if checked.beyond_lineage.is_empty() {
            return Ok(());
        }
        let recorded_number = state.metadata_epoch().map_or(0, |e| e.number);
        let tolerance = layout.geometry().fault_tolerance;
        let beyond: BTreeSet<usize> = checked.beyond_lineage.iter().map(|&(i, _)| i).collect();
        // Out of service already: failed on record, not answering (a missing mount, damaged
        // own files), or rolled back behind its recorded generation (`refuse_rolled_back`,
        // which runs after this).
        let down_already: BTreeSet<usize> = (0..backends.len())
            .filter(|i| !beyond.contains(i))
            .filter(|&i| {
                let recorded_generation = state.oss_generations.get(&i).copied().unwrap_or(0);
                state.failed_oss.contains(&i)
                    || !backends[i].healthy()
                    || backends[i]
                        .generation()
                        .is_some_and(|g| g < recorded_generation)
            })
            .collect();
        let problems: Vec<String> = checked
            .beyond_lineage
            .iter()
            .map(|&(i, told)| {
                Store::beyond_lineage_problem(i, &backends[i].location(), told, recorded_number)
            })
            .collect();
        if down_already.len() + beyond.len() > tolerance {
            return Err(StoreError::Metadata(Store::beyond_lineage_past_tolerance(
                dir,
                (backends, state),
                (&beyond, &down_already),
                (&problems, layout),
            )));
        }
        for (&(i, _), problem) in checked.beyond_lineage.iter().zip(&problems) {
            let b = &backends[i];
            b.set_rolled_back(Store::beyond_lineage_unavailable(
                dir,
                i,
                b.as_ref(),
                problem,
            ));
            if b.healthy() {
                return Err(StoreError::Metadata(format!(
                    "{}: {problem} Nothing was changed. This OSS's backend cannot be taken out of service for the open (it ignores `set_rolled_back`); leave it out (open the store without it): the store then opens degraded; then `exaraid store fail {0} --oss {i}` and `exaraid store rebuild {0} --oss {i}` rebuild it from the other OSSs",
                    dir.display(),
                )));
            }
            assert!(b.problem().is_some() || !b.healthy());
        }
        Ok(())
    }

    /// The problem of an OSS taken out of service past the lineage, as `status`, `scrub`
    /// and `online` name it.
    fn beyond_lineage_unavailable(
        dir: &Path,
        oss: usize,
        b: &dyn Backend,
        problem: &str,
    ) -> String {
        format!(
            "{problem} It is UNAVAILABLE (its elements are rebuilt from parity; a write to it records it failed) until it is rebuilt: `exaraid store rebuild {} --oss {oss}`. If this directory is this store's own OSS, back after being away (unmounted, its disk or enclosure off) while the store went on, and no other copy of the store has written to it, then instead: remove {}, and the next open takes it as it is (its generation is still checked against the store's record, so an older copy of it is still taken out of service) and the next writing command tells it the current epoch",
            dir.display(),
            Path::new(&b.location())
                .join(crate::backend::EPOCH_FILE)
                .display()
        )
    }

    /// The refusal of an open whose OSSs past the lineage would leave the store past its
    /// tolerance (review s15r R15-3d: with one OSS failed on record on raid5, the advice
    /// "move it aside, `fail`, `rebuild`" led nowhere: `fail` is refused past the
    /// tolerance, and the failed OSS cannot be rebuilt without the other).
    fn beyond_lineage_past_tolerance(
        dir: &Path,
        (backends, state): (&[Box<dyn Backend>], &State),
        (beyond, down_already): (&BTreeSet<usize>, &BTreeSet<usize>),
        (problems, layout): (&[String], &Layout),
    ) -> String {
        let d = dir.display();
        let down_why: Vec<String> = down_already
            .iter()
            .map(|&i| match state.failed_oss.contains(&i) {
                true => format!("OSS {i} failed on record"),
                false if backends[i].problem().is_some() => format!("OSS {i} unavailable"),
                false => format!("OSS {i} not answering (not mounted?)"),
            })
            .collect();
        let epoch_files: Vec<String> = beyond
            .iter()
            .map(|&i| {
                Path::new(&backends[i].location())
                    .join(crate::backend::EPOCH_FILE)
                    .display()
                    .to_string()
            })
            .collect();
        let failed: Vec<usize> = down_already
            .iter()
            .copied()
            .filter(|i| state.failed_oss.contains(i))
            .collect();
        let then_rebuild = match failed.first() {
            Some(first) => format!(
                "; then rebuild the failed OSSs {failed:?} (`exaraid store rebuild {d} --oss {first}`)"
            ),
            None => String::new(),
        };
        format!(
            "{d}: {} Nothing was changed. Out of service, OSSs {beyond:?} would leave {} OSSs out of service ({}{}) and {} tolerates {}: the store is not opened, since it could read nothing that needs them and no command could help. Ways out: (1) if that directory is this store's own OSS, back after being away (unmounted, its disk or enclosure off) while the store went on, and no other copy of the store has written to it, remove {}: the next open takes it as it is (its generation is still checked against the store's record, so an older copy of it is still taken out of service){then_rebuild}. (2) Otherwise bring the other OSSs back first (mount a missing directory; for one failed on record whose disk works again, move OSS {}'s directory aside, `exaraid store online {d} --oss N`, then put it back): the store then opens with it out of service and `exaraid store rebuild {d} --oss {}` rebuilds it. (3) Or restore the store directory and its OSS directories together from a backup",
            problems.join(" "),
            down_already.len() + beyond.len(),
            down_why.join(", "),
            if down_why.is_empty() { "" } else { ", " }.to_string()
                + &format!("OSSs {beyond:?} past the lineage"),
            layout.code_name(),
            layout.geometry().fault_tolerance,
            epoch_files.join(" and "),
            beyond.first().expect("some"),
            beyond.first().expect("some"),
        )
    }

    /// `status`: OSS `index`, in service, holds an epoch behind the store's: it was not told
    /// the latest ones (review s15r R15-3b: an OSS whose epoch file refuses writes took
    /// every data write and was never told, silently, until the store refused everything
    /// 1024 epochs later). What it is and what to do; `None` when it holds the latest.
    pub(super) fn epoch_not_told_warning(&self, core: &Core, index: usize) -> Option<String> {
        let b = &self.backends[index];
        if !b.healthy() || core.state.failed_oss.contains(&index) {
            return None;
        }
        let recorded = core.state.metadata_epoch()?;
        let epoch_file = Path::new(&b.location()).join(crate::backend::EPOCH_FILE);
        let held = match b.metadata_epoch() {
            Ok(Some(held)) => held,
            // Never told (an older binary's store, or the escape hatch's removal): no
            // lineage check applies to it, so nothing is coming.
            Ok(None) => return None,
            Err(e) => {
                return Some(format!(
                    "{e}: the next open refuses the store until it reads; check the disk (`dmesg`) and that file's permissions"
                ))
            }
        };
        if held.number >= recorded.number {
            return None;
        }
        let behind = recorded.number - held.number;
        let lineage = crate::state::EPOCH_LINEAGE_LEN;
        let recognised = core.state.oss_left_at(index) == Some(held);
        let what_then = match (behind >= lineage, recognised) {
            (_, true) => "the store recorded it left at that epoch, so an open still recognises it as this store's own at any distance".to_string(),
            (false, false) => format!(
                "the store holds no record of it left at that epoch: once it is {lineage} epochs behind (in {} more; each writing command makes two, each checkpoint one), an open takes it out of service until it is rebuilt",
                lineage - behind
            ),
            (true, false) => "it is past the lineage and not provably this store's: the next open takes it out of service until it is rebuilt".to_string(),
        };
        Some(format!(
            "it holds metadata epoch {}, {behind} epochs behind the store's ({}): it was not told the latest epochs although it is in service. Either its epoch file {} refuses writes (permissions, an immutable or append-only attribute, `lsattr`; a disk error, `dmesg`): make it writable, and the next writing command tells it; or it was away at the last writing command and is back (the next writing command tells it). Meanwhile {what_then}",
            held.number,
            recorded.number,
            epoch_file.display()
        ))
    }
}
