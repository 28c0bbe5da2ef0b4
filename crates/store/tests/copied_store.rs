//! A store directory copied (`cp -a`, a backup restored elsewhere) or moved (`mv`) with the
//! OSS directories `init --oss N` puts inside it (review s14r R14-1). The copy or the moved
//! store drives the OSS directories that came along inside it, never the original's: with
//! the superblock's absolute paths, a put into a copy exited 0 writing into the original's
//! OSSs and deleting the original's objects, and a moved store found every OSS missing.
//! Superblocks written before session 14 (absolute paths) keep opening where they are.

mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::process::Command;

use exaraid_codes::CodeSpec;
use exaraid_store::superblock::{read_checked_version, write_checked_version, Superblock};
use exaraid_store::{InitOptions, Store, WritePath};

/// `cp -a FROM TO`, as a user copies a store directory.
fn cp_a(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(from).arg(to).status();
    assert!(status.unwrap().success(), "cp -a {from:?} {to:?}");
}

/// A raid5 store over three OSS directories inside `dir` (what `init DIR --oss 3` makes),
/// holding `f` = `data`.
fn store_with(dir: &Path, data: &[u8]) {
    let store = init(dir, CodeSpec::raid5(2), 3, WritePath::Rmw);
    store.put("f", data).unwrap();
    store.close().unwrap();
}

fn get(dir: &Path, name: &str) -> Vec<u8> {
    let store = Store::open(dir).unwrap();
    let bytes = store.get(name).unwrap();
    store.close().unwrap();
    bytes
}

fn oss_dirs_in_use(dir: &Path) -> Vec<PathBuf> {
    Superblock::load(dir).unwrap().oss_dirs
}

fn superblock_header_version(dir: &Path) -> u32 {
    read_checked_version::<serde_json::Value>(&Superblock::path(dir), "superblock")
        .unwrap()
        .1
}

/// Rewrite `dir`'s superblock as binaries before session 14 wrote it: every OSS directory
/// by its absolute path as of `made_in` (the directory the store was made in), header
/// version 2 (block crcs seeded with the OSS).
fn write_old_style_superblock(dir: &Path, made_in: &Path) {
    let path = Superblock::path(dir);
    let (mut body, _) = read_checked_version::<serde_json::Value>(&path, "superblock").unwrap();
    let made_in = made_in.canonicalize().unwrap();
    let recorded: Vec<serde_json::Value> = body["oss_dirs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let d = Path::new(d.as_str().unwrap());
            let name = d.file_name().unwrap();
            serde_json::Value::String(made_in.join(name).to_str().unwrap().to_string())
        })
        .collect();
    body["oss_dirs"] = serde_json::Value::Array(recorded);
    write_checked_version(&path, "superblock", 2, &body).unwrap();
}

#[test]
fn a_cp_a_copy_and_its_original_each_keep_their_own_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, tc) = (tmp.path().join("t"), tmp.path().join("tc"));
    let one = pattern(1, 20_000);
    let two = pattern(2, 13_000);
    store_with(&t, &one);
    cp_a(&t, &tc);

    let copy = Store::open(&tc).unwrap();
    copy.put("f", &two).unwrap();
    copy.put("g", &two).unwrap();
    copy.close().unwrap();

    assert_eq!(get(&t, "f"), one, "the original reads its own f");
    assert!(
        Store::open(&t).unwrap().get("g").is_err(),
        "g is the copy's"
    );
    assert_eq!(get(&tc, "f"), two, "the copy reads its own f");
    assert_eq!(get(&tc, "g"), two);
    let tc_canon = tc.canonicalize().unwrap();
    for d in oss_dirs_in_use(&tc) {
        assert!(
            d.starts_with(&tc_canon),
            "the copy uses its own OSSs: {d:?}"
        );
    }
    // And the original goes on writing without touching the copy.
    let original = Store::open(&t).unwrap();
    original.put("f", &pattern(3, 5_000)).unwrap();
    original.close().unwrap();
    assert_eq!(get(&tc, "f"), two);
}

