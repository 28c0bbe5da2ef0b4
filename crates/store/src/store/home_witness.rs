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
        assert_eq!((home.file, home.stripe), (file, stripe));
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
            home.witness_erased.extend(stale.iter().map(|&i| (pos, i)));
            match home.corrupt.iter_mut().find(|c| c.pos == pos) {
                Some(c) => c.blocks.extend(stale),
                None => home.corrupt.push(CorruptElement {
                    pos,
                    blocks: stale,
                    missing: false,
                }),
            }
        }
        if !erased.is_empty() {
            home.witness_pieces = pieces;
        }
        erased
    }

    /// The data blocks of block row `i` of `home` the home witness erased, each with its
    /// first file byte and the pieces over it.
    fn witnessed_blocks(&self, home: &HomeStripe, i: usize) -> Vec<WitnessedBlock> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        (home.witness_erased.iter())
            .filter(|&&(_, b)| b == i)
            .filter_map(|&(pos, _)| match g.cell(pos) {
                Cell::Data(d) => Some((
                    pos,
                    self.layout.file_offset(home.stripe, d, i as u64 * block),
                )),
                _ => None,
            })
            .map(|(pos, a)| {
                let pieces = (home.witness_pieces.iter())
                    .filter(|&&(pa, pz, _)| pa < a + block && a < pz)
                    .copied()
                    .collect();
                (pos, a, pieces)
            })
            .collect()
    }

    /// Does `decoded` (block row `i` of `home` as a decode left it; `as_read`, the row as
    /// read) give every block of the row the home witness erased its pieces? True where
    /// the witness erased none there.
    pub(super) fn witness_row_confirmed(
        &self,
        home: &HomeStripe,
        i: usize,
        decoded: &StripeBuf,
        as_read: &StripeBuf,
    ) -> bool {
        let witnessed = self.witnessed_blocks(home, i);
        witnessed.is_empty() || blocks_confirmed(&witnessed, decoded, as_read)
    }

    /// Block row `i` of `home` (`row`, as read) erased in columns `erased` (fewer than the
    /// tolerance) holds blocks the home witness erased, and its decode left the parity
    /// equations in disagreement (`DecodeCheck::Disagree`: no single column explains it).
    /// Each subset of the row's survivors the code can decode from (every `tolerance -
    /// erased.len()` more columns erased: raid6 beside one erasure, a rebuild from P alone
    /// and from Q alone, among others) is decoded, and the witness picks: a rebuild is a
    /// candidate where every witness-erased block of the row matches its pieces (inside
    /// them: `blocks_match_pieces`); all candidates must agree, and the one row must equal
    /// the disk outside the pieces (`blocks_confirmed`; review r46c HIGH-1: compared with
    /// the disk when picking, a stale disk outside the pieces picked a stale rebuild).
    /// Why (review r45c MEDIUM):
    /// a data column AND one parity lost a write (raid6 4+2, Q right): the decode through
    /// the stale parity rebuilt the stale bytes, Q disagreed, and the row went LOST where
    /// Q alone rebuilds the acknowledged bytes. Returns the row as the candidates rebuild
    /// it and its surviving columns that rebuild changed (wrong as read), where there is
    /// at least one candidate and all of them rebuild the same row; else `None` (no
    /// candidate, or two that disagree: LOST as before, never a guess). A wider code
    /// than `WITNESS_SUBSET_TRIES_MAX` subsets allow is not tried (`None`). Cost: decodes
    /// of one 4 KiB block row, only where the parity check failed (a cold path).
    pub(super) fn witness_pick(
        &self,
        home: &HomeStripe,
        i: usize,
        row: &StripeBuf,
        erased: &[usize],
    ) -> Result<Option<(StripeBuf, Vec<usize>)>, StoreError> {
        let g = self.layout.geometry();
        assert_eq!(row.element_bytes, CHECKSUM_BLOCK_BYTES, "one block row");
        let tolerance = self.tolerance();
        let witnessed = self.witnessed_blocks(home, i);
        if witnessed.is_empty() || erased.len() >= tolerance {
            return Ok(None);
        }
        assert!(
            witnessed.iter().all(|(p, ..)| erased.contains(&p.col)),
            "witness-erased blocks are erased"
        );
        let survivors: Vec<usize> = (0..g.cols).filter(|c| !erased.contains(c)).collect();
        let extra = tolerance - erased.len();
        let tries = subsets_count(survivors.len(), extra, WITNESS_SUBSET_TRIES_MAX);
        if tries > WITNESS_SUBSET_TRIES_MAX {
            return Ok(None);
        }
        let mut picked: Option<StripeBuf> = None;
        let mut combo: Vec<usize> = (0..extra).collect();
        let mut tried = 0usize;
        loop {
            tried += 1;
            assert!(tried <= tries, "at most the subsets counted");
            let mut cols: Vec<usize> = erased.to_vec();
            cols.extend(combo.iter().map(|&j| survivors[j]));
            cols.sort_unstable();
            let mut trial = row.clone();
            let matches = self.code.decode(&mut trial, &cols).is_ok()
                && blocks_match_pieces(&witnessed, &trial);
            if matches {
                match &picked {
                    None => picked = Some(trial),
                    Some(p) if *p == trial => {}
                    // Two rebuilds match the pieces and disagree elsewhere: no guess.
                    Some(_) => return Ok(None),
                }
            }
            if !next_subset(&mut combo, survivors.len()) {
                break;
            }
        }
        assert_eq!(tried, tries, "every subset tried once");
        let Some(picked) = picked else {
            return Ok(None);
        };
        // r46c: every rebuild matching the pieces agreed; it must also equal the disk
        // outside them (else the disk there or the rebuild is stale, unknown which).
        if !blocks_confirmed(&witnessed, &picked, row) {
            return Ok(None);
        }
        let changed = |col: usize| {
            (0..g.rows).any(|r| {
                let p = Pos { row: r, col };
                picked.element(p) != row.element(p)
            })
        };
        let wrong_cols: Vec<usize> = survivors.iter().copied().filter(|&c| changed(c)).collect();
        assert!(
            wrong_cols.len() <= extra,
            "a rebuild changes only the columns it erased"
        );
        Ok(Some((picked, wrong_cols)))
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
        let blocks = (wanted.iter().filter(|i| lost.contains(i)))
            .map(|&i| (pos, i))
            .chain(in_lost);
        let ranges = self.home_stale_ranges(core, file, stripe, blocks);
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

    /// The lost ranges (`HOME_WITNESS_STALE`) of home data blocks `blocks` (`(position,
    /// block)`) of home stripe `stripe` of `file`: one per file block, clipped to the
    /// file's size (a block past it holds nothing of the file).
    fn home_stale_ranges(
        &self,
        core: Option<&Core>,
        file: u64,
        stripe: u64,
        blocks: impl Iterator<Item = (Pos, usize)>,
    ) -> Vec<LostRange> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let size = self.file_size_for_clipping(core, file);
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
        ranges
    }

    /// `scrub --repair` (s45c): home data blocks `blocks` of `stripe` of `file` fail their
    /// home witness pieces and no rebuild from the row's parity matches them: recorded
    /// LOST (those not on record already, so a second scrub adds nothing), as a client
    /// read of them would record them, so that `status` names them before any read.
    /// Called with no core lock held. Returns the file ranges, listed for the report.
    pub(super) fn record_home_witness_stale(
        &self,
        file: u64,
        stripe: u64,
        blocks: &[(Pos, usize)],
    ) -> Result<String, StoreError> {
        let blocks_max = self.layout.geometry().data_pos.len() * self.sb.element_bytes;
        assert!(blocks.len() <= blocks_max / CHECKSUM_BLOCK_BYTES);
        let ranges = self.home_stale_ranges(None, file, stripe, blocks.iter().copied());
        let listed: Vec<String> = (ranges.iter())
            .map(|r| format!("{}..{}", r.offset_bytes, r.offset_bytes + r.len_bytes))
            .collect();
        let mut c = self.core.lock();
        let new: Vec<LostRange> = (ranges.into_iter())
            .filter(|r| {
                let on_record: u64 = (c.state.lost_in(file, r.offset_bytes, r.len_bytes).iter())
                    .map(|l| l.end_bytes().min(r.end_bytes()) - l.offset_bytes.max(r.offset_bytes))
                    .sum();
                on_record < r.len_bytes
            })
            .collect();
        if !new.is_empty() {
            self.journal(&mut c, Rec::Lost { ranges: new }, true)?;
        }
        Ok(listed.join(", "))
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
        pieces_confirm_block(&pieces, a, rebuilt, on_disk)
    }
}

