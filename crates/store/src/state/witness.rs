//! The witnesses of lost writes, as the journal builds them: crc32c pieces of the last
//! acknowledged bytes of 4 KiB blocks, kept apart from the blocks (ZFS's answer to lost
//! writes). Two of them share this machinery (pending writes, `overwritten`, piece
//! insertion):
//! - the cache-zone witness (session 43, s43b: `State::cache_witness`): WCL cache writes,
//!   until the settle's `PlannerReset` carried every cache stripe home;
//! - the home witness (session 44, s44b: `State::home_witness`): client writes of non-WCL
//!   stores to HOME data elements (rmw; delayed stores' writes outside a window). No settle
//!   clears it: bounded by [`HOME_WITNESS_PIECES_MAX`], the oldest pieces evicted first.
//!
//! One write, top to bottom: its `Input::Write` drops the pieces it overlaps (the blocks
//! hold either version until it is durable) and marks the pending writes it overlaps
//! (`PendingWitness::overwritten`); its `Rec::WriteCrcs`, right after, goes pending
//! (cache: the input said `crcs_follow`; home: it did not, on a non-WCL store, the only
//! other journaler of `WriteCrcs`); at the `Durable` of its last plan its pieces go in,
//! each only where no other piece and no pending write overlaps it.

use super::*;

/// A witness piece's value: the end byte of the piece (its first byte is its key) and
/// the crc32c of its bytes; the home witness adds when it went in.
pub trait WitnessPiece {
    fn end(&self) -> u64;
    fn crc(&self) -> u32;
}

impl WitnessPiece for (u64, u32) {
    fn end(&self) -> u64 {
        self.0
    }
    fn crc(&self) -> u32 {
        self.1
    }
}

impl WitnessPiece for HomePiece {
    fn end(&self) -> u64 {
        self.end_bytes
    }
    fn crc(&self) -> u32 {
        self.crc
    }
}

/// One piece an unfinished home write displaced (`State::home_witness_displaced_pieces`).
#[derive(Clone, Copy, Debug)]
pub struct DisplacedPiece<'a> {
    pub file: u64,
    pub first_bytes: u64,
    pub piece: HomePiece,
    /// The write's bytes (`DisplacedHomePieces::offset_bytes`, `len_bytes`).
    pub write: (u64, u64),
    /// The write's crcs (`DisplacedWriteCrcs`), if on record.
    pub crcs: Option<&'a DisplacedWriteCrcs>,
    /// The crc of the write's bytes in the block the piece lies in, if on record.
    pub write_crc: Option<u32>,
    /// Its input promised its crcs and a later record came first: cut before any block
    /// write of it (`DisplacedHomePieces::crcs_promised`).
    pub cut_before_crcs: bool,
}

/// A piece of the home witness (`State::home_witness`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HomePiece {
    pub end_bytes: u64,
    pub crc: u32,
    /// The journal sequence number of the `Durable` that put it in: the oldest go first
    /// past the bound (`HOME_WITNESS_PIECES_MAX`).
    pub seq: u64,
}

/// Most pieces `State::home_witness` keeps (all files): 2^16 pieces, the 256 MiB of home
/// 4 KiB blocks written most recently (at least 3/4 of it right after an eviction), about
/// 5 MiB of snapshot when full (measured by `the_home_witness_evicts_its_oldest_pieces_
/// past_its_bound`). Past it the oldest quarter is evicted: a block without a piece is
/// read as before session 44 (a lost write of it reads stale, as documented).
pub const HOME_WITNESS_PIECES_MAX: usize = 1 << 16;

/// Most home writes `State::home_witness_pending` holds (see `CACHE_WITNESS_PENDING_MAX`).
pub const HOME_WITNESS_PENDING_MAX: usize = 4096;

type Pieces<P> = BTreeMap<u64, BTreeMap<u64, P>>;

/// Drop the pieces of `file` overlapping bytes `a..z`.
fn drop_pieces<P: WitnessPiece>(map: &mut Pieces<P>, file: u64, a: u64, z: u64) {
    let Some(pieces) = map.get_mut(&file) else {
        return;
    };
    // Pieces lie within one block: one starting a block before `a` may reach into it.
    let from = a.saturating_sub(WriteCrcs::BLOCK_BYTES);
    let gone: Vec<u64> = (pieces.range(from..z))
        .filter(|(_, p)| p.end() > a)
        .map(|(&start, _)| start)
        .collect();
    for start in gone {
        pieces.remove(&start);
    }
    if pieces.is_empty() {
        map.remove(&file);
    }
}