#[test]
fn a_moved_store_opens_with_the_oss_directories_it_carries() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, moved) = (tmp.path().join("t"), tmp.path().join("moved"));
    let one = pattern(4, 30_000);
    store_with(&t, &one);
    std::fs::rename(&t, &moved).unwrap();

    let store = Store::open(&moved).unwrap();
    assert_eq!(store.get("f").unwrap(), one);
    assert!(store.status().unwrap().oss.iter().all(|o| o.healthy));
    store.put("g", &one).unwrap();
    store.close().unwrap();
    assert_eq!(get(&moved, "g"), one);
}

/// The on-disk form: OSS directories inside the store directory are recorded relative to
/// it, under superblock header version 3 (which binaries before session 14 refuse, changing
/// nothing, rather than resolve `oss-0` against their working directory); OSS directories
/// outside it stay absolute, and a store with only such keeps header version 2.
#[test]
fn only_oss_directories_inside_the_store_directory_are_recorded_relative() {
    let tmp = tempfile::tempdir().unwrap();
    let inside = tmp.path().join("inside");
    store_with(&inside, &pattern(5, 100));
    let (body, version) =
        read_checked_version::<serde_json::Value>(&Superblock::path(&inside), "superblock")
            .unwrap();
    assert_eq!(version, 3);
    assert_eq!(
        body["oss_dirs"],
        serde_json::json!(["oss-0", "oss-1", "oss-2"])
    );

    let outside = tmp.path().join("outside");
    let dirs: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("o{i}"))).collect();
    let mut opts = InitOptions::new(dirs.clone(), CodeSpec::raid5(2));
    opts.element_bytes = UNIT;
    Store::init(&outside, &opts).unwrap().close().unwrap();
    let (body, version) =
        read_checked_version::<serde_json::Value>(&Superblock::path(&outside), "superblock")
            .unwrap();
    assert_eq!(version, 2, "nothing relative: older binaries still read it");
    for (i, d) in dirs.iter().enumerate() {
        let recorded = PathBuf::from(body["oss_dirs"][i].as_str().unwrap());
        assert_eq!(recorded, d.canonicalize().unwrap());
    }
}

#[test]
fn a_superblock_with_absolute_paths_opens_where_it_is_and_stays_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    let one = pattern(6, 20_000);
    store_with(&t, &one);
    write_old_style_superblock(&t, &t);
    let before = std::fs::read(Superblock::path(&t)).unwrap();

    let store = Store::open(&t).unwrap();
    assert_eq!(store.get("f").unwrap(), one);
    store.put("g", &one).unwrap();
    store.close().unwrap();
    assert_eq!(get(&t, "g"), one);
    assert_eq!(
        std::fs::read(Superblock::path(&t)).unwrap(),
        before,
        "an older store's superblock is not rewritten"
    );
    assert_eq!(superblock_header_version(&t), 2);
}

/// A copy or a move of a store made before session 14 (its superblock names the
/// original's OSS directories by absolute path) uses the OSS directories that came along
/// inside it: the copy's put leaves the original's bytes alone.
#[test]
fn a_copy_or_move_of_a_store_with_absolute_paths_uses_its_own_oss_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, tc, moved) = (
        tmp.path().join("t"),
        tmp.path().join("tc"),
        tmp.path().join("moved"),
    );
    let one = pattern(7, 20_000);
    let two = pattern(8, 9_000);
    store_with(&t, &one);
    write_old_style_superblock(&t, &t);
    cp_a(&t, &tc);

    let copy = Store::open(&tc).unwrap();
    copy.put("f", &two).unwrap();
    copy.close().unwrap();
    assert_eq!(get(&t, "f"), one, "the original reads its own f");
    assert_eq!(get(&tc, "f"), two, "the copy reads its own f");
    let tc_canon = tc.canonicalize().unwrap();
    for d in oss_dirs_in_use(&tc) {
        assert!(
            d.starts_with(&tc_canon),
            "the copy uses its own OSSs: {d:?}"
        );
    }
    assert_eq!(
        superblock_header_version(&tc),
        2,
        "still readable by its binary"
    );

    std::fs::rename(&t, &moved).unwrap();
    assert_eq!(get(&moved, "f"), one);
}