/// A data block the home witness erased: its position, its first file byte, the pieces
/// over it.
type WitnessedBlock = (Pos, u64, Vec<(u64, u64, u32)>);

/// Does block row `decoded` give each of `witnessed` its pieces, its bytes outside them
/// those on disk (`as_read`; `pieces_confirm_block`)?
fn blocks_confirmed(
    witnessed: &[WitnessedBlock],
    decoded: &StripeBuf,
    as_read: &StripeBuf,
) -> bool {
    (witnessed.iter()).all(|(pos, a, pieces)| {
        pieces_confirm_block(pieces, *a, decoded.element(*pos), as_read.element(*pos))
    })
}

/// Does `decoded` give each of `witnessed` its pieces (inside them only)? r46c: the
/// candidates of `witness_pick`, which must all agree.
fn blocks_match_pieces(witnessed: &[WitnessedBlock], decoded: &StripeBuf) -> bool {
    let block = CHECKSUM_BLOCK_BYTES as u64;
    (witnessed.iter()).all(|(pos, a, pieces)| {
        let b = decoded.element(*pos);
        !pieces.is_empty()
            && pieces.iter().all(|&(pa, pz, crc)| {
                pa >= *a
                    && pz <= *a + block
                    && crc32c::crc32c(&b[(pa - a) as usize..(pz - a) as usize]) == crc
            })
    })
}