/// Take the pieces of `file` overlapping bytes `a..z` out: `(first, piece)`.
fn take_pieces<P: WitnessPiece + Copy>(
    map: &mut Pieces<P>,
    file: u64,
    a: u64,
    z: u64,
) -> Vec<(u64, P)> {
    let Some(pieces) = map.get(&file) else {
        return Vec::new();
    };
    let taken: Vec<(u64, P)> = (pieces.range(a.saturating_sub(WriteCrcs::BLOCK_BYTES)..z))
        .filter(|(_, p)| p.end() > a)
        .map(|(&start, &p)| (start, p))
        .collect();
    drop_pieces(map, file, a, z);
    taken
}

/// The pieces of `file` overlapping bytes `a..z`: `(first, end, crc32c)`.
fn pieces_in<P: WitnessPiece>(map: &Pieces<P>, file: u64, a: u64, z: u64) -> Vec<(u64, u64, u32)> {
    let Some(pieces) = map.get(&file) else {
        return Vec::new();
    };
    (pieces.range(a.saturating_sub(WriteCrcs::BLOCK_BYTES)..z))
        .filter(|(_, p)| p.end() > a)
        .map(|(&start, p)| (start, p.end(), p.crc()))
        .collect()
}

fn piece_count<P>(map: &Pieces<P>) -> usize {
    map.values().map(|p| p.len()).sum()
}

/// A write's input on record: the pending writes it overlaps get no piece there.
fn note_overwritten(pending: &mut [PendingWitness], file: u64, a: u64, z: u64) {
    for p in pending {
        let w = &p.crcs;
        if w.file != file || z <= w.offset_bytes || w.offset_bytes + w.len_bytes <= a {
            continue;
        }
        if p.overwritten.len() >= PENDING_WITNESS_OVERWRITTEN_MAX {
            p.overwritten = vec![(0, u64::MAX)];
        } else {
            p.overwritten.push((a, z));
        }
    }
}

/// A write's crcs on record: pending until its plans are durable. Past `max` the oldest
/// write gets no piece: today's checks alone for its blocks, never a wrong one (review
/// r43b LOW-2: each input scans the list).
fn push_pending(pending: &mut Vec<PendingWitness>, w: &WriteCrcs, max: usize) {
    if pending.len() >= max {
        pending.remove(0);
    }
    pending.push(PendingWitness {
        crcs: w.clone(),
        overwritten: Vec::new(),
    });
    assert!(pending.len() <= max);
}

/// The pending writes whose last plans `plans` made durable, taken out of `pending`, as
/// the pieces that may go in: `(file, first, end, crc32c)`, none written over by a later
/// write (durable before this one, or not yet) nor met by a write still pending (nothing
/// tells which bytes are last there). The caller inserts each where no piece is.
fn durable_pieces(pending: &mut Vec<PendingWitness>, plans: &[u64]) -> Vec<(u64, u64, u64, u32)> {
    for w in pending.iter_mut() {
        w.crcs.plans.retain(|p| !plans.contains(p));
    }
    let (done, still): (Vec<PendingWitness>, Vec<PendingWitness>) = std::mem::take(pending)
        .into_iter()
        .partition(|w| w.crcs.plans.is_empty());
    *pending = still;
    let block = WriteCrcs::BLOCK_BYTES;
    let mut out = Vec::new();
    for PendingWitness {
        crcs: w,
        overwritten,
    } in done
    {
        let end = w.offset_bytes + w.len_bytes;
        for (j, &crc) in w.block_crcs.iter().enumerate() {
            let b = w.offset_bytes / block + j as u64;
            let (a, z) = (w.offset_bytes.max(b * block), end.min((b + 1) * block));
            assert!(a < z, "a write's crc covers some of its block");
            let over = overwritten.iter().any(|&(p, q)| p < z && a < q);
            let met = pending.iter().any(|p| {
                let p = &p.crcs;
                p.file == w.file && p.offset_bytes < z && a < p.offset_bytes + p.len_bytes
            });
            if !over && !met {
                out.push((w.file, a, z, crc));
            }
        }
    }
    out
}

