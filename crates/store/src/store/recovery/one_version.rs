//! A data column whose disk died after a crash cut a read-modify-write over three or more
//! data columns of its stripe (review s21r R21-2, s22b).
//!
//! Every column left is in flight there, so the stripe's own redundancy proves no decode
//! (`confirm_by_parity` needs columns the write did not touch) and the column's acknowledged
//! bytes were recorded LOST, though the write may have written nothing at all. The write's
//! journaled crcs tell each block's version instead: its data crcs (`Rec::WriteCrcs`, with
//! its input) and its home parity crcs (`Rec::WriteParityCrcs`, before the plan's first
//! write: `Store::home_parity_crcs_journaled`). A plan with no parity record wrote nothing,
//! so every block verified is old. The failed column then decodes from k columns of one
//! version, checked by one more: two codewords that agree in k columns are equal, so the
//! decode is that version of the stripe (the old one gives the column's true bytes; the new
//! one too, outside the cut write's own range, and inside it bytes never acknowledged).

use super::*;

/// What the one cut client write of a home stripe journaled of the home parity it writes
/// (`Rec::WriteParityCrcs`, see `Store::home_parity_crcs_journaled`).
pub(super) struct CutHomeParity<'s> {
    /// Some parity record of the plan is on record. Each is appended before the plan's
    /// first write (all its waves' bytes are computed first), so without one the plan wrote
    /// nothing: a kill keeps every append that returned before it.
    pub began: bool,
    /// Its pieces over this stripe.
    pub pieces: Vec<&'s crate::state::ParityPieceCrcs>,
}

/// Which stripe a verified column's block belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Version {
    Old,
    New,
    /// Not in flight over the block: the same in both.
    Both,
}