#[test]
fn a_relative_oss_directory_outside_the_store_directory_is_refused_as_edited() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("t");
    store_with(&t, &pattern(9, 100));
    let path = Superblock::path(&t);
    let (mut body, version) =
        read_checked_version::<serde_json::Value>(&path, "superblock").unwrap();
    body["oss_dirs"][1] = serde_json::json!("../elsewhere");
    write_checked_version(&path, "superblock", version, &body).unwrap();
    let err = Store::open(&t).err().expect("refused").to_string();
    assert!(err.contains("\"../elsewhere\""), "{err}");
    assert!(err.contains("restore it from a backup"), "{err}");
}

/// OSS directories outside the store directory (`--oss-dirs`) stay absolute: a copy of the
/// store directory alone names the same OSSs. Its first write is not refused (still open,
/// docs/store.md Limits); the original is then refused, and the refusal names such a copy
/// and where the guide says how to copy and move a store.
#[test]
fn a_copy_naming_the_same_outside_oss_directories_makes_the_original_refuse_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, tc) = (tmp.path().join("t"), tmp.path().join("tc"));
    let dirs: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("o{i}"))).collect();
    let mut opts = InitOptions::new(dirs, CodeSpec::raid5(2));
    opts.element_bytes = UNIT;
    let store = Store::init(&t, &opts).unwrap();
    store.put("f", &pattern(10, 5_000)).unwrap();
    store.close().unwrap();
    cp_a(&t, &tc);
    assert_eq!(oss_dirs_in_use(&tc), oss_dirs_in_use(&t), "the same OSSs");
    let copy = Store::open(&tc).unwrap();
    copy.put("f", &pattern(11, 5_000)).unwrap();
    copy.close().unwrap();
    let err = Store::open(&t).err().expect("refused").to_string();
    assert!(err.contains("older than its OSS directories"), "{err}");
    assert!(err.contains("--oss-dirs outside it"), "{err}");
    assert!(err.contains("Copying and moving a store"), "{err}");
}

/// An OSS moved to another disk by `rebuild --to X/NAME` (the name its old directory has
/// inside the store directory, which stays behind, labelled) is used there from then on,
/// by a store of this format and by one of the format before (absolute paths). Why (merge
/// review s14m F1, review s14r2 R14b-3): the copy rule took the stale directory left
/// behind, and the store ran without redundancy after a rebuild that said it succeeded.
#[test]
fn an_oss_rebuilt_to_another_disk_under_its_old_name_is_used_there() {
    for old_format in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let (t, disk) = (tmp.path().join("t"), tmp.path().join("disk"));
        std::fs::create_dir(&disk).unwrap();
        let one = pattern(3, 20_000);
        store_with(&t, &one);
        if old_format {
            write_old_style_superblock(&t, &t);
        }
        let mut store = Store::open(&t).unwrap();
        store.fail_oss(1).unwrap();
        store.rebuild(1, Some(&disk.join("oss-1"))).unwrap();
        store.close().unwrap();
        assert!(t.join("oss-1").is_dir(), "the old directory stays behind");

        let store = Store::open(&t).unwrap();
        let status = store.status().unwrap();
        assert!(
            status.oss.iter().all(|o| o.healthy),
            "old format {old_format}: every OSS healthy after the rebuild"
        );
        assert_eq!(store.get("f").unwrap(), one);
        store.close().unwrap();
        assert_eq!(
            oss_dirs_in_use(&t)[1],
            disk.join("oss-1").canonicalize().unwrap(),
            "old format {old_format}"
        );
    }
}

/// A copy of a store made before session 14 that lacks one OSS directory (a partial copy)
/// finds that OSS missing: it never takes the original's. Why (review s14r2 R14b-1): the
/// copy's put wrote into the original's OSS and deleted the original's objects there.
#[test]
fn a_partial_copy_of_an_older_store_never_uses_the_originals_oss() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, tc) = (tmp.path().join("t"), tmp.path().join("tc"));
    let one = pattern(4, 20_000);
    store_with(&t, &one);
    write_old_style_superblock(&t, &t);
    cp_a(&t, &tc);
    std::fs::remove_dir_all(tc.join("oss-1")).unwrap();
    let t_canon = t.canonicalize().unwrap();
    for d in oss_dirs_in_use(&tc) {
        assert!(
            !d.starts_with(&t_canon),
            "the copy names the original's {d:?}"
        );
    }
    assert_eq!(get(&t, "f"), one);
}