/// The most subsets of a block row's survivors `Store::witness_pick` decodes: raid6 4+2
/// beside one erasure tries 5, rs 4+3 beside one 15 (C(6, 2)), rs 8+4 beside one 165 is
/// past it (left LOST as before). Each try decodes one 4 KiB block row.
pub(super) const WITNESS_SUBSET_TRIES_MAX: usize = 64;

/// Blocks s45c's check reads whole for one piece of a read step and hands on
/// (`check_displaced_home_pieces`): a block read there holds a displaced piece that overlaps
/// the step's range of the element and reaches past it, so it holds the range's first or
/// last byte: its two edge blocks at most (review r52e LOW-5).
pub(super) const WITNESS_BLOCKS_PER_STEP_PIECE_MAX: usize = 2;

/// C(`n`, `k`), or `cap + 1` where it is past `cap`.
fn subsets_count(n: usize, k: usize, cap: usize) -> usize {
    assert!(k <= n);
    // C(n, k) = C(n, n - k); the smaller side keeps every step's C(n, j) at most the result.
    let k = k.min(n - k);
    let mut c = 1usize;
    for j in 0..k {
        // Exact at each step: C(n, j + 1) = C(n, j) * (n - j) / (j + 1).
        c = c * (n - j) / (j + 1);
        if c > cap {
            return cap + 1;
        }
    }
    c
}