/// Put piece `a..z` of `file` in, unless a piece overlaps it (a newer write's, or an
/// older one's in the same record: neither tells the block's last bytes for sure).
fn insert_piece<P: WitnessPiece>(map: &mut Pieces<P>, file: u64, a: u64, z: u64, piece: P) -> bool {
    let pieces = map.entry(file).or_default();
    let block = WriteCrcs::BLOCK_BYTES;
    let newer = (pieces.range(a.saturating_sub(block)..z)).any(|(_, p)| p.end() > a);
    if !newer {
        pieces.insert(a, piece);
    }
    if pieces.is_empty() {
        map.remove(&file);
    }
    !newer
}

impl State {
    /// The witnesses' part of applying `rec` (see the module docs). `cache_follow`: the
    /// record before was an `Input::Write` whose crcs follow (a WCL cache write's);
    /// `home_follow`: one whose crcs do not (a `WriteCrcs` after it is a home write's).
    pub(super) fn apply_witnesses(&mut self, rec: &Rec, cache_follow: bool, home_follow: bool) {
        if home_follow && !matches!(rec, Rec::WriteCrcs(_)) {
            // The home input before had no crcs of its own (a window's write, or a write of
            // no home data): nothing will tell whether its bytes landed, so the pieces it
            // displaced go, as before session 46. One whose input promised them was cut
            // before any block write of it (its crcs come right after its input, under the
            // same lock, before its plans run): its entry stays, undecided, for the open's
            // decision (review r46a HIGH-1: this record is often the open's own first one,
            // its epoch bump, and dropping the entry here read a stale block with success
            // where no rebuild matched). Every replay keeps it alike, so an open killed
            // before its decision leaves it to the next one.
            if (self.home_witness_displaced.last())
                .is_some_and(|d| d.crcs.is_none() && !d.crcs_promised)
            {
                self.home_witness_displaced.pop();
            }
        }
        debug_assert!(
            (self.home_witness_displaced.iter().rev().skip(1))
                .all(|d| d.crcs.is_some() || d.crcs_promised),
            "only the last displaced entry waits for crcs it did not promise"
        );
        if !matches!(rec, Rec::WriteCrcs(_)) {
            // A cache write's input promises its crcs as the very next record (both appended
            // under the core lock before any plan of it is admitted: `Store::write`). Any
            // other record after it: it was cut before them (a kill, a power cut, a refused
            // append, a tail cut of the crcs), no block write of it ran and no crcs will
            // name its plans. Recovery reads an entry only through a cut plan it names
            // (`cache_witness_displaced_in`; such a write's plans are never begun below
            // full tolerance, `cache_write_without_its_crcs`, and in no entry at it), so
            // none can use this one: it goes now, not at the settle (review r52b LOW-2:
            // kept, every snapshot until then said header version 13 for nothing). Not
            // keyed on `cache_follow`: a snapshot taken right after the input (its crcs'
            // append refused, another writer's checkpoint) drops the flag, and its replay
            // drops the entry here alike.
            self.drop_cache_entry_without_plans();
        }
        match rec {
            Rec::Input(Input::Write {
                file,
                offset_bytes,
                len_bytes,
                crcs_follow,
                home_crcs_follow,
                ..
            }) => {
                // Every write, its crcs on record or not (a binary before session 27 appends
                // none): its bytes may land in the blocks it touches from here on.
                let (a, z) = (*offset_bytes, offset_bytes + len_bytes);
                let cache_taken = take_pieces(&mut self.cache_witness, *file, a, z);
                self.displace_cache_pieces(*file, (a, z), cache_taken, *crcs_follow);
                let displaced = take_pieces(&mut self.home_witness, *file, a, z);
                let home = match *crcs_follow {
                    true => None,
                    false => Some(*home_crcs_follow),
                };
                self.displace_home_pieces(*file, (a, z), displaced, home);
                note_overwritten(&mut self.cache_witness_pending, *file, a, z);
                note_overwritten(&mut self.home_witness_pending, *file, a, z);
                self.cache_crcs_follow = *crcs_follow;
                self.home_crcs_follow = !*crcs_follow;
            }
            Rec::WriteCrcs(w) if cache_follow || home_follow => {
                // A piece of its blocks tells older bytes from here on (dropped with its
                // input already; again, should a record come between).
                let (a, z) = (w.offset_bytes, w.offset_bytes + w.len_bytes);
                if cache_follow {
                    drop_pieces(&mut self.cache_witness, w.file, a, z);
                    // The pieces its input displaced wait for its plans now.
                    if let Some(d) = self.cache_witness_displaced.last_mut() {
                        let same = (d.file, d.offset_bytes, d.len_bytes)
                            == (w.file, w.offset_bytes, w.len_bytes);
                        if d.plans.is_empty() && same {
                            d.plans = w.plans.clone();
                        }
                    }
                    // Crcs naming no plan, or another write's: no plan of the entry is on
                    // record, none can be cut (as above).
                    self.drop_cache_entry_without_plans();
                    push_pending(
                        &mut self.cache_witness_pending,
                        w,
                        CACHE_WITNESS_PENDING_MAX,
                    );
                } else {
                    drop_pieces(&mut self.home_witness, w.file, a, z);
                    push_pending(&mut self.home_witness_pending, w, HOME_WITNESS_PENDING_MAX);
                    // The pieces its input displaced wait for its plans now.
                    if let Some(d) = self.home_witness_displaced.last_mut() {
                        let same = (d.file, d.offset_bytes, d.len_bytes)
                            == (w.file, w.offset_bytes, w.len_bytes);
                        if d.crcs.is_none() && same {
                            // Only what the decision needs: the crcs of the blocks its
                            // pieces lie in (review r46a MEDIUM-1: the whole write's were
                            // kept, a crc per block written, in every snapshot).
                            d.crcs = Some(DisplacedWriteCrcs::narrowed(w, &d.pieces));
                        }
                    }
                }
            }
            Rec::Durable { plans } => {
                self.witness_durable_cache_writes(plans);
                // A cache write durable whole: its own pieces witness its blocks now. (An
                // entry without plans goes too: only a session 52 snapshot holds one, see
                // `drop_cache_entry_without_plans`.)
                self.drop_cache_plans_of(plans);
                self.witness_durable_home_writes(plans);
                // A write durable whole: its own pieces witness its blocks now.
                self.home_witness_displaced
                    .retain_mut(|d| match &mut d.crcs {
                        Some(w) => {
                            w.plans.retain(|p| !plans.contains(p));
                            !w.plans.is_empty()
                        }
                        None => true,
                    });
            }
            Rec::WroteNothing { plans, .. } => {
                // Plans on record as having written nothing are never begun for recovery
                // (`Store::never_began`): it names none as a cut writer, so no entry is read
                // through them; one left with no other plan goes, its pieces dropped as
                // before session 52 (review r52b LOW-2). A plan neither durable nor on record
                // here (cut by a crash, or failed after its first write: the store is
                // poisoned and journals nothing more of it) may have written: the next
                // open's recovery names it, and its entry stays for that recovery until the
                // settle after it (`PlannerReset`).
                self.drop_cache_plans_of(plans);
            }
            Rec::HomePiecesDecided { kept } => {
                // Every unfinished write's displaced pieces are decided: these go back (each
                // where no newer piece stands), the rest stay dropped.
                assert!(kept.len() <= HOME_WITNESS_PIECES_MAX);
                self.home_witness_displaced.clear();
                let mut count = piece_count(&self.home_witness);
                for k in kept {
                    let (a, z) = (k.first_bytes, k.piece.end_bytes);
                    assert!(
                        a < z && z - a <= WriteCrcs::BLOCK_BYTES,
                        "a piece lies in one block"
                    );
                    if insert_piece(&mut self.home_witness, k.file, a, z, k.piece) {
                        count += 1;
                    }
                    if count > HOME_WITNESS_PIECES_MAX {
                        count = self.evict_oldest_home_pieces();
                    }
                }
                assert!(count <= HOME_WITNESS_PIECES_MAX);
            }
            Rec::PlannerReset => {
                // Every cache stripe went home: no cached block left to witness. Home pieces
                // stay (their blocks do); a home write still pending was cut (recovery
                // decided its bytes): it gets none.
                self.cache_witness.clear();
                self.cache_witness_pending.clear();
                // Recovery decided the cut writes' rows before this settle: their
                // displaced pieces witnessed blocks that are home now.
                self.cache_witness_displaced.clear();
                self.home_witness_pending.clear();
                // The displaced pieces stay: an open decides them after its settle, on
                // the bytes it kept (`HomePiecesDecided`).
            }
            Rec::JournalTailCut { .. } => {
                // The cut record may have been a write whose input never applied (damaged
                // after its fsync, review s9r R9-3) and whose bytes are on disk: the pieces
                // it would have dropped still stand, unknown which. None is trusted: the
                // reads after a tail cut are as before s44b (today's checks alone).
                self.home_witness.clear();
                self.home_witness_pending.clear();
                self.home_witness_displaced.clear();
            }
            Rec::HomeWitnessCleared => {
                // The epoch refusal's way out (see the record): as the open that took it,
                // displaced pieces too (crcs of bytes the newer metadata may have
                // overwritten in place, as the rest).
                self.home_witness.clear();
                self.home_witness_pending.clear();
                self.home_witness_displaced.clear();
            }
            Rec::Create { id, .. } => self.drop_witnesses_of(*id),
            Rec::Replace { to, .. } => {
                if let Some(old) = self.files.get(to) {
                    self.drop_witnesses_of(old.id);
                }
            }
            Rec::Remove { name } => {
                if let Some(meta) = self.files.get(name) {
                    self.drop_witnesses_of(meta.id);
                }
            }
            _ => {}
        }
    }

