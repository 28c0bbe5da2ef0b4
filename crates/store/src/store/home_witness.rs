//! The home witness checked by a client's read (session 44, s44b; see `State::home_witness`
//! and `state::witness`). A home data block that passes its checksum but not its piece
//! holds bytes other than the last acknowledged ones (its OSS lost a write: a stale
//! element under its older, valid checksum): an erasure. The read rebuilds its element
//! from the row's parity and serves the rebuild only where it matches the piece; else the
//! block is recorded LOST (`HOME_WITNESS_STALE`) and the read fails `DataLost`, never
//! returning the stale bytes with success (`Store::check_cache_witness`, shared with the
//! cache-zone witness). A decode through a stale column (another column's OSS failed) is
//! checked too: its source blocks that fail their pieces are erasures
//! (`erase_home_blocks_failing_the_witness`), so the decode uses them not, or fails.

use super::read::{CorruptElement, HomeStripe};
use super::*;

/// The window token of a lost range whose home bytes differ from the crc on record of the
/// last acknowledged write there (`State::home_witness`) and that no parity rebuilt.
pub(super) const HOME_WITNESS_STALE: &str =
    "none: its home block holds bytes other than the last acknowledged ones (their crc on record differs: an OSS lost a write, or the metadata is older than the OSSs) and its stripe's parity could not rebuild them";

impl Store {
    /// Does a client read of this store check home bytes against the home witness? Non-WCL
    /// stores (WCL home bytes are checked against the cache-zone witness the destage
    /// leaves, `State::cache_witness`).
    pub(super) fn home_witnessed(&self) -> bool {
        self.kind != StrategyKind::Wcl && self.tolerance() > 0
    }

    /// The witness pieces of `file` over bytes `a..z` that a client read of this store
    /// checks: the cache-zone witness on WCL, the home witness otherwise.
    pub(super) fn witness_in(
        &self,
        core: Option<&Core>,
        file: u64,
        a: u64,
        z: u64,
    ) -> Vec<(u64, u64, u32)> {
        self.with_core(core, |c| {
            if self.kind == StrategyKind::Wcl {
                c.state.cache_witness_in(file, a, z)
            } else {
                c.state.home_witness_in(file, a, z)
            }
        })
    }

    /// Before a client read's decode of home stripe `stripe` of `file`: the data blocks
    /// read whole under a valid checksum whose witness piece they do not match become
    /// erasures (`home.corrupt`), so that no decode goes through a stale column (review
    /// s13r R13-4's lost write beside a failed OSS: the decode of the failed column's bytes
    /// through it was WRONG with no checksum to see it). A block so erased beyond the
    /// tolerance makes its row's decode fail: LOST, never a wrong byte. Returns the
    /// blocks erased, `(position, block)`.
    pub(super) fn erase_home_blocks_failing_the_witness(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        home: &mut HomeStripe,
    ) -> Vec<(Pos, usize)> {
        let mut erased = Vec::new();
        if !self.home_witnessed() {
            return erased;
        }
        let sdb = self.layout.stripe_data_bytes();
        let (fa, fz) = (stripe * sdb, (stripe + 1) * sdb);
        let pieces = self.with_core(core, |c| c.state.home_witness_in(file, fa, fz));
        if pieces.is_empty() {
            return erased;
        }
        let e = self.sb.element_bytes as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let positions: Vec<Pos> = self.layout.geometry().data_pos.clone();
        for (d, &pos) in positions.iter().enumerate() {
            if home.unavailable_cols.contains(&pos.col) {
                continue;
            }
            let at = self.layout.file_offset(stripe, d, 0);
            let mut stale: BTreeSet<usize> = BTreeSet::new();
            for &(pa, pz, crc) in &pieces {
                if pa < at || pz > at + e {
                    continue;
                }
                let i = ((pa - at) / block) as usize;
                let unread = home
                    .corrupt
                    .iter()
                    .any(|c| c.pos == pos && c.blocks.contains(&i));
                let bytes = &home.buf.element(pos)[(pa - at) as usize..(pz - at) as usize];
                if !unread && crc32c::crc32c(bytes) != crc {
                    stale.insert(i);
                }
            }
            if stale.is_empty() {
                continue;
            }
            erased.extend(stale.iter().map(|&i| (pos, i)));
            match home.corrupt.iter_mut().find(|c| c.pos == pos) {
                Some(c) => c.blocks.extend(stale),
                None => home.corrupt.push(CorruptElement {
                    pos,
                    blocks: stale,
                    missing: false,
                }),
            }
        }
        erased
    }

