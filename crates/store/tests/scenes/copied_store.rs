//! A store directory copied (`cp -a`, a backup restored elsewhere) or moved (`mv`) with the
//! OSS directories `init --oss N` puts inside it (review s14r R14-1). The copy or the moved
//! store drives the OSS directories that came along inside it, never the original's: with
//! the superblock's absolute paths, a put into a copy exited 0 writing into the original's
//! OSSs and deleting the original's objects, and a moved store found every OSS missing.
//! Superblocks written before session 14 (absolute paths) keep opening where they are.

use crate::common;
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

/// A store over three OSS directories outside its directory (`--oss-dirs`), holding `f` =
/// `data`; closed. Returns the OSS directories.
fn store_with_outside_oss_dirs(dir: &Path, data: &[u8]) -> Vec<PathBuf> {
    let parent = dir.parent().unwrap();
    let name = dir.file_name().unwrap().to_str().unwrap();
    let dirs: Vec<PathBuf> = (0..3)
        .map(|i| parent.join(format!("{name}-o{i}")))
        .collect();
    let mut opts = InitOptions::new(dirs.clone(), CodeSpec::raid5(2));
    opts.element_bytes = UNIT;
    let store = Store::init(dir, &opts).unwrap();
    store.put("f", data).unwrap();
    store.close().unwrap();
    dirs
}

/// The refusal of a store directory that shares an OSS directory with another one.
const SHARED: &str = "is also an OSS directory of the store directory";

fn open_error(dir: &Path) -> String {
    match Store::open(dir) {
        Ok(store) => format!("opened (get f: {:?})", store.get("f").map(|b| b.len())),
        Err(e) => e.to_string(),
    }
}

/// OSS directories outside the store directory (`--oss-dirs`) stay absolute: a copy of the
/// store directory alone names the same OSSs. Before session 15 the copy's first write went
/// through (exit 0, into the original's OSSs) and the original was refused for good
/// afterwards ("older than its OSS directories"). Now the copy is refused at its open,
/// naming the original and what to do, changing nothing; the original goes on. Once the
/// original is deleted the copy is what is left (a move made by copying) and opens.
#[test]
fn a_copy_naming_the_same_outside_oss_directories_is_refused_before_it_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, tc) = (tmp.path().join("t"), tmp.path().join("tc"));
    let one = pattern(10, 5_000);
    store_with_outside_oss_dirs(&t, &one);
    cp_a(&t, &tc);
    assert_eq!(oss_dirs_in_use(&tc), oss_dirs_in_use(&t), "the same OSSs");
    let journal_before = std::fs::read(tc.join("journal")).unwrap();

    let err = open_error(&tc);
    assert!(err.contains(SHARED), "{err}");
    assert!(
        err.contains(&format!(
            "store directory {}",
            t.canonicalize().unwrap().display()
        )),
        "names the other store directory: {err}"
    );
    assert!(err.contains("Nothing was changed"), "{err}");
    assert!(
        err.contains("cp -aL"),
        "says how to make a copy of its own: {err}"
    );
    assert_eq!(std::fs::read(tc.join("journal")).unwrap(), journal_before);

    let original = Store::open(&t).unwrap_or_else(|e| panic!("the original refused: {e}"));
    assert_eq!(original.get("f").unwrap(), one);
    original.put("g", &one).unwrap();
    original.close().unwrap();
    assert!(open_error(&tc).contains(SHARED), "still refused");

    // The original deleted (its OSS directories kept): the copy is the store now. It is
    // behind them by the original's last session, and refused as such: the copy above
    // would have been too, after writing.
    std::fs::remove_dir_all(&t).unwrap();
    let err = open_error(&tc);
    assert!(!err.contains(SHARED), "{err}");
    assert!(err.contains("older than its OSS directories"), "{err}");
}

/// A store with `--oss-dirs` whose store directory alone is moved opens at its new place
/// (its old directory is gone) and goes on writing; moved back, too. The check against
/// shared OSS directories must not take a move for a copy.
#[test]
fn a_moved_store_with_outside_oss_directories_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, moved) = (tmp.path().join("t"), tmp.path().join("moved"));
    let one = pattern(12, 8_000);
    store_with_outside_oss_dirs(&t, &one);
    std::fs::rename(&t, &moved).unwrap();
    let store = Store::open(&moved).unwrap_or_else(|e| panic!("refused: {e}"));
    assert_eq!(store.get("f").unwrap(), one);
    store.put("g", &one).unwrap();
    store.close().unwrap();
    std::fs::rename(&moved, &t).unwrap();
    assert_eq!(get(&t, "g"), one);
}

/// A store directory reached through a symlink is the same store: opened and written
/// through the link and through its real path in turn, never refused as a copy of itself.
#[test]
fn a_store_directory_reached_through_a_symlink_is_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, link) = (tmp.path().join("t"), tmp.path().join("link"));
    let one = pattern(13, 8_000);
    store_with_outside_oss_dirs(&t, &one);
    std::os::unix::fs::symlink(&t, &link).unwrap();
    for (i, dir) in [&link, &t, &link].into_iter().enumerate() {
        let store = Store::open(dir).unwrap_or_else(|e| panic!("{dir:?} refused: {e}"));
        store.put("g", &pattern(i as u64, 3_000)).unwrap();
        store.close().unwrap();
    }
    assert_eq!(get(&t, "g"), pattern(2, 3_000));
}