    fn drop_witnesses_of(&mut self, file: u64) {
        self.cache_witness.remove(&file);
        self.cache_witness_displaced.retain(|d| d.file != file);
        self.home_witness.remove(&file);
        self.home_witness_pending.retain(|p| p.crcs.file != file);
        self.home_witness_displaced.retain(|d| d.file != file);
    }

    /// A write's input over bytes `a..z` of `file` took `taken` out of the home witness: a
    /// home write's (`home`: its crcs, if any, are a home write's; `Some(true)`: its input
    /// promised them) keeps them displaced until it is durable or an open decides them;
    /// any write's input also drops the pieces earlier unfinished writes displaced there
    /// (its bytes may land over them).
    fn displace_home_pieces(
        &mut self,
        file: u64,
        (a, z): (u64, u64),
        taken: Vec<(u64, HomePiece)>,
        home: Option<bool>,
    ) {
        for d in self.home_witness_displaced.iter_mut() {
            if d.file == file {
                d.retain_pieces(|(pa, p)| p.end_bytes <= a || z <= *pa);
            }
        }
        self.home_witness_displaced.retain(|d| !d.pieces.is_empty());
        let Some(crcs_promised) = home else {
            return;
        };
        if taken.is_empty() {
            return;
        }
        if self.home_witness_displaced.len() >= HOME_WITNESS_PENDING_MAX {
            // Past the bound the oldest write's pieces go, as before session 46.
            self.home_witness_displaced.remove(0);
        }
        assert!(taken.len() <= HOME_WITNESS_PIECES_MAX);
        // The pieces of all entries together stay within the witness's own bound (review
        // r46a HIGH-2: each entry was bounded, their sum not, as the witness refills while
        // an earlier entry waits; the open's decision asserts the sum, so a store past it
        // could not open). Past it the oldest writes' pieces go, as before session 46.
        let mut total: usize = (self.home_witness_displaced.iter())
            .map(|d| d.pieces.len())
            .sum();
        while total + taken.len() > HOME_WITNESS_PIECES_MAX {
            let oldest = self.home_witness_displaced.remove(0);
            total -= oldest.pieces.len();
        }
        self.home_witness_displaced.push(DisplacedHomePieces {
            file,
            offset_bytes: a,
            len_bytes: z - a,
            crcs: None,
            crcs_promised,
            pieces: taken,
        });
        assert!(self.home_witness_displaced.len() <= HOME_WITNESS_PENDING_MAX);
        assert!(
            total
                + self
                    .home_witness_displaced
                    .last()
                    .map_or(0, |d| d.pieces.len())
                <= HOME_WITNESS_PIECES_MAX
        );
    }