/// The next `combo.len()`-subset of `0..n` in lexicographic order (indices ascending), or
/// `false` after the last.
fn next_subset(combo: &mut [usize], n: usize) -> bool {
    let k = combo.len();
    for j in (0..k).rev() {
        if combo[j] < n - k + j {
            combo[j] += 1;
            for l in j + 1..k {
                combo[l] = combo[l - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// Do witness pieces `pieces` (file bytes `(first, end, crc32c)`) confirm `rebuilt`, a 4 KiB
/// block whose byte 0 is file byte `a`, as the last acknowledged bytes? At least one piece,
/// each within the block and matching it, and outside them the rebuild equals the disk
/// (`on_disk`): a lost write changes only its own bytes; elsewhere a decode through
/// another wrong column would show.
fn pieces_confirm_block(
    pieces: &[(u64, u64, u32)],
    a: u64,
    rebuilt: &[u8],
    on_disk: &[u8],
) -> bool {
    let block = CHECKSUM_BLOCK_BYTES as u64;
    assert_eq!(rebuilt.len() as u64, block);
    assert_eq!(on_disk.len() as u64, block);
    let inside = |x: u64| pieces.iter().any(|&(pa, pz, _)| pa <= x && x < pz);
    !pieces.is_empty()
        && pieces.iter().all(|&(pa, pz, crc)| {
            pa >= a
                && pz <= a + block
                && crc32c::crc32c(&rebuilt[(pa - a) as usize..(pz - a) as usize]) == crc
        })
        && (0..block).all(|j| inside(a + j) || rebuilt[j as usize] == on_disk[j as usize])
}

impl Store {
    /// Read step `i` of client write `plan` read home data `bytes`: where they overlap
    /// home witness pieces the write's input dropped (`Core::displaced_home_pieces`), each
    /// such piece is checked (its bytes outside the step read from disk). Why (s45c, review
    /// s13r R13-4's partial overwrite): a lost write leaves older bytes under a valid
    /// checksum, while the row's parity holds the acknowledged ones; a read-modify-write
    /// over part of it took the stale bytes as the old value of its delta (the parity then
    /// encoded neither version there) and its input dropped the lost write's piece, so
    /// the rest of the lost range read stale with success for good. A block failing its
    /// piece is rebuilt from the row's parity first: where the rebuild matches every piece
    /// in the block and equals the disk outside them (`rebuild_confirms_pieces`), it is
    /// written back whole (the acknowledged bytes, under the plan's stripe locks, before
    /// any write of the plan: a crash leaves the block as good as before) and the step
    /// returns the rebuilt bytes, so the delta takes the bytes the parity holds. Else the
    /// block is recorded LOST (`HOME_WITNESS_STALE`) and the write is refused (nothing of
    /// it written): never a delta through stale bytes, never the stale bytes left with
    /// success.
    /// A piece's bytes outside the step are read as the whole 4 KiB blocks they lie in (one
    /// read per block, verified, as a read of the piece alone verifies those same blocks),
    /// and each block whose pieces all matched goes into `witness_blocks`: these are the
    /// write's edge blocks, and `heal_unread_edge_blocks` takes them from there instead of
    /// reading them again (task s52e: s51d counted every such block read twice).
    pub(super) fn check_displaced_home_pieces(
        &self,
        plan: &IoPlan,
        i: usize,
        bytes: &mut [u8],
        witness_blocks: &Mutex<super::exec::EdgeBlocks>,
    ) -> Result<(), StoreError> {
        let step = &plan.steps[i];
        if step.op != Op::Read
            || step.zone != PlanZone::Data
            || !matches!(plan.cause, exaraid_plan::PlanCause::Write { .. })
            || !self.home_witnessed()
        {
            return Ok(());
        }
        let displaced = match self.core.lock().displaced_home_pieces.get(&plan.id) {
            Some(d) => d.clone(),
            None => return Ok(()),
        };
        crate::bench::probe_add(&crate::bench::PROBE.home_witness_checked_steps, 1);
        assert_eq!(bytes.len() as u64, step.len_bytes);
        let e = self.sb.element_bytes as u64;
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let mut at = 0u64;
        for piece in &step.pieces {
            let el = &piece.element;
            let buf = &mut bytes[at as usize..(at + el.len_bytes) as usize];
            let addr = step.addr_bytes + at;
            at += el.len_bytes;
            let Some(fa) = self.layout.file_offset_of(el) else {
                continue; // parity: no piece
            };
            let fz = fa + el.len_bytes;
            // File byte of element byte 0; pieces lie within one block of one element.
            let base = fa - el.offset_bytes;
            let over: Vec<(u64, u64, u32)> = (displaced.iter())
                .filter(|&&(pa, pz, _)| pa < fz && fa < pz && pa >= base && pz <= base + e)
                .copied()
                .collect();
            if over.is_empty() {
                continue;
            }
            crate::bench::probe_add(
                &crate::bench::PROBE.home_witness_checked_pieces,
                over.len() as u64,
            );
            let key = self.key(PlanZone::Data, step.file, addr);
            let mut stale: BTreeSet<u64> = BTreeSet::new();
            // Whole blocks of this element read verified here, by block of the element.
            let mut read_whole: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
            for &(pa, pz, crc) in &over {
                let got = if fa <= pa && pz <= fz {
                    crc32c::crc32c(&buf[(pa - fa) as usize..(pz - fa) as usize])
                } else {
                    // A piece lies within one 4 KiB block (the witness state's invariant,
                    // `state::witness`: a write's crc of its bytes in one block), and `stale`
                    // below marks that one block: a piece over two would leave one unmarked.
                    let b = (pa - base) / block;
                    assert!(
                        pa < pz && pz - base <= (b + 1) * block && (b + 1) * block <= e,
                        "a displaced piece lies within one block of its element"
                    );
                    if let std::collections::btree_map::Entry::Vacant(slot) = read_whole.entry(b) {
                        let mut whole = vec![0u8; block as usize];
                        let kind = crate::state::Unplanned::WitnessPiece;
                        // Counted per device read made (review r52e LOW-3): a second piece
                        // in a block already read here costs no read and no count.
                        crate::bench::probe_add(&crate::bench::PROBE.home_witness_piece_reads, 1);
                        let at = (b * block) as usize;
                        let read = self.read_unplanned(kind, step.oss, key, at, &mut whole);
                        if read.is_err() {
                            continue; // today's checks alone
                        }
                        slot.insert(whole);
                    }
                    let at = (pa - base - b * block) as usize;
                    crc32c::crc32c(&read_whole[&b][at..at + (pz - pa) as usize])
                };
                if got != crc {
                    stale.insert((pa - base) / block);
                }
            }
            // A block read here holds a piece reaching past the step's range of the element
            // while overlapping it: it holds that range's first or last byte, so at most
            // two blocks per step piece (the write's two edge blocks). A stale block is
            // rewritten below (or the write refused), so only blocks left as read are
            // handed on.
            assert!(read_whole.len() <= WITNESS_BLOCKS_PER_STEP_PIECE_MAX);
            {
                let mut handed = witness_blocks.lock();
                for (b, whole) in read_whole {
                    if !stale.contains(&b) {
                        // One read step per (OSS, element, block) in a plan (see the
                        // `write_back_confirmed` loop below): never an entry already there.
                        let was = handed.insert((step.oss, key, b as usize), whole);
                        assert!(was.is_none(), "one read step per block of an element");
                    }
                }
            }
            if stale.is_empty() {
                continue;
            }
            let (first, last) = (stale.first().copied(), stale.last().copied());
            let (first, last) = (first.expect("not empty"), last.expect("not empty"));
            let from = (first * block) as usize;
            let n = ((last + 1 - first) * block) as usize;
            let rebuilt = self
                .rebuild_element(None, step.file, el.stripe, el.pos, (from, n), false)
                .ok()
                .map(|(whole, _)| whole);
            let mut on_disk = vec![0u8; e as usize];
            let disk_read = self.backends[step.oss].read_unverified(key, &mut on_disk);
            if !matches!(&disk_read, Err(err) if err.is_missing() || err.is_unavailable()) {
                self.count_unplanned(step.oss, crate::state::Unplanned::WitnessPiece);
            }
            let confirmed = match (&rebuilt, disk_read) {
                (Some(whole), Ok(_)) => stale.iter().all(|&b| {
                    self.rebuild_confirms_pieces(step.file, base, b, whole, &on_disk, &over)
                }),
                _ => false,
            };
            let whole_element = exaraid_plan::ElementRange {
                offset_bytes: 0,
                len_bytes: e,
                ..*el
            };
            let Some(whole) = rebuilt.filter(|_| confirmed) else {
                let starts: Vec<u64> = stale.iter().map(|&b| base + b * block).collect();
                return Err(self.witness_stale_lost(
                    None,
                    step.oss,
                    step.file,
                    &whole_element,
                    &starts,
                    format!(
                        "a write over them read them as its old bytes: they sit on OSS {} under a valid checksum, but their crc on record (the last acknowledged write's) differs (the OSS lost a write), and no rebuild from the stripe's parity matches it; the write was refused, nothing of it written",
                        step.oss
                    ),
                ));
            };
            for &b in &stale {
                // No other step of this plan handed this block on (review r52e MEDIUM-1):
                // the planner reads each (OSS, element, block) in at most one read step of
                // a client write's plan (rmw: one old-data read per written piece, one
                // piece per element and stripe; rcw: one merged run per unwritten part of
                // an element, a prefix or a suffix of it; `coalesce` only joins steps), so
                // the bytes read for it here are the only ones handed anywhere, and they
                // are not (`stale`). Were that ever broken, the heal would take bytes no
                // longer on disk: refused here rather than written over.
                assert!(
                    !witness_blocks
                        .lock()
                        .contains_key(&(step.oss, key, b as usize)),
                    "a stale block handed on by another read step of the plan"
                );
                let (a, len) = ((b * block) as usize, block as usize);
                self.write_back_confirmed(step.oss, key, &whole, a, len)?;
            }
            let from = el.offset_bytes as usize;
            buf.copy_from_slice(&whole[from..from + buf.len()]);
        }
        assert_eq!(at, step.len_bytes, "a step's pieces lie back to back");
        Ok(())
    }

    /// Does `whole` (an element rebuilt from parity, whose element byte 0 is file byte
    /// `base`) hold the last acknowledged bytes of its block `b`, by the pieces in the block
    /// (the displaced ones, `displaced`, and the home witness's own; `pieces_confirm_block`)?
    fn rebuild_confirms_pieces(
        &self,
        file: u64,
        base: u64,
        b: u64,
        whole: &[u8],
        on_disk: &[u8],
        displaced: &[(u64, u64, u32)],
    ) -> bool {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (a, z) = (base + b * block, base + (b + 1) * block);
        let mut pieces: Vec<(u64, u64, u32)> = (displaced.iter())
            .filter(|&&(pa, pz, _)| pa < z && a < pz)
            .copied()
            .collect();
        pieces.extend(self.with_core(None, |c| c.state.home_witness_in(file, a, z)));
        let (from, to) = ((a - base) as usize, (z - base) as usize);
        pieces_confirm_block(&pieces, a, &whole[from..to], &on_disk[from..to])
    }
}

impl Store {
    /// An open's handling of the home witness pieces that unfinished home writes displaced
    /// (`State::home_witness_displaced`, session 46, s46a), in two passes around recovery's
    /// settle. Why (review r45c HIGH): a partial overwrite of a lost write, cut by a kill
    /// right after its input, had dropped the lost write's piece for good (s45c's copy of
    /// it lived in memory only), and after the reopen the rest of that lost write read
    /// stale with success. A cut write is not acknowledged: each block must read its last
    /// acknowledged bytes, or the cut write's new bytes where recovery kept them, or be
    /// LOST on record.
    ///
    /// `Before` the settle (`rebuild_stale_displaced_blocks`): a block readable now that
    /// fails its piece and does not hold the cut write's bytes (its crc, where on record)
    /// is a lost write's stale block: rebuilt from its row's parity (which the settle is
    /// about to re-encode from the data) and, where the rebuild matches every piece of the
    /// block and the disk outside them (`pieces_confirm_block`), written back: the
    /// acknowledged bytes, which the settle then keeps. Nothing journaled: a kill redoes it.
    ///
    /// `After` the settle (`decide_displaced_home_pieces`), from each block as recovery
    /// left it (decoded where unreadable): a piece it matches goes back into the witness;
    /// where the cut write's own crc matches its bytes in the block (recovery kept what
    /// landed), the piece is dropped, as that write's `Durable` would have; else, where the
    /// write was cut before its crcs (`DisplacedHomePieces::crcs_promised`: none of its
    /// bytes is in any block), the block is stale and the piece is kept (session 47,
    /// review r46a HIGH-1: the read names it LOST on record, or rebuilds it from a parity
    /// subset); else, where the `Before` pass found the block so and unable to be torn
    /// (`block_cannot_be_torn`, session 53, s53d), the block is stale too: the piece is
    /// kept and the block rebuilt where a rebuild confirms it, else recorded LOST (a
    /// `Rec::Lost` before the decision); else (neither: a torn unacknowledged write
    /// recovery kept in part) it is dropped, as before session 46 (put back, it named LOST
    /// blocks recovery kept right: session 46's CI). Journaled (`Rec::HomePiecesDecided`,
    /// fsync'd).
    fn displaced_pieces_pass(
        &self,
        core: &mut Core,
        pass: DisplacedPass,
        proven_stale: &ProvenStale,
    ) -> Result<ProvenStale, StoreError> {
        assert!(pass == DisplacedPass::After || proven_stale.is_empty());
        let mut stale_found = ProvenStale::new();
        if core.state.home_witness_displaced.is_empty() {
            return Ok(stale_found);
        }
        let block = CHECKSUM_BLOCK_BYTES as u64;
        // `(file, first, piece, the write's bytes, whether its crcs are on record, its crc
        // of the piece's block if so, cut before its crcs)`: copies, not the entries'
        // crcs (one clone per piece of its write's crcs was the whole write's, each).
        type Displaced = (
            u64,
            u64,
            crate::state::HomePiece,
            (u64, u64),
            bool,
            Option<u32>,
            bool,
        );
        let displaced: Vec<Displaced> = (core.state.home_witness_displaced_pieces().into_iter())
            .map(|d| {
                let on_record = d.crcs.is_some();
                (
                    d.file,
                    d.first_bytes,
                    d.piece,
                    d.write,
                    on_record,
                    d.write_crc,
                    d.cut_before_crcs,
                )
            })
            .collect();
        assert!(displaced.len() <= crate::state::HOME_WITNESS_PIECES_MAX);
        let mut kept: Vec<crate::state::KeptHomePiece> = Vec::new();
        let mut stripes: BTreeMap<(u64, u64), HomeStripe> = BTreeMap::new();
        let mut written_back = 0usize;
        // `(file, stripe, position, block of the element)` of the blocks recorded LOST.
        let mut lost_blocks: Vec<(u64, u64, Pos, usize)> = Vec::new();
        for &(file, a, piece, (wa, wz), crcs_on_record, write_crc, cut_before_crcs) in &displaced {
            assert!(
                !(cut_before_crcs && crcs_on_record),
                "a write cut before its crcs has none on record"
            );
            assert!(
                crcs_on_record || write_crc.is_none(),
                "a block crc comes with the write's crcs"
            );
            let z = piece.end_bytes;
            assert!(a < z && z - a <= block, "a piece lies in one block");
            let keep = crate::state::KeptHomePiece {
                file,
                first_bytes: a,
                piece,
            };
            if !self.home_witnessed() {
                break; // no read checks them: nothing to keep
            }
            let at = self.layout.locate(file, a);
            let (stripe, pos) = (at.stripe, at.pos);
            // Element byte of file byte `a`, and the block's first byte in the element and
            // in the file.
            let in_el = at.offset_in_element_bytes;
            let b_el = in_el / block * block;
            let b_file = a - (in_el - b_el);
            let (lo, hi) = (b_el as usize, (b_el + block) as usize);
            let home = match stripes.entry((file, stripe)) {
                std::collections::btree_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::btree_map::Entry::Vacant(v) => {
                    match self.read_home_blocks(Some(core), file, stripe) {
                        Ok(h) => v.insert(h),
                        Err(_) => {
                            kept.push(keep); // the read's checks decide it
                            continue;
                        }
                    }
                }
            };
            let unread = home.unavailable_cols.contains(&pos.col)
                || (home.corrupt.iter())
                    .any(|c| c.pos == pos && c.blocks.contains(&((b_el / block) as usize)));
            let el: Vec<u8> = match (unread, pass) {
                (false, _) => home.buf.element(pos).to_vec(),
                (true, DisplacedPass::Before) => continue, // recovery decides it first
                (true, DisplacedPass::After) => {
                    match self.rebuild_element(Some(core), file, stripe, pos, (lo, hi - lo), false)
                    {
                        Ok((whole, _)) => whole,
                        Err(_) => {
                            kept.push(keep); // the read's decode fails or checks it
                            continue;
                        }
                    }
                }
            };
            let bytes =
                |fa: u64, fz: u64| &el[(fa - b_file) as usize + lo..(fz - b_file) as usize + lo];
            if crc32c::crc32c(bytes(a, z)) == piece.crc {
                kept.push(keep);
                continue;
            }
            // The cut write's own bytes in this block, by its crc of the block (the entry
            // keeps the crc of each block a piece lies in: `DisplacedWriteCrcs`).
            assert_eq!(b_file / block, a / block, "file blocks are element blocks");
            let landed = write_crc.is_some_and(|crc| {
                let (ca, cz) = (wa.max(b_file), wz.min(b_file + block));
                ca < cz && crc32c::crc32c(bytes(ca, cz)) == crc
            });
            if landed {
                continue; // dropped: the cut write's bytes stand there
            }
            if pass == DisplacedPass::After && cut_before_crcs {
                // Cut before any block write of it (its input promised its crcs, and they
                // never came): the block holds no byte of it, so failing the piece it is
                // stale (a lost write the rebuild before the settle could not match: P
                // failed, or stale too). Kept: the read rebuilds it where a parity subset
                // matches the piece, else names it LOST on record; never the stale bytes
                // with success (review r46a HIGH-1).
                kept.push(keep);
                continue;
            }
            // Found before the settle failing the piece, not the cut write's and never torn
            // (`block_cannot_be_torn`), and still neither: stale (task s53d). Kept, as a
            // write cut before its crcs; rebuilt below where a rebuild now confirms, else
            // recorded LOST now, so `status` names it before any read.
            let stale_after = pass == DisplacedPass::After && proven_stale.contains(&(file, a));
            if stale_after && unread {
                kept.push(keep); // the read's decode checks it against the piece
                continue;
            }
            if pass == DisplacedPass::After && !stale_after {
                // Neither the piece nor the cut write's whole part: recovery kept a block
                // a torn cut write left (an unacknowledged write may land in part, old
                // and new bytes side by side). Dropped, as before session 46: put back, it
                // named LOST blocks recovery had kept right (CI of session 46: array codes
                // killed at a page cut, `s27b_array_crash_alone_every_block_write`). A
                // stale block only the Before pass could rebuild reads as before s46a.
                continue;
            }
            if pass == DisplacedPass::Before
                && write_crc.is_some()
                && self.block_cannot_be_torn(core, file, stripe, pos, b_file, &el[lo..hi])
            {
                stale_found.insert((file, a));
            }
            if stale_after {
                kept.push(keep);
            }
            let rebuilt = self.rebuild_element(Some(core), file, stripe, pos, (lo, hi - lo), false);
            let Ok((whole, _)) = rebuilt else {
                if stale_after {
                    lost_blocks.push((file, stripe, pos, (b_el / block) as usize));
                }
                continue;
            };
            let mut pieces: Vec<(u64, u64, u32)> = (displaced.iter())
                .filter(|&&(f, pa, p, ..)| f == file && pa < b_file + block && b_file < p.end_bytes)
                .map(|&(_, pa, p, ..)| (pa, p.end_bytes, p.crc))
                .collect();
            pieces.extend(core.state.home_witness_in(file, b_file, b_file + block));
            if pieces_confirm_block(&pieces, b_file, &whole[lo..hi], &el[lo..hi]) {
                if let Some((oss, key)) = self.home_key(file, stripe, pos) {
                    self.write_back_confirmed(oss, key, &whole, lo, hi - lo)?;
                    home.buf.element_mut(pos)[lo..hi].copy_from_slice(&whole[lo..hi]);
                    written_back += 1;
                    stale_found.remove(&(file, a)); // rebuilt: the settle keeps it right
                }
            } else if stale_after {
                lost_blocks.push((file, stripe, pos, (b_el / block) as usize));
            }
        }
        assert!(lost_blocks.len() <= displaced.len());
        assert!(stale_found.len() <= displaced.len());
        assert!(written_back <= displaced.len() && kept.len() <= displaced.len());
        match pass {
            DisplacedPass::Before => {
                if written_back > 0 {
                    // Durable before the settle reads them and re-encodes the parity.
                    let all: Vec<usize> = (0..self.backends.len()).collect();
                    for (oss, err) in self.sync_one_by_one(&all) {
                        self.distrust_after_failed_sync(
                            oss,
                            &err,
                            "the open's write-back of a lost write's blocks",
                        );
                    }
                }
                Ok(stale_found)
            }
            DisplacedPass::After => {
                let mut ranges: Vec<LostRange> = Vec::new();
                for (file, stripe, pos, b) in lost_blocks {
                    let one =
                        self.home_stale_ranges(Some(core), file, stripe, [(pos, b)].into_iter());
                    for r in one {
                        let on_record: u64 =
                            (core.state.lost_in(file, r.offset_bytes, r.len_bytes))
                                .iter()
                                .map(|l| {
                                    l.end_bytes().min(r.end_bytes())
                                        - l.offset_bytes.max(r.offset_bytes)
                                })
                                .sum();
                        let listed = ranges
                            .iter()
                            .any(|x| (x.file, x.offset_bytes) == (file, r.offset_bytes));
                        if on_record < r.len_bytes && !listed {
                            ranges.push(r);
                        }
                    }
                }
                if !ranges.is_empty() {
                    // Before the decision: a kill between them decides the pieces again.
                    self.journal(core, Rec::Lost { ranges }, true)?;
                }
                self.journal(core, Rec::HomePiecesDecided { kept }, true)?;
                Ok(ProvenStale::new())
            }
        }
    }

    /// Can no cut write have left block `b_file` of `file` (element `pos` of `stripe`,
    /// `bytes` as it stands before the settle) torn, old and new bytes side by side? A cut
    /// write leaves a block whole old or whole new, but where a zone file page boundary
    /// cuts the block (`backend::page_cut_in_block`): a kill stops a pwrite there (head
    /// new, tail old), a power cut may keep either page (head old, tail new). Such a block
    /// is torn-free only where the write's page-cut crcs of it are on record, both shapes,
    /// and it holds neither. And no other cut writer's bytes over the block: its bytes
    /// beside this write's fail this write's piece and crc without being stale (review
    /// r52b MEDIUM-1's shape, on home blocks). Why (task s53d, review r52e's scene): a
    /// block that fails its displaced piece and the cut write's crc and cannot be torn
    /// holds bytes neither acknowledged nor written by the cut write: a lost write's stale
    /// block, which the `After` pass dropped the piece of, and its stale bytes read with
    /// success.
    fn block_cannot_be_torn(
        &self,
        core: &Core,
        file: u64,
        stripe: u64,
        pos: Pos,
        b_file: u64,
        bytes: &[u8],
    ) -> bool {
        let block = CHECKSUM_BLOCK_BYTES as u64;
        assert_eq!(bytes.len() as u64, block);
        assert_eq!(b_file % block, 0, "file blocks are element blocks");
        let state = &core.state;
        let over = |wa: u64, wz: u64| wa < b_file + block && b_file < wz;
        // The cut writes over the block: this one's plans, if alone.
        let writers: Vec<&crate::state::DisplacedHomePieces> = (state.home_witness_displaced)
            .iter()
            .filter(|d| d.file == file && over(d.offset_bytes, d.offset_bytes + d.len_bytes))
            .collect();
        let [d] = writers.as_slice() else {
            return false; // several (or, unexpectedly, none): as before
        };
        let Some(plans) = d.crcs.as_ref().map(|c| &c.plans) else {
            return false;
        };
        let others = (state.write_crcs.iter()).any(|w| {
            w.file == file
                && !w.plans.iter().any(|p| plans.contains(p))
                && over(w.offset_bytes, w.offset_bytes + w.len_bytes)
        });
        if others {
            return false;
        }
        let Some((_, key)) = self.home_key(file, stripe, pos) else {
            return false;
        };
        let e = self.sb.element_bytes;
        let b_el = (self.layout.locate(file, b_file).offset_in_element_bytes / block) as usize;
        if crate::backend::page_cut_in_block(e, key.slot, b_el).is_none() {
            return true;
        }
        let cuts = (state.write_parity_crcs.iter())
            .filter(|w| w.file == file && plans.contains(&w.plan))
            .flat_map(|w| w.page_cuts.iter())
            .find(|c| (c.stripe, c.row, c.col, c.block) == (stripe, pos.row, pos.col, b_el as u64));
        cuts.is_some_and(|c| {
            c.old_head_crc.is_some()
                && c.new_tail_crc.is_some()
                && !c.holds(bytes)
                && !c.holds_head_dropped(bytes)
        })
    }

    /// `displaced_pieces_pass` before recovery's settle.
    /// Returns the pieces whose blocks it found stale and could not rebuild, for the
    /// `After` pass (`block_cannot_be_torn`).
    pub(super) fn rebuild_stale_displaced_blocks(
        &self,
        core: &mut Core,
    ) -> Result<ProvenStale, StoreError> {
        self.displaced_pieces_pass(core, DisplacedPass::Before, &ProvenStale::new())
    }

    /// `displaced_pieces_pass` after recovery's settle (or at an open with no recovery to
    /// run, where a write that wrote nothing left its entry).
    /// `proven_stale`: the `Before` pass's finding (empty where none ran).
    pub(super) fn decide_displaced_home_pieces(
        &self,
        core: &mut Core,
        proven_stale: &ProvenStale,
    ) -> Result<(), StoreError> {
        self.displaced_pieces_pass(core, DisplacedPass::After, proven_stale)?;
        Ok(())
    }
}

/// Displaced pieces `(file, first byte)` whose blocks the `Before` pass found failing the
/// piece and the cut write's crc, not torn, and not rebuilt (`Store::block_cannot_be_torn`).
pub(super) type ProvenStale = BTreeSet<(u64, u64)>;

/// The two passes of `Store::displaced_pieces_pass`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DisplacedPass {
    Before,
    After,
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_counted_and_walked_once_each() {
        for (n, k) in [(5, 1), (6, 2), (4, 0), (4, 4), (10, 9)] {
            let count = subsets_count(n, k, 1000);
            let mut combo: Vec<usize> = (0..k).collect();
            let mut seen = BTreeSet::new();
            loop {
                assert!(combo.windows(2).all(|w| w[0] < w[1]) && combo.iter().all(|&j| j < n));
                assert!(seen.insert(combo.clone()), "each subset once");
                if !next_subset(&mut combo, n) {
                    break;
                }
            }
            assert_eq!(seen.len(), count, "C({n}, {k})");
        }
        assert_eq!(
            subsets_count(12, 3, WITNESS_SUBSET_TRIES_MAX),
            WITNESS_SUBSET_TRIES_MAX + 1
        );
    }
}
