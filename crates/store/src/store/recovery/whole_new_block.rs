//! A cache data block that fails its checksum yet is, whole, the block after the one cut
//! client write (session 26, s26b).
//!
//! Why: a torn block (the write's new payload under the block's old checksum: what a kill
//! between the backend's payload and checksum writes leaves) was an erasure to the checks
//! beside a cut write (`stale_beside_cut`, `confirm_by_versions`). With a dead column beside
//! it that used up raid6's tolerance, so nothing checked the row, and a stale element there
//! was decoded into the dead column and went home with success (s25c: WRONG BYTES). The
//! write journaled, and synced before its first cache write, the crc32c of every whole block
//! it writes (`Rec::WriteCrcs` where it covers the block, `WriteParityCrcs::edge_blocks`
//! where it covers part of it and read the rest): a payload matching one of those is the
//! block after the write, byte for byte (or a crc32c collision, one in 2^32). Its stored
//! checksum says nothing here and is never asked: a block is never known by its own
//! checksum alone, only by what the write journaled for exactly that element and block.

use super::*;

impl Store {
    /// Is `payload` (block `i` of cache data position `pos` of `(file, stripe)`, as on disk)
    /// whole the block after the cut client write `plan`: the crc32c the write journaled for
    /// exactly this element's block, the write's whole-block crc (`Rec::WriteCrcs`, where
    /// its range covers the block) or its edge-block crc (`edge_blocks`, where it covers
    /// part)? `false` with nothing on record (a power cut before the records, a journal of
    /// an older binary), at a parity position, or where no crc matches.
    pub(super) fn cut_block_whole_new(
        &self,
        core: &Core,
        plan: PlanId,
        (file, stripe, pos): (u64, u64, Pos),
        i: usize,
        payload: &[u8],
    ) -> bool {
        assert_eq!(payload.len(), CHECKSUM_BLOCK_BYTES, "one checksum block");
        let Cell::Data(d) = self.layout.geometry().cell(pos) else {
            return false;
        };
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let crc = crc32c::crc32c(payload);
        let file_start = self.layout.file_offset(stripe, d, i as u64 * block);
        let covered_whole = (core.state.write_crcs.iter())
            .filter(|w| w.plans.contains(&plan) && w.file == file)
            .any(|w| w.crc_of(file_start, file_start + block) == Some(crc));
        let edge_whole = (core.state.write_parity_crcs.iter())
            .filter(|w| w.plan == plan && w.file == file)
            .flat_map(|w| w.edge_blocks.iter())
            .filter(|b| (b.stripe, b.row, b.col, b.block) == (stripe, pos.row, pos.col, i as u64))
            .any(|b| b.crc == crc);
        covered_whole || edge_whole
    }
}