    /// A write's input over bytes `a..z` of `file` took `taken` out of the cache witness: a
    /// WCL cache write's (`cache`: its crcs follow) keeps them displaced until it is
    /// durable or a settle carried its cache stripes home; any write's input also drops
    /// the pieces earlier unfinished writes displaced there (its bytes may land over them,
    /// so they no longer tell the block's last acknowledged bytes). Bounded as the home
    /// twin (`displace_home_pieces`): at most `CACHE_WITNESS_PENDING_MAX` entries and
    /// `CACHE_WITNESS_PIECES_MAX` pieces in all, the oldest write's going first.
    fn displace_cache_pieces(
        &mut self,
        file: u64,
        (a, z): (u64, u64),
        taken: Vec<(u64, (u64, u32))>,
        cache: bool,
    ) {
        for d in self.cache_witness_displaced.iter_mut() {
            if d.file == file {
                d.pieces.retain(|&(pa, pz, _)| pz <= a || z <= pa);
            }
        }
        self.cache_witness_displaced
            .retain(|d| !d.pieces.is_empty());
        if !cache || taken.is_empty() {
            return;
        }
        assert!(taken.len() <= CACHE_WITNESS_PIECES_MAX);
        if self.cache_witness_displaced.len() >= CACHE_WITNESS_PENDING_MAX {
            self.cache_witness_displaced.remove(0);
        }
        // A recount: one pass over at most `CACHE_WITNESS_PENDING_MAX` entries, as the pass
        // above (review r52b LOW-3: no running total kept, see docs/results/s53-s53a.md).
        let mut total: usize = (self.cache_witness_displaced.iter())
            .map(|d| d.pieces.len())
            .sum();
        let mut oldest = 0;
        while total + taken.len() > CACHE_WITNESS_PIECES_MAX {
            total -= self.cache_witness_displaced[oldest].pieces.len();
            oldest += 1;
        }
        self.cache_witness_displaced.drain(..oldest);
        let pieces: Vec<(u64, u64, u32)> = (taken.into_iter())
            .map(|(pa, (pz, crc))| {
                assert!(
                    pa < pz && pz - pa <= WriteCrcs::BLOCK_BYTES,
                    "a piece lies in a block"
                );
                (pa, pz, crc)
            })
            .collect();
        total += pieces.len();
        self.cache_witness_displaced.push(DisplacedCachePieces {
            file,
            offset_bytes: a,
            len_bytes: z - a,
            plans: Vec::new(),
            pieces,
        });
        assert!(self.cache_witness_displaced.len() <= CACHE_WITNESS_PENDING_MAX);
        assert!(total <= CACHE_WITNESS_PIECES_MAX);
    }