impl Store {
    /// Block `i` of data column `pos` of `stripe`, beside one cut client write (`cut_writes`)
    /// that nothing else proved (see the module docs). Each other column read verified is
    /// told old or new by the write's crcs (`data_crcs`, `parity`), or old where the plan
    /// never began; a decode from the columns of one version is taken when at least one
    /// check beyond the k it needs agrees: another column of that version, a column told
    /// of the other one (its bytes the same in both: structured data can leave a parity
    /// block unchanged, so its crc matches both), or an erased column's stored checksum. So a block that verifies but holds neither version (a stale
    /// element) makes it fail instead of leaking into the decode. And, for the new version,
    /// a block failing its checksum whose whole payload matches what the write journaled
    /// for it (`torn_block_whole_new`: a torn block, new payload under its old checksum):
    /// it must agree, and counts as a check (review s25r R25-1: a write torn only in Q
    /// beside a dead column had k columns of the new version and no check, and the column's
    /// acknowledged bytes were recorded LOST); one of the k only where the verified columns
    /// of the new version are fewer (s27e). With exactly k columns of the new version and no
    /// other check, the crcs the write journaled for the blocks it covers whole that are not
    /// among the k check the decode (`journaled_crcs_check`, s27e: R25-1's P torn with Q
    /// old, and Q never written): every one of the k is proven (by its journaled crc, or by
    /// its checksum where the write did not touch it), and a wrong one (a stale element)
    /// makes the decode miss that crc. The old version is never decoded from exactly k:
    /// no crc proves a block old ("old" is only "not new"). `None`: nothing proven.
    pub(super) fn confirm_by_one_version(
        &self,
        buf: &StripeBuf,
        (stripe, i, pos): (u64, usize, Pos),
        (held, cut_writes): (&BTreeMap<Pos, Vec<Held>>, &BTreeMap<Pos, Ranges>),
        (data_crcs, parity): (Option<&WriteCrcRecords>, Option<&CutHomeParity<'_>>),
        keys: &BTreeMap<Pos, (usize, ElementKey)>,
    ) -> Result<Option<Vec<u8>>, StoreError> {
        let g = self.layout.geometry();
        let Some(parity) = parity else {
            return Ok(None);
        };
        if g.rows != 1 || self.tolerance() < 2 {
            return Ok(None); // an array code's column is many symbols
        }
        assert!(matches!(g.cell(pos), Cell::Data(_)));
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let (start, end) = (i as u64 * block, (i as u64 + 1) * block);
        let col_pos = |col: usize| Pos { row: 0, col };
        let written = |col: usize| -> Ranges {
            cut_writes
                .get(&col_pos(col))
                .map(|r| intersect(r, &[(start, end)]))
                .unwrap_or_default()
        };
        if g.parity_pos.iter().all(|p| written(p.col).is_empty()) {
            // No parity in flight here: not a stripe whose parity crcs the plan journaled.
            return Ok(None);
        }
        let mut row = StripeBuf::zeroed(g.rows, g.cols, block as usize);
        slice_stripe_into(buf, (start as usize)..(end as usize), &mut row);
        let (mut old_cols, mut new_cols, mut told) = (Vec::new(), Vec::new(), Vec::new());
        // Blocks failing their checksum that are whole of the new version by the crcs the
        // write journaled for them (`torn_block_whole_new`): a check beside the new
        // version's decode, never one of its k columns (review s25r R25-1).
        let mut torn_new: Vec<usize> = Vec::new();
        // Blocks failing their checksum that the write covers only in part, its part
        // matching the crcs it journaled for it (the payload new there, old beside it):
        // one of the new version's k where the whole ones are too few (s30e: nothing
        // proves the bytes beside the part; the decode's check does). Not taken, one is
        // read by `journaled_crcs_check`, its bytes beside the part against the decode's.
        let mut torn_part_new: Vec<usize> = Vec::new();
        for col in (0..g.cols).filter(|&c| c != pos.col) {
            let p = col_pos(col);
            let Some(state) = held.get(&p).map(|h| h[i]) else {
                continue; // no element here
            };
            if state == Held::Absent {
                continue; // erased: its bytes are unknown
            }
            let mine = written(col);
            let el = row.element(p);
            // A block verified is whole old or whole new: new where every part of it the
            // write wrote holds the write's bytes, else old.
            let landed = match g.cell(p) {
                Cell::Data(_) if !mine.is_empty() => {
                    data_crcs.and_then(|w| self.home_block_landed(w, (stripe, p, i), &mine, el))
                }
                Cell::Parity(_) if !mine.is_empty() => {
                    parity_landed(&parity.pieces, (stripe, col), &mine, el)
                }
                _ => None,
            };
            if state == Held::Failed {
                // A torn block (the write's payload under the old checksum) or a rotten one:
                // its bytes count only as the journaled crcs prove them, whole.
                if parity.began && torn_block_whole_new(&mine, (start, end), landed) {
                    torn_new.push(col);
                } else if parity.began && !mine.is_empty() && landed == Some(true) {
                    torn_part_new.push(col);
                }
                continue;
            }
            assert_eq!(state, Held::Verified);
            let version = if mine.is_empty() {
                Some(Version::Both)
            } else if !parity.began {
                if landed == Some(true) {
                    // The write's bytes are there though its plan has no parity crcs on
                    // record (a power cut that kept its input and data crcs, not the rest;
                    // or new bytes equal to the old): "wrote nothing" is not proven.
                    return Ok(None);
                }
                Some(Version::Old)
            } else {
                landed.map(|l| if l { Version::New } else { Version::Old })
            };
            if version.is_some() {
                told.push(col);
            }
            match version {
                Some(Version::Both) => {
                    old_cols.push(col);
                    new_cols.push(col);
                }
                Some(Version::Old) => old_cols.push(col),
                Some(Version::New) => new_cols.push(col),
                None => {} // no crc tells it: of neither version here
            }
        }
        let k = g.data_count();
        for (version, mut cols) in [(Version::Old, old_cols), (Version::New, new_cols)] {
            // Torn blocks proven whole new that only check the decode (s26c), or, where the
            // new version's verified columns are fewer than k, the ones taken among its k.
            let mut torn_checks = torn_new.clone();
            if version == Version::New && cols.len() < k && cols.len() + torn_new.len() >= k {
                // s27e: a torn block proven whole new by the crc the write journaled for
                // exactly it is as proven as a verified one the crc tells new (a wrong one
                // needs a crc32c collision); taken as one of the k, only for the new
                // version, and then the decode must pass `journaled_crcs_check` below.
                torn_checks = torn_new.split_off(k - cols.len());
                cols.append(&mut torn_new);
                cols.sort_unstable();
            }
            let torn_whole = torn_new.len();
            if version == Version::New
                && cols.len() + torn_whole < k
                && cols.len() + torn_whole + torn_part_new.len() >= k
            {
                // s30e (s27e's trial 46: P torn in part beside a dead column, Q old): a torn
                // block whose part matches the write's crc is as proven as an untouched
                // column by its checksum: each is wrong only by one more fault (rot beside
                // the part, a stale element), and every check below compares a whole
                // block of another column, which a decode through one wrong column misses
                // (an MDS code's decode carries each input's error into every other
                // column, at the same offsets).
                torn_checks.clear();
                cols.append(&mut torn_new);
                let mut parts = torn_part_new.clone();
                parts.truncate(k - cols.len());
                cols.extend(parts);
                cols.sort_unstable();
            }
            if cols.len() < k {
                continue;
            }
            let erased: Vec<usize> = (0..g.cols).filter(|c| !cols.contains(c)).collect();
            let Some(mut c) = self.decode_block(buf, i, &erased) else {
                continue;
            };
            // The codeword of the decoded data: every column of the version must agree.
            self.code
                .encode(&mut c)
                .map_err(|e| StoreError::Io(e.to_string()))?;
            if !cols
                .iter()
                .all(|&col| row.element(col_pos(col)) == c.element(col_pos(col)))
            {
                continue;
            }
            let mut checks = cols.len() - k;
            if version == Version::New {
                // Each torn block proven whole new must be the decode's: one that is not
                // says a column of the decode is not of the new version.
                let agree = |&col: &usize| row.element(col_pos(col)) == c.element(col_pos(col));
                if !torn_checks.iter().all(agree) {
                    continue;
                }
                checks += torn_checks.len();
            }
            // A column told of the other version agreeing: its old and new bytes are the
            // same here (a parity the write's changes cancel in), or the decode is wrong.
            checks += told
                .iter()
                .filter(|&&col| !cols.contains(&col))
                .filter(|&&col| row.element(col_pos(col)) == c.element(col_pos(col)))
                .count();
            for col in erased.iter().copied().filter(|&c| c != pos.col) {
                let p = col_pos(col);
                let Some(&(oss, key)) = keys.get(&p) else {
                    continue;
                };
                // A failed OSS's column has no checksum to read (review s8r R8-6).
                if held.get(&p).is_some_and(|h| h[i] == Held::Failed)
                    && self.backends[oss].healthy()
                    && self.checksum_proves(oss, key, i, c.element(p))?
                {
                    checks += 1;
                }
            }
            if checks == 0 && version == Version::New && parity.began {
                // Exactly k columns of the new version (review s25r R25-1's P torn with Q
                // old, and Q never written): no column is left to check with, but the
                // write journaled the crcs of the new version's blocks it covers whole;
                // those whose disk holds something else still check the decode.
                let not_decoded_from = (0..g.cols).filter(|col| !cols.contains(col));
                let others: Vec<usize> = not_decoded_from
                    .filter(|col| !torn_checks.contains(col))
                    .collect();
                let Some(n) = self.journaled_crcs_check(
                    (&c, &row, held),
                    (stripe, i),
                    &others,
                    &written,
                    (data_crcs, parity),
                ) else {
                    continue;
                };
                checks += n;
            }
            if checks >= 1 {
                return Ok(Some(c.element(pos).to_vec()));
            }
        }
        Ok(None)
    }

    /// The new version's decode `c` of block row `i` of `stripe`, made from exactly k
    /// columns, checked by the crcs the cut write journaled for the blocks of columns
    /// `others` (not among the k) that it covers whole (`written`, its in-flight ranges
    /// there): each is what the plan computed for that block of the new stripe, so the
    /// decode's bytes there must match it. Returns how many matched, `None` where one does
    /// not (a column of the decode is not of the new version: refused). A block the write
    /// covers in part checks the decode only where its bytes on disk (`row`, `held`) verify,
    /// or fail their checksum with the write's bytes in the part (torn): beside the write's
    /// part they are the same in both versions, so the decode's must equal them byte for
    /// byte, and in the part they must match the crc (s30e: s27e's trials 40 and 46, a write
    /// over part of a column with Q old; Q torn in part). Its crc alone proves only the
    /// part, and a decode's error may lie beside it (the comparison with the disk sees it
    /// there, exactly; a decode through one wrong column errs in every other column at the
    /// same offsets, an MDS code's property).
    fn journaled_crcs_check(
        &self,
        (c, row, held): (&StripeBuf, &StripeBuf, &BTreeMap<Pos, Vec<Held>>),
        (stripe, i): (u64, usize),
        others: &[usize],
        written: &dyn Fn(usize) -> Ranges,
        (data_crcs, parity): (Option<&WriteCrcRecords>, &CutHomeParity<'_>),
    ) -> Option<usize> {
        let g = self.layout.geometry();
        let block = CHECKSUM_BLOCK_BYTES as u64;
        let whole = [(i as u64 * block, (i as u64 + 1) * block)];
        let mut matched = 0;
        for &col in others {
            let p = Pos { row: 0, col };
            let mine = written(col);
            if mine.is_empty() {
                continue;
            }
            let landed = |bytes: &[u8]| match g.cell(p) {
                Cell::Data(_) => {
                    data_crcs.and_then(|w| self.home_block_landed(w, (stripe, p, i), &mine, bytes))
                }
                Cell::Parity(_) => parity_landed(&parity.pieces, (stripe, col), &mine, bytes),
                Cell::Empty => None,
            };
            if mine != whole {
                let (on_disk, decoded) = (row.element(p), c.element(p));
                let beside_proven = match held.get(&p).map(|h| h[i]) {
                    Some(Held::Verified) => true,
                    // A torn block (its part the write's bytes, under its old checksum):
                    // beside the part it holds the bytes it held before, as it would
                    // verified; rot there makes the check refuse, never pass.
                    Some(Held::Failed) => landed(on_disk) == Some(true),
                    _ => false,
                };
                if !beside_proven {
                    continue; // its bytes beside the part are proven by nothing
                }
                let beside = outside(&mine, whole[0].0, whole[0].1);
                let differs = beside.iter().any(|&(a, z)| {
                    let r = (a - whole[0].0) as usize..(z - whole[0].0) as usize;
                    on_disk[r.clone()] != decoded[r]
                });
                if differs {
                    return None;
                }
            }
            match landed(c.element(p)) {
                Some(true) => matched += 1,
                Some(false) => return None,
                None => {}
            }
        }
        Some(matched)
    }
}

/// Is a block failing its checksum, at element bytes `[start, end)`, whole of the cut
/// write's new version? Only where the write covers it whole (`mine`, its in-flight range
/// there) and every byte of it matches the crcs the write journaled for exactly that
/// element block (`landed`: `home_block_landed` for data, `parity_landed` for parity). A
/// torn block (new payload, old checksum) is; a rotten one matches only by a crc32c
/// collision. Where the write covers it in part, the bytes beside its range are proven by
/// nothing (rot there passes), so it is not. Shared rule (review s25r R25-1): such a block
/// may count as a check beside k columns that verify, never as one of them on its own.
pub(super) fn torn_block_whole_new(
    mine: &[(u64, u64)],
    (start, end): (u64, u64),
    landed: Option<bool>,
) -> bool {
    assert!(start < end && end - start == CHECKSUM_BLOCK_BYTES as u64);
    mine == [(start, end)] && landed == Some(true)
}

/// Does parity column `col`'s block (`payload`, verified or failing its checksum (see
/// `torn_block_whole_new`), at element bytes `[start, start +
/// 4096)` where `mine` is in flight) hold what the plan journaled it writes there (`pieces`)?
/// `None` where the pieces do not cover exactly `mine`, one range each (a piece lost with a
/// torn journal, two writes of a range): they tell no version then.
fn parity_landed(
    pieces: &[&crate::state::ParityPieceCrcs],
    (stripe, col): (u64, usize),
    mine: &[(u64, u64)],
    payload: &[u8],
) -> Option<bool> {
    let start = mine.first()?.0 / CHECKSUM_BLOCK_BYTES as u64 * CHECKSUM_BLOCK_BYTES as u64;
    let end = start + CHECKSUM_BLOCK_BYTES as u64;
    let mut parts: Vec<(u64, u64, u32)> = Vec::new();
    for piece in pieces
        .iter()
        .filter(|p| (p.stripe, p.row, p.col) == (stripe, 0, col))
    {
        let (a, z) = (
            piece.offset_bytes.max(start),
            (piece.offset_bytes + piece.len_bytes).min(end),
        );
        if a < z {
            parts.push((a, z, piece.crc_of(a, z)?));
        }
    }
    parts.sort_unstable();
    let mut covered: Ranges = Vec::new();
    for &(a, z, _) in &parts {
        crate::state::add_range(&mut covered, a, z);
    }
    if parts.windows(2).any(|w| w[0].1 > w[1].0) || covered != mine {
        return None;
    }
    Some(parts.iter().all(|&(a, z, crc)| {
        crc32c::crc32c(&payload[(a - start) as usize..(z - start) as usize]) == crc
    }))
}
