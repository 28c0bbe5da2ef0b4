//! Review s12r R12-5: another copy of the store (its directory and OSS directories, copied
//! whole and run on its own at the same paths) mixed in. The metadata epoch's token told
//! copies apart only at equal epoch numbers, so a copy that ran fewer (longer) writing
//! sessions passed as "behind": its OSS directory served that copy's bytes with no error,
//! and its metadata put over the store's own dropped the store's last writes.
//! Specification: an OSS told an epoch this store's state and journal made with another
//! token is refused as another copy's (at open, and by `online`); an OSS behind on this
//! store's own line (a crash before it was told, an OSS down at the bumps) still opens.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{pattern, scratch, UNIT};
use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const ANOTHER_COPY: &str = "belongs to another copy of this store";
const FILE_BYTES: usize = 40 * UNIT;

/// `cp -a`. (The copy runs swapped in at the store's path: before session 14 the superblock
/// held absolute OSS paths, so a copy used its own OSS directories only there.)
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Run `f` on the copy at `copy`, swapped in at the store's path `dir`, then swap back.
fn as_the_copy(dir: &Path, copy: &Path, f: impl FnOnce()) {
    let aside = dir.with_extension("aside");
    std::fs::rename(dir, &aside).unwrap();
    std::fs::rename(copy, dir).unwrap();
    f();
    std::fs::rename(dir, copy).unwrap();
    std::fs::rename(&aside, dir).unwrap();
}

/// raid5 4+1 over `DIR/oss-*`, one file written whole; closed.
fn store_with_file(dir: &Path) -> Vec<u8> {
    let store = common::init(dir, CodeSpec::raid5(4), 5, WritePath::Rmw);
    let data = pattern(1, FILE_BYTES);
    store.put("f", &data).unwrap();
    store.close().unwrap();
    data
}

/// Three short writing sessions: 6 epochs, at most one generation record per OSS each.
fn short_sessions(dir: &Path, want: &mut [u8], seed: u64) {
    for i in 0..3u64 {
        let bytes = pattern(seed + i, 3000);
        let offset = (i as usize + 1) * 9000;
        let store = Store::open(dir).unwrap();
        store.write("f", offset as u64, &bytes).unwrap();
        store.close().unwrap();
        want[offset..offset + bytes.len()].copy_from_slice(&bytes);
    }
}

/// One writing session of four whole-file overwrites a second apart: 2 epochs, but a
/// generation record per OSS per second (`backend::EXTENTS_LOG_FILE`), more than the three
/// short sessions make.
fn one_long_session(dir: &Path, seed: u64) -> Vec<u8> {
    let store = Store::open(dir).unwrap();
    let mut data = Vec::new();
    for k in 0..4u64 {
        if k > 0 {
            std::thread::sleep(Duration::from_millis(1050));
        }
        data = pattern(seed + k, FILE_BYTES);
        store.write("f", 0, &data).unwrap();
    }
    store.close().unwrap();
    data
}

fn open_error(dir: &Path) -> String {
    match Store::open(dir) {
        Ok(store) => {
            let got = store.get("f").map(|b| b.len());
            format!("opened (get: {got:?})")
        }
        Err(e) => e.to_string(),
    }
}

struct Scene {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    copy: PathBuf,
}

fn scene() -> (Scene, Vec<u8>) {
    let tmp = scratch();
    let dir = tmp.path().join("s");
    let copy = tmp.path().join("s.copy");
    let data = store_with_file(&dir);
    copy_tree(&dir, &copy);
    (
        Scene {
            _tmp: tmp,
            dir,
            copy,
        },
        data,
    )
}