/// Review s14r2 R14b-5: an `init DIR --oss N` store whose OSS 1 was put on its own disk the
/// usual way (the directory moved there, a symlink left in its place; the superblock keeps
/// the relative `oss-1`). `cp -a` copies the symlink: the copy names the original's OSS 1.
/// Before session 15 the copy's put exited 0 writing there, and the original was refused
/// for good. Now the copy is refused at open, naming the OSS and the original; the
/// original keeps its bytes and goes on; a copy made with `cp -aL` (the advice) is a store
/// of its own.
#[test]
fn a_cp_a_copy_sharing_a_symlinked_oss_directory_is_refused_and_the_original_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let (t, tc, disk) = (
        tmp.path().join("t"),
        tmp.path().join("tc"),
        tmp.path().join("disk1"),
    );
    let one = pattern(14, 20_000);
    store_with(&t, &one);
    std::fs::create_dir(&disk).unwrap();
    std::fs::rename(t.join("oss-1"), disk.join("oss-1")).unwrap();
    std::os::unix::fs::symlink(disk.join("oss-1"), t.join("oss-1")).unwrap();
    assert_eq!(get(&t, "f"), one, "the store reads through the symlink");
    cp_a(&t, &tc);

    let err = open_error(&tc);
    assert!(err.contains(SHARED), "{err}");
    assert!(err.contains("OSS 1 ("), "names the OSS: {err}");
    assert!(
        err.contains(&format!(
            "store directory {}",
            t.canonicalize().unwrap().display()
        )),
        "names the other store directory: {err}"
    );
    assert!(err.contains("Nothing was changed"), "{err}");

    assert_eq!(get(&t, "f"), one, "the original reads its own f");
    let two = pattern(15, 20_000);
    let original = Store::open(&t).unwrap_or_else(|e| panic!("the original refused: {e}"));
    original.put("f", &two).unwrap();
    original.close().unwrap();
    assert_eq!(get(&t, "f"), two);

    // The advice: a copy that takes what the symlink points at is a store of its own.
    let tl = tmp.path().join("tl");
    let status = Command::new("cp").arg("-aL").arg(&t).arg(&tl).status();
    assert!(status.unwrap().success());
    let copy = Store::open(&tl).unwrap_or_else(|e| panic!("the cp -aL copy refused: {e}"));
    copy.put("f", &one).unwrap();
    copy.close().unwrap();
    assert_eq!(get(&tl, "f"), one);
    assert_eq!(get(&t, "f"), two, "the original is untouched by it");
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

/// `rebuild --to` a directory that carries this store's label for the OSS but is a copy's
/// OSS in use: refused, naming it, and the copy keeps every byte. Item 7 of the session-14
/// note: the target check accepted any directory labelled as this OSS of this store that
/// held only what exaraid writes, and the rebuild emptied the copy's OSS. Three ways the
/// copy is known: its store directory holds the target (the `cp -a` layout, the copy never
/// wrote); its OSS directory is a symlink elsewhere and the target's epoch file names the
/// copy's directory; that directory was moved away since, and only the epoch tells (the
/// copy went on on its own, which this store's state and journal did not make).
#[test]
fn rebuild_to_an_oss_directory_of_a_copy_is_refused_and_empties_nothing() {
    for way in ["inside the copy", "symlinked", "copy moved away"] {
        let tmp = tempfile::tempdir().unwrap();
        let (t, tc) = (tmp.path().join("t"), tmp.path().join("tc"));
        let one = pattern(16, 20_000);
        store_with(&t, &one);
        cp_a(&t, &tc);
        let mut copy_dir = tc.clone();
        let mut target = tc.join("oss-1");
        let two = pattern(17, 20_000);
        if way != "inside the copy" {
            let disk = tmp.path().join("disk1");
            std::fs::create_dir(&disk).unwrap();
            std::fs::rename(tc.join("oss-1"), disk.join("oss-1")).unwrap();
            std::os::unix::fs::symlink(disk.join("oss-1"), tc.join("oss-1")).unwrap();
            target = disk.join("oss-1");
            let copy = Store::open(&tc).unwrap();
            copy.put("f", &two).unwrap();
            copy.close().unwrap();
        }
        if way == "copy moved away" {
            copy_dir = tmp.path().join("tc-moved");
            std::fs::rename(&tc, &copy_dir).unwrap();
        }
        let copy_holds = if way == "inside the copy" { &one } else { &two };
        let objects_before = zone_files_in(&target);

        let mut store = Store::open(&t).unwrap();
        store.fail_oss(1).unwrap();
        let err = store
            .rebuild(1, Some(&target))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_else(|| panic!("{way}: rebuilt onto the copy's OSS"));
        assert!(err.contains("refused, nothing changed"), "{way}: {err}");
        assert!(
            err.contains(&target.display().to_string()),
            "{way}: names the target: {err}"
        );
        if way == "copy moved away" {
            assert!(
                err.contains("which this store's state and journal (at epoch"),
                "{way}: says why it is another copy's: {err}"
            );
        } else {
            let copy_canon = tc.canonicalize().unwrap();
            assert!(
                err.contains(&format!("of the store directory {}", copy_canon.display())),
                "{way}: names the copy: {err}"
            );
        }
        assert_eq!(zone_files_in(&target), objects_before, "{way}: emptied");
        // The advice: an empty directory.
        store
            .rebuild(1, Some(&tmp.path().join("new-oss-1")))
            .unwrap_or_else(|e| panic!("{way}: {e}"));
        assert_eq!(store.get("f").unwrap(), one, "{way}");
        store.close().unwrap();
        assert_eq!(get(&copy_dir, "f"), *copy_holds, "{way}: the copy's bytes");
    }
}

/// The zone file names in OSS directory `dir`, sorted (some, or the test proves nothing).
fn zone_files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("objects"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{dir:?} holds zone files");
    names
}
