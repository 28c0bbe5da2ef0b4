//! Review r48c (of s48c: a displaced home-witness entry keeps only its pieces' block crcs,
//! `DisplacedWriteCrcs`; state header 12 while a snapshot holds one).
//!
//! The scene: s44b's lost home write (block 1 of "f" stale on its OSS, the parity holds
//! the acknowledged bytes), then an rmw overwrite over blocks 0..=3 (in part at both
//! ends) killed before each of its block writes in turn. Each kill image is opened three
//! ways, which must decide alike and read alike:
//! - as killed (the entry built by journal replay: the write's whole `WriteCrcs` narrowed
//!   as it applies);
//! - "checkpointed": the state file rewritten with every record applied (as a checkpoint
//!   killed before its journal truncation leaves it; the entry's narrowed crcs in the
//!   snapshot, `piece_block_crcs`, header 12), the journal unchanged;
//! - "session 47": as the checkpointed one, but the entry written in the form of sessions
//!   46/47 (`crcs`, the write's whole `WriteCrcs`) under header 11: read and narrowed.
//!
//! Each block must read the acknowledged bytes, or the cut write's over them, or be LOST
//! on record (with every OSS up: nothing lost); the three opens must give the same bytes;
//! after the decision and a close the state header is back at 11 or below.

use crate::common::*;
use crate::s44b_lost_home_write::{lose_a_home_write, WRITE_AT};

use std::path::Path;

use exaraid_codes::CodeSpec;
use exaraid_store::journal::Journal;
use exaraid_store::state::{Rec, State};
use exaraid_store::superblock::{read_checked_version, write_checked_version};
use exaraid_store::{Store, StoreError};

const CHILD_DIR_ENV: &str = "EXARAID_R48C_CHILD_DIR";
const OVER_AT: usize = 100;
const OVER_BYTES: usize = 3 * 4096 + 500;
const KILLS_MAX: u64 = 16;

#[test]
fn child_big_overwrite() {
    let Ok(dir) = std::env::var(CHILD_DIR_ENV) else {
        return;
    };
    let store = Store::open(Path::new(&dir)).unwrap();
    store
        .write("f", OVER_AT as u64, &pattern(7, OVER_BYTES))
        .unwrap();
    store.close().unwrap();
}

/// Rewrite `dir`'s state file as a checkpoint with every journal record applied would
/// (journal kept). `old_form`: the displaced entries' crcs as sessions 46/47 wrote them.
/// Returns the header version written and the entries' count with crcs.
fn checkpoint_offline(dir: &Path, old_form: bool) -> (u32, usize) {
    let path = dir.join("state");
    let (mut state, version): (State, u32) = read_checked_version(&path, "state").unwrap();
    let (_, records) = Journal::<Rec>::open(&dir.join("journal")).unwrap();
    let mut whole = Vec::new();
    let last = state.last_seq;
    for (seq, rec) in records.into_iter().filter(|(s, _)| *s > last) {
        if let Rec::WriteCrcs(w) = &rec {
            whole.push(w.clone());
        }
        state.apply(seq, &rec);
    }
    let with_crcs = (state.home_witness_displaced.iter())
        .filter(|d| d.crcs.is_some())
        .count();
    if !old_form {
        let v = state.reader_version().max(version);
        write_checked_version(&path, "state", v, &state).unwrap();
        return (v, with_crcs);
    }
    let mut json = serde_json::to_value(&state).unwrap();
    for (i, d) in state.home_witness_displaced.iter().enumerate() {
        let Some(c) = &d.crcs else { continue };
        let mut w = (whole.iter())
            .rev()
            .find(|w| {
                (w.file, w.offset_bytes, w.len_bytes) == (d.file, d.offset_bytes, d.len_bytes)
            })
            .expect("the write's crcs are in the journal")
            .clone();
        w.plans = c.plans.clone();
        let e = json["home_witness_displaced"][i].as_object_mut().unwrap();
        e.remove("piece_block_crcs").unwrap();
        e.insert("crcs".into(), serde_json::to_value(&w).unwrap());
    }
    let v = exaraid_store::superblock::STATE_VERSION_SESSION46_RECORDS.max(version);
    write_checked_version(&path, "state", v, &json).unwrap();
    // This binary reads it back narrowed to the same entries.
    let (back, _): (State, u32) = read_checked_version(&path, "state").unwrap();
    assert_eq!(back.home_witness_displaced, state.home_witness_displaced);
    (v, with_crcs)
}

#[derive(Debug, PartialEq, Eq)]
enum Got {
    Bytes(Vec<u8>),
    Lost,
}