    /// `plans` are done (durable, or on record as having written nothing): out of every
    /// entry's plans, and an entry left without one goes (recovery reads none through it).
    fn drop_cache_plans_of(&mut self, plans: &[u64]) {
        self.cache_witness_displaced.retain_mut(|d| {
            d.plans.retain(|p| !plans.contains(p));
            !d.plans.is_empty()
        });
    }

    /// The last entry, if no crcs named plans for it right after its input (it was cut
    /// before them): recovery can never read it. Only the last entry can be one (each goes
    /// at the record after its input), but for a session 52 snapshot's (those go at the
    /// next `Durable`).
    fn drop_cache_entry_without_plans(&mut self) {
        if (self.cache_witness_displaced.last()).is_some_and(|d| d.plans.is_empty()) {
            self.cache_witness_displaced.pop();
        }
    }

    /// The cache witness pieces unfinished cache writes of plan `plan` displaced in bytes
    /// `a..z` of `file`: `(first, end, crc32c)` (`State::cache_witness_displaced`).
    pub fn cache_witness_displaced_in(
        &self,
        plan: u64,
        file: u64,
        a: u64,
        z: u64,
    ) -> Vec<(u64, u64, u32)> {
        (self.cache_witness_displaced.iter())
            .filter(|d| d.file == file && d.plans.contains(&plan))
            .flat_map(|d| d.pieces.iter().copied())
            .filter(|&(pa, pz, _)| pa < z && a < pz)
            .collect()
    }