/// The reviewer's repro-r12-5.sh: the store ran three short sessions, the copy one long
/// one; the copy's OSS 1 directory, put in place of the store's, is behind in epoch number
/// and not behind in generation. Refused as another copy's; moved aside (the message's
/// advice), the store opens without it and reads its own bytes.
#[test]
fn an_oss_directory_of_a_copy_behind_in_epoch_is_refused_as_another_copys() {
    let (s, mut want) = scene();
    short_sessions(&s.dir, &mut want, 10);
    as_the_copy(&s.dir, &s.copy, || {
        one_long_session(&s.dir, 20);
    });
    let mixed_in = s.dir.join("oss-1");
    std::fs::rename(&mixed_in, s.dir.join("oss-1.own")).unwrap();
    copy_tree(&s.copy.join("oss-1"), &mixed_in);

    let err = open_error(&s.dir);
    assert!(err.contains(ANOTHER_COPY) && err.contains("OSS 1"), "{err}");
    std::fs::rename(&mixed_in, s.dir.join("oss-1.copy")).unwrap();
    let store = Store::open(&s.dir).unwrap();
    assert!(store.get("f").unwrap() == want, "the store's own bytes");
    drop(store);
    std::fs::rename(s.dir.join("oss-1.own"), &mixed_in).unwrap();
    let store = Store::open(&s.dir).unwrap();
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
}

/// The reviewer's repro-r12-5b.sh: the copy ran three short sessions, the store one long
/// one; the copy's state and journal, put over the store's, are ahead of every OSS in epoch
/// number and not ahead in generation. Refused; the store's own metadata back, it opens.
#[test]
fn the_metadata_of_a_copy_ahead_in_epoch_is_refused_as_another_copys() {
    let (s, data) = scene();
    as_the_copy(&s.dir, &s.copy, || {
        short_sessions(&s.dir, &mut data.clone(), 10);
    });
    let want = one_long_session(&s.dir, 20);
    let own = s.dir.with_extension("own-metadata");
    std::fs::create_dir(&own).unwrap();
    for name in ["state", "journal"] {
        std::fs::copy(s.dir.join(name), own.join(name)).unwrap();
        std::fs::copy(s.copy.join(name), s.dir.join(name)).unwrap();
    }

    let err = open_error(&s.dir);
    assert!(err.contains(ANOTHER_COPY), "{err}");
    for name in ["state", "journal"] {
        std::fs::copy(own.join(name), s.dir.join(name)).unwrap();
    }
    let store = Store::open(&s.dir).unwrap();
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
}

/// Not another copy: an OSS left behind on this store's own line (told no epoch since an
/// earlier session: a crash before it was told, or down at those bumps) opens, and reads
/// right.
#[test]
fn an_oss_behind_on_the_stores_own_line_opens() {
    let (s, mut want) = scene();
    let epoch_file = s.dir.join("oss-2").join("exaraid-epoch.json");
    let told_then = std::fs::read(&epoch_file).unwrap();
    short_sessions(&s.dir, &mut want, 10);
    assert!(std::fs::read(&epoch_file).unwrap() != told_then);
    std::fs::write(&epoch_file, &told_then).unwrap();
    let store = Store::open(&s.dir).unwrap_or_else(|e| panic!("refused: {e}"));
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
}

/// `online` of a failed OSS whose directory was replaced, meanwhile, by the copy's: the
/// open does not check an OSS failed on record, `online` does.
#[test]
fn online_refuses_an_oss_directory_of_another_copy() {
    let (s, mut want) = scene();
    as_the_copy(&s.dir, &s.copy, || {
        one_long_session(&s.dir, 20);
    });
    let store = Store::open(&s.dir).unwrap();
    store.fail_oss(1).unwrap();
    store.close().unwrap();
    short_sessions(&s.dir, &mut want, 10);
    let own = s.dir.join("oss-1");
    std::fs::rename(&own, s.dir.join("oss-1.own")).unwrap();
    copy_tree(&s.copy.join("oss-1"), &own);

    let mut store = Store::open(&s.dir).unwrap();
    let err = store.online_oss(1).err().map(|e| e.to_string());
    assert!(
        err.as_deref().is_some_and(|e| e.contains(ANOTHER_COPY)),
        "{err:?}"
    );
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
}