    /// A client read's decode of `pos` in home stripe `stripe` failed (`err`: block rows
    /// `lost` past the tolerance) with blocks the home witness erased among those rows
    /// (`witness_erased`): the loss is the witness's finding, which no `fail` recorded (a
    /// failed OSS's losses are recorded by its failure, where rows were past the tolerance
    /// then). Recorded now, when the caller holds no core lock (a read outside any plan):
    /// the wanted blocks of `pos` and the stale blocks in those rows, so that `status`
    /// lists them and every reader is told the same; else `err` as it is.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn witness_decode_lost(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        pos: Pos,
        (wanted, lost): (&BTreeSet<usize>, &BTreeSet<usize>),
        witness_erased: &[(Pos, usize)],
        err: StoreError,
    ) -> StoreError {
        let in_lost: Vec<(Pos, usize)> = (witness_erased.iter())
            .filter(|(_, i)| lost.contains(i))
            .copied()
            .collect();
        if in_lost.is_empty() || core.is_some() {
            return err;
        }
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let size = self.file_size_for_clipping(core, file);
        let blocks = (wanted.iter().filter(|i| lost.contains(i)))
            .map(|&i| (pos, i))
            .chain(in_lost);
        let mut ranges: Vec<LostRange> = Vec::new();
        for (p, i) in blocks {
            let Cell::Data(d) = g.cell(p) else {
                continue;
            };
            let a = self.layout.file_offset(stripe, d, i as u64 * block);
            let z = (a + block).min(size);
            if a < z && !ranges.iter().any(|r| r.offset_bytes == a) {
                ranges.push(LostRange {
                    file,
                    offset_bytes: a,
                    len_bytes: z - a,
                    oss: self.layout.oss_of(file, stripe, p.col),
                    token: HOME_WITNESS_STALE.into(),
                    cache_addr_bytes: None,
                    made_final_by_rebuild: false,
                });
            }
        }
        if ranges.is_empty() {
            return err;
        }
        let listed: Vec<String> = (ranges.iter())
            .map(|r| format!("{}..{}", r.offset_bytes, r.offset_bytes + r.len_bytes))
            .collect();
        let mut c = self.core.lock();
        if let Err(e) = self.journal(&mut c, Rec::Lost { ranges }, true) {
            return e;
        }
        StoreError::DataLost(format!(
            "{err}; file bytes {} are recorded lost: a column the decode needs holds bytes other than the last acknowledged ones (their crc on record differs: its OSS lost a write). Write them again from your own copy",
            listed.join(", ")
        ))
    }

    /// Does the home witness confirm block `i` of `element` rebuilt from parity
    /// (`rebuilt`), where its stored checksum differs (`confirm_rebuilt`)? Where its
    /// bytes on disk (`on_disk`) are a lost write's: checksum-valid older bytes, which the
    /// witness erased (`erase_home_blocks_failing_the_witness`). Confirmed when the block
    /// holds at least one piece, every piece in it matches the rebuilt bytes, and the
    /// rebuilt bytes outside the pieces equal the bytes on disk (a lost write changes
    /// only its own bytes; elsewhere a decode through another wrong column would show).
    pub(super) fn home_witness_confirms(
        &self,
        core: Option<&Core>,
        file: u64,
        element: &exaraid_plan::ElementRange,
        i: usize,
        rebuilt: &[u8],
        on_disk: &[u8],
    ) -> bool {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        assert_eq!(rebuilt.len() as u64, block);
        assert_eq!(on_disk.len() as u64, block);
        let Cell::Data(d) = element.cell else {
            return false;
        };
        if !self.home_witnessed() {
            return false;
        }
        let a = self.layout.file_offset(element.stripe, d, i as u64 * block);
        let pieces = self.with_core(core, |c| c.state.home_witness_in(file, a, a + block));
        let inside = |x: u64| pieces.iter().any(|&(pa, pz, _)| pa <= x && x < pz);
        !pieces.is_empty()
            && pieces.iter().all(|&(pa, pz, crc)| {
                pa >= a
                    && pz <= a + block
                    && crc32c::crc32c(&rebuilt[(pa - a) as usize..(pz - a) as usize]) == crc
            })
            && (0..block).all(|j| inside(a + j) || rebuilt[j as usize] == on_disk[j as usize])
    }
}