    /// The home witness pieces unfinished home writes displaced, for the open's decision
    /// (`Rec::HomePiecesDecided`).
    pub fn home_witness_displaced_pieces(&self) -> Vec<DisplacedPiece<'_>> {
        (self.home_witness_displaced.iter())
            .flat_map(|d| {
                (d.pieces.iter()).map(move |&(first_bytes, piece)| DisplacedPiece {
                    file: d.file,
                    first_bytes,
                    piece,
                    write: (d.offset_bytes, d.offset_bytes + d.len_bytes),
                    crcs: d.crcs.as_ref(),
                    write_crc: (d.crcs.as_ref())
                        .and_then(|c| c.crc_of_block(first_bytes / WriteCrcs::BLOCK_BYTES)),
                    cut_before_crcs: d.crcs.is_none() && d.crcs_promised,
                })
            })
            .collect()
    }

    /// The pending cache writes whose last plans `plans` made durable: their pieces go
    /// into the cache witness, none past `CACHE_WITNESS_PIECES_MAX` (the newest are not
    /// kept: a settle clears the witness soon). Held at its bound by a test
    /// (`cache_witness_held_at_bound`), none goes in: the pending writes are taken out
    /// as at the bound, so the witness's own bookkeeping runs as it does there.
    fn witness_durable_cache_writes(&mut self, plans: &[u64]) {
        let mut count = match self.cache_witness_held_at_bound {
            true => CACHE_WITNESS_PIECES_MAX,
            false => piece_count(&self.cache_witness),
        };
        for (file, a, z, crc) in durable_pieces(&mut self.cache_witness_pending, plans) {
            if count >= CACHE_WITNESS_PIECES_MAX {
                break;
            }
            if insert_piece(&mut self.cache_witness, file, a, z, (z, crc)) {
                count += 1;
            }
        }
        debug_assert!(count <= CACHE_WITNESS_PIECES_MAX);
    }

    /// The pending home writes whose last plans `plans` made durable: their pieces go into
    /// the home witness, stamped with this record's sequence number; past
    /// `HOME_WITNESS_PIECES_MAX` the oldest quarter is evicted (one sort per quarter of
    /// the bound: no scan per piece), so the witness covers the most recent writes.
    fn witness_durable_home_writes(&mut self, plans: &[u64]) {
        if self.home_witness_pending.is_empty() {
            return;
        }
        let seq = self.last_seq;
        let mut count = piece_count(&self.home_witness);
        for (file, a, z, crc) in durable_pieces(&mut self.home_witness_pending, plans) {
            let piece = HomePiece {
                end_bytes: z,
                crc,
                seq,
            };
            if insert_piece(&mut self.home_witness, file, a, z, piece) {
                count += 1;
            }
            if count > HOME_WITNESS_PIECES_MAX {
                count = self.evict_oldest_home_pieces();
            }
        }
        assert!(count <= HOME_WITNESS_PIECES_MAX);
    }

    /// Drop the oldest pieces of the home witness down to 3/4 of its bound; returns the
    /// pieces left.
    fn evict_oldest_home_pieces(&mut self) -> usize {
        let keep = HOME_WITNESS_PIECES_MAX - HOME_WITNESS_PIECES_MAX / 4;
        let mut all: Vec<(u64, u64, u64)> = (self.home_witness.iter())
            .flat_map(|(&f, ps)| ps.iter().map(move |(&a, p)| (p.seq, f, a)))
            .collect();
        if all.len() <= keep {
            return all.len();
        }
        let evict = all.len() - keep;
        all.select_nth_unstable(evict - 1);
        for &(_, f, a) in &all[..evict] {
            if let Some(ps) = self.home_witness.get_mut(&f) {
                ps.remove(&a);
                if ps.is_empty() {
                    self.home_witness.remove(&f);
                }
            }
        }
        let left = piece_count(&self.home_witness);
        assert_eq!(left, keep);
        left
    }

    /// The cache-witness pieces of `file` overlapping bytes `a..z`: `(first, end, crc32c)`.
    pub fn cache_witness_in(&self, file: u64, a: u64, z: u64) -> Vec<(u64, u64, u32)> {
        pieces_in(&self.cache_witness, file, a, z)
    }

    /// The home-witness pieces of `file` overlapping bytes `a..z`: `(first, end, crc32c)`.
    pub fn home_witness_in(&self, file: u64, a: u64, z: u64) -> Vec<(u64, u64, u32)> {
        pieces_in(&self.home_witness, file, a, z)
    }
}