/// A rebuild in place keeps the directory's epoch file; when that directory was the copy's,
/// the rebuilt OSS must be told this store's epoch before it serves (the `Rebuilt` record
/// follows the rebuild's settle and its checkpoint, so a new epoch is told to every OSS in
/// service first, the rebuilt one too), else a crash right after the rebuild (no close, which
/// would tell it too) left an open refusing it as another copy's.
#[test]
fn a_rebuild_in_place_over_another_copys_directory_then_a_crash_opens() {
    let (s, mut want) = scene();
    as_the_copy(&s.dir, &s.copy, || {
        one_long_session(&s.dir, 20);
    });
    short_sessions(&s.dir, &mut want, 10);
    let store = Store::open(&s.dir).unwrap();
    store.fail_oss(1).unwrap();
    store.close().unwrap();
    let own = s.dir.join("oss-1");
    std::fs::remove_dir_all(&own).unwrap();
    copy_tree(&s.copy.join("oss-1"), &own);

    let mut store = Store::open(&s.dir).unwrap();
    store.rebuild(1, None).unwrap();
    drop(store); // a crash: no close
    let store = Store::open(&s.dir).unwrap_or_else(|e| panic!("refused: {e}"));
    assert!(store.get("f").unwrap() == want);
    assert!(store.failed_osses().is_empty());
    store.close().unwrap();
}

/// The lineage is bounded: the state keeps the tokens of the latest `EPOCH_LINEAGE_LEN`
/// epochs, through a checkpoint (the state file), and answers nothing (not checked) for an
/// epoch older than that or never kept (a state written before the lineage).
#[test]
fn the_state_keeps_the_tokens_of_the_latest_epochs_only() {
    use exaraid_store::backend::MetadataEpoch;
    use exaraid_store::state::{Rec, State, EPOCH_LINEAGE_LEN, METADATA_EPOCH_KEY};
    let token = |number: u64| (number as u32).wrapping_mul(0x9E37_79B9) ^ 0x5a5a;
    let mut state = State::default();
    let last = 3 * EPOCH_LINEAGE_LEN + 7;
    for number in 1..=last {
        let epoch = MetadataEpoch {
            number,
            token: token(number),
        };
        let rec = Rec::OssGenerations {
            generations: vec![(METADATA_EPOCH_KEY, epoch.packed())],
        };
        state.apply(number, &rec);
    }
    let entries_before = state.oss_generations.len();
    let sealed = MetadataEpoch {
        number: last + 1,
        token: 7,
    };
    state.set_metadata_epoch(sealed);
    assert_eq!(state.metadata_epoch(), Some(sealed));
    assert_eq!(state.oss_generations.len(), entries_before, "a slot reused");
    let state: State = serde_json::from_slice(&serde_json::to_vec(&state).unwrap()).unwrap();
    assert_eq!(
        state.oss_generations.len() as u64,
        1 + EPOCH_LINEAGE_LEN,
        "the epoch and its lineage"
    );
    let oldest_kept = last + 2 - EPOCH_LINEAGE_LEN;
    for number in [1, oldest_kept - 1] {
        assert_eq!(state.epoch_lineage_token(number), None, "epoch {number}");
    }
    for number in oldest_kept..=last {
        assert_eq!(state.epoch_lineage_token(number), Some(token(number)));
    }
    assert_eq!(state.epoch_lineage_token(last + 1), Some(7));
    let mut before_lineage = State::default();
    before_lineage
        .oss_generations
        .insert(METADATA_EPOCH_KEY, sealed.packed());
    assert_eq!(before_lineage.epoch_lineage_token(last), None);
}

/// `rebuild --to` the directory that held this OSS before an earlier `rebuild --to` moved it
/// away: it carries this store's label for that index, its zone files and the epoch file
/// this store told it, all exaraid's own. Emptied and rebuilt onto, not refused as holding
/// a file exaraid did not write; the store then opens with it and reads its own bytes.
#[test]
fn a_rebuild_back_onto_the_osss_former_directory_takes_it() {
    let tmp = scratch();
    let dir = tmp.path().join("s");
    let want = store_with_file(&dir);
    let former = dir.join("oss-1");
    let moved = tmp.path().join("oss-1.moved");
    let mut store = Store::open(&dir).unwrap();
    store.fail_oss(1).unwrap();
    store.rebuild(1, Some(&moved)).unwrap();
    assert!(
        former.join("exaraid-epoch.json").exists(),
        "told by this store"
    );
    store.fail_oss(1).unwrap();
    store
        .rebuild(1, Some(&former))
        .unwrap_or_else(|e| panic!("refused: {e}"));
    assert!(store.get("f").unwrap() == want);
    drop(store); // a crash: no close
    let store = Store::open(&dir).unwrap_or_else(|e| panic!("refused: {e}"));
    assert!(store.failed_osses().is_empty());
    assert!(store.get("f").unwrap() == want);
    store.close().unwrap();
}
