//! The cache-zone witness checked at open (session 43, s43b; see `State::cache_witness`).
//!
//! Why at open, with an OSS out of service: there a cache stripe row may have no column to
//! spare, and a stale element (a lost write: old bytes under their valid checksum) in it
//! can be neither located by the running parity nor rebuilt. A read of it finds it by the
//! witness and records it LOST itself (`check_cache_witness`), but a loss is owed to the
//! record before any read is served (`status` lists it, every reader is told the same),
//! so a degraded open reads every witnessed cached block once. With every OSS up a stale
//! block is rebuilt from parity by its read (and located by the settle's check), so a
//! healthy open reads nothing more. Bounded: at most `CACHE_WITNESS_PIECES_MAX` pieces,
//! read as runs of adjacent pieces.

use super::*;

impl Store {
    /// Read every witnessed block (cached, or carried home by a destage), when an OSS is
    /// failed on record or out of service, so that the stale ones go on record (LOST) now.
    /// Best effort: a read that fails otherwise leaves its block to the read's own check.
    pub(super) fn check_cache_witness_when_degraded(&self) {
        if self.kind != StrategyKind::Wcl || self.tolerance() == 0 {
            return;
        }
        let runs: Vec<(u64, u64, u64)> = {
            let core = self.core.lock();
            let degraded =
                !core.state.failed_oss.is_empty() || self.backends.iter().any(|b| !b.healthy());
            if !degraded || core.state.cache_witness.is_empty() {
                return;
            }
            let mut runs: Vec<(u64, u64, u64)> = Vec::new();
            for (&file, pieces) in &core.state.cache_witness {
                for (&a, &(z, _)) in pieces {
                    match runs.last_mut() {
                        Some((f, _, end)) if *f == file && *end >= a => *end = (*end).max(z),
                        _ => runs.push((file, a, z)),
                    }
                }
            }
            runs
        };
        for (file, a, z) in runs {
            let mut at = a;
            while at < z {
                let len = (z - at).min(WRITE_CHUNK_BYTES_MAX);
                let extents = {
                    let core = self.core.lock();
                    if !core.state.lost_in(file, at, len).is_empty() {
                        // Already on record: reads refuse it (a piece beside it is read
                        // by its own read's check).
                        at += len;
                        continue;
                    }
                    match self.lookup_newest(&core, file, at, len) {
                        Ok(x) => x,
                        Err(_) => break,
                    }
                };
                for x in &extents {
                    let mut buf = vec![0u8; x.len_bytes as usize];
                    // The read checks the witness and records a stale block LOST; any
                    // error is its reader's to meet again.
                    let _ =
                        self.read_range_for_client(exec::ElementRead::of_extent(file, x), &mut buf);
                }
                at += len;
            }
        }
    }
}

impl Store {
    /// The data columns of the cache stripe of `(file, stripe)` (its chunks `chunks`, their
    /// live bytes read into `buf`) whose bytes fail a piece of the cache-zone witness: each
    /// holds bytes older than the last acknowledged ones (a lost write under a valid
    /// checksum), so a decode must count it an erasure, not an input. Why (s44c; docs/store.md
    /// Limits before session 44): a decode through such a column into a column with no piece
    /// of its own (its block partly overwritten, so its piece dropped) rebuilt wrong bytes
    /// nothing checked: raid5, a failed data OSS beside a stale one read WRONG byte 0.
    /// Only where the planner's lookup names this very chunk as the newest copy of the
    /// piece's bytes (a piece is the crc of the newest write, and an older cache stripe of
    /// the same home stripe holds older bytes by right); columns in `skip` (erased already,
    /// or laid over by a running plan's bytes before it) are not checked. Bounded: one
    /// lookup per data element of one stripe, and the pieces within it.
    pub(super) fn witness_failing_columns(
        &self,
        core: Option<&Core>,
        (file, stripe): (u64, u64),
        chunks: &exec::Chunks,
        buf: &StripeBuf,
        skip: &BTreeSet<usize>,
    ) -> Vec<usize> {
        if self.kind != StrategyKind::Wcl {
            return Vec::new();
        }
        let g = self.layout.geometry().clone();
        let e = self.sb.element_bytes as u64;
        self.with_core(core, |c| {
            let mut failing: Vec<usize> = Vec::new();
            if !c.state.cache_witness.contains_key(&file) {
                return failing;
            }
            for (d, p) in g.data_pos.iter().enumerate() {
                if skip.contains(&p.col) || failing.contains(&p.col) {
                    continue;
                }
                let Some(&(oss, base)) = chunks.get(&p.col) else {
                    continue; // never written in this cache stripe: nothing read
                };
                let fa = self.layout.file_offset(stripe, d, 0);
                let Ok(extents) = self.lookup_newest(c, file, fa, e) else {
                    continue; // past the file's end, say: nothing checked (today's checks)
                };
                let row_base = base + p.row as u64 * e;
                let stale = extents.iter().any(|x| {
                    let here = x.zone == PlanZone::Cache
                        && x.oss == oss
                        && x.addr_bytes == row_base + x.element.offset_bytes;
                    let (xa, xz) = (x.file_offset_bytes, x.file_offset_bytes + x.len_bytes);
                    here && (c.state.cache_witness_in(file, xa, xz).into_iter())
                        .filter(|&(pa, pz, _)| xa <= pa && pz <= xz)
                        .any(|(pa, pz, crc)| {
                            let ea = (x.element.offset_bytes + (pa - xa)) as usize;
                            let ez = ea + (pz - pa) as usize;
                            assert!(ez as u64 <= e, "a piece lies within its element");
                            crc32c::crc32c(&buf.element(*p)[ea..ez]) != crc
                        })
                });
                if stale {
                    failing.push(p.col);
                }
            }
            failing
        })
    }
}
