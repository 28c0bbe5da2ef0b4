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