fn read_all(store: &Store, acked: &[u8], cut: &[u8], what: &str) -> Vec<Got> {
    let mut out = Vec::new();
    for at in (0..acked.len()).step_by(4096) {
        let len = 4096.min(acked.len() - at);
        match store.read("f", at as u64, len as u64) {
            Ok(got) => {
                assert!(
                    got == acked[at..at + len] || got == cut[at..at + len],
                    "{what}: block {at} read with success but WRONG: byte {:?}",
                    (0..len).find(|&j| got[j] != acked[at + j]).map(|j| at + j)
                );
                out.push(Got::Bytes(got));
            }
            Err(StoreError::DataLost(why)) => {
                let on_record = store.status().unwrap().lost_ranges;
                assert!(
                    on_record.iter().any(|l| l.file == "f"
                        && l.offset_bytes < (at + len) as u64
                        && at as u64 <= l.offset_bytes + l.len_bytes),
                    "{what}: block {at} lost, not on record: {why}"
                );
                out.push(Got::Lost);
            }
            Err(e) => panic!("{what}: block {at}: {e}"),
        }
    }
    out
}

fn state_header_version(dir: &Path) -> u32 {
    read_checked_version::<serde_json::Value>(&dir.join("state"), "state")
        .unwrap()
        .1
}

fn sweep(code: CodeSpec, oss: usize, what: &str) {
    let tmp = scratch();
    let base = tmp.path().join("base");
    let lost = lose_a_home_write(&base, code, oss);
    const { assert!(WRITE_AT >= OVER_AT && WRITE_AT < OVER_AT + OVER_BYTES) };
    let mut cut = lost.acked.clone();
    cut[OVER_AT..OVER_AT + OVER_BYTES].copy_from_slice(&pattern(7, OVER_BYTES));
    let mut reached = 0;
    for n in 1..=KILLS_MAX {
        let killed = tmp.path().join(format!("kill-{n}"));
        copy_tree(&base, &killed);
        let child = concat!(module_path!(), "::child_big_overwrite");
        if !child_test_killed_at(child, CHILD_DIR_ENV, &killed, "write-before-block", n) {
            break;
        }
        reached = n;
        let mut seen: Vec<(String, Vec<Got>)> = Vec::new();
        for form in ["replayed", "checkpointed", "session 47"] {
            let dir = tmp.path().join(format!("kill-{n}-{form}"));
            copy_tree(&killed, &dir);
            if form != "replayed" {
                let (v, with_crcs) = checkpoint_offline(&dir, form == "session 47");
                assert_eq!(with_crcs, 1, "{what} kill {n}: the entry holds crcs");
                if form == "checkpointed" {
                    assert_eq!(v, 12, "{what} kill {n}: header 12");
                }
            }
            let w = format!("{what}, killed before block write {n}, {form}");
            let mut reads = Vec::new();
            for _ in 0..2 {
                let store = Store::open(&dir).unwrap();
                let got = read_all(&store, &lost.acked, &cut, &w);
                assert!(
                    !got.contains(&Got::Lost),
                    "{w}: every OSS up, yet blocks LOST"
                );
                reads.push(got);
                store.close().unwrap();
                assert!(
                    state_header_version(&dir) <= 11,
                    "{w}: header back at 11 or below after the decision and close: {}",
                    state_header_version(&dir)
                );
            }
            assert_eq!(
                reads[0], reads[1],
                "{w}: the second open reads as the first"
            );
            seen.push((form.to_string(), reads.remove(0)));
        }
        for (form, got) in &seen[1..] {
            assert!(
                *got == seen[0].1,
                "{what}, kill {n}: {form} reads otherwise than replayed"
            );
        }
    }
    assert!(reached >= 3, "{what}: {reached} kill points");
    eprintln!("{what}: {reached} kill points");
}

#[test]
fn r48c_raid5_big_overwrite_of_a_lost_write_killed_replayed_checkpointed_and_session47_form_alike()
{
    sweep(CodeSpec::raid5(4), 5, "raid5 4+1");
}

#[test]
fn r48c_raid6_big_overwrite_of_a_lost_write_killed_replayed_checkpointed_and_session47_form_alike()
{
    sweep(CodeSpec::raid6(4), 6, "raid6 4+2");
}

/// State level, random: a few home writes durable (pieces in the witness), then home
/// writes left unfinished (displaced entries with crcs) and later inputs and `Durable`s
/// over random ranges. After every record, each entry with crcs keeps exactly the crcs of
/// the blocks its pieces lie in, each the write's own crc of that block (no piece without
/// its crc, no crc of another block); the snapshot reads back the same, and the form of
/// sessions 46/47 (the whole `WriteCrcs`) reads narrowed to the same entry.
#[test]
fn r48c_displaced_runs_stay_in_step_with_their_pieces_random() {
    use exaraid_store::state::{DisplacedHomePieces, Input, WriteCrcs};
    let mut rng = 0x5eed_48c0_u64;
    let mut next = |n: u64| {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (rng >> 33) % n
    };
    let block = WriteCrcs::BLOCK_BYTES;
    let mut checked = 0usize;
    for _round in 0..300 {
        let (mut state, mut seq, mut plan) = (State::default(), 0u64, 100u64);
        let mut whole: Vec<WriteCrcs> = Vec::new();
        let mut apply = |state: &mut State, rec: Rec| {
            seq += 1;
            state.apply(seq, &rec);
        };
        let range = |next: &mut dyn FnMut(u64) -> u64| {
            let a = next(64 * block);
            let big = next(3) == 0;
            let len = 1 + next(if big { 24 * block } else { 2 * block });
            (a, len)
        };
        let data = |len: u64, salt: u64| -> Vec<u8> {
            (0..len)
                .map(|i| ((i * 31 + salt * 7) % 251) as u8)
                .collect()
        };
        for _ in 0..(4 + next(8)) {
            let (a, len) = range(&mut next);
            plan += 1;
            let w = WriteCrcs::of(vec![plan], 1, a, &data(len, plan));
            apply(&mut state, home_input(a, len, true));
            apply(&mut state, Rec::WriteCrcs(w));
            apply(&mut state, Rec::Durable { plans: vec![plan] });
        }
        let mut open_plans = Vec::new();
        for _ in 0..(6 + next(10)) {
            match next(5) {
                0 | 1 => {
                    // A home write left unfinished (maybe two plans).
                    let (a, len) = range(&mut next);
                    let plans = match next(2) {
                        0 => vec![plan + 1],
                        _ => vec![plan + 1, plan + 2],
                    };
                    plan += 2;
                    let w = WriteCrcs::of(plans.clone(), 1, a, &data(len, plan));
                    apply(&mut state, home_input(a, len, true));
                    apply(&mut state, Rec::WriteCrcs(w.clone()));
                    whole.push(w);
                    open_plans.extend(plans);
                }
                2 => {
                    // A later write's input alone (a cache write's, its crcs never came).
                    let (a, len) = range(&mut next);
                    apply(
                        &mut state,
                        Rec::Input(Input::Write {
                            file: 1,
                            offset_bytes: a,
                            len_bytes: len,
                            now_ns: 0,
                            crcs_follow: true,
                            home_crcs_follow: false,
                        }),
                    );
                }
                3 if !open_plans.is_empty() => {
                    let p = open_plans.remove(next(open_plans.len() as u64) as usize);
                    apply(&mut state, Rec::Durable { plans: vec![p] });
                }
                _ => {
                    // A home write durable at once.
                    let (a, len) = range(&mut next);
                    plan += 1;
                    let w = WriteCrcs::of(vec![plan], 1, a, &data(len, plan));
                    apply(&mut state, home_input(a, len, true));
                    apply(&mut state, Rec::WriteCrcs(w));
                    apply(&mut state, Rec::Durable { plans: vec![plan] });
                }
            }
            for d in &state.home_witness_displaced {
                let Some(c) = &d.crcs else { continue };
                let w = (whole.iter())
                    .rev()
                    .find(|w| (w.offset_bytes, w.len_bytes) == (d.offset_bytes, d.len_bytes))
                    .unwrap();
                let mut blocks: Vec<u64> = d.pieces.iter().map(|(a, _)| a / block).collect();
                blocks.sort_unstable();
                blocks.dedup();
                assert_eq!(c.crcs_count(), blocks.len(), "{d:?}");
                for &b in &blocks {
                    let j = (b - w.offset_bytes / block) as usize;
                    assert_eq!(c.crc_of_block(b), Some(w.block_crcs[j]), "block {b}: {d:?}");
                }
                for b in 0..80 * block / block {
                    if blocks.binary_search(&b).is_err() {
                        assert_eq!(c.crc_of_block(b), None, "block {b}: {d:?}");
                    }
                }
                // Snapshot and the older form.
                let back: DisplacedHomePieces =
                    serde_json::from_value(serde_json::to_value(d).unwrap()).unwrap();
                assert_eq!(&back, d);
                let mut older = serde_json::to_value(d).unwrap();
                let e = older.as_object_mut().unwrap();
                e.remove("piece_block_crcs").unwrap();
                let mut ww = w.clone();
                ww.plans = c.plans.clone();
                e.insert("crcs".into(), serde_json::to_value(&ww).unwrap());
                let read: DisplacedHomePieces = serde_json::from_value(older).unwrap();
                assert_eq!(&read, d);
                checked += 1;
            }
        }
    }
    eprintln!("{checked} entries checked");
    assert!(checked > 100, "the scene: entries with crcs ({checked})");
}

fn home_input(a: u64, len: u64, promised: bool) -> Rec {
    Rec::Input(exaraid_store::state::Input::Write {
        file: 1,
        offset_bytes: a,
        len_bytes: len,
        now_ns: 0,
        crcs_follow: false,
        home_crcs_follow: promised,
    })
}
