//! A superblock edited by hand with its checksum recomputed (review s12r R12-6): every value
//! is checked at open as `init` checks it, and the code, write path and OSS count against
//! the OSS labels written at init. The open refuses, never panics, never reads other bytes,
//! and changes nothing: the original superblock put back reads the file exactly.

use crate::common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::superblock::Superblock;
use exaraid_store::{Store, WritePath};

fn refusal_of(dir: &std::path::Path, edit: impl Fn(&mut Superblock)) -> String {
    let original = Superblock::load(dir).unwrap();
    let mut edited = original.clone();
    edit(&mut edited);
    // `save` recomputes the checksum, as an operator's edit with the checksum fixed does.
    edited.save(dir).unwrap();
    let refusal = match std::panic::catch_unwind(|| Store::open(dir)) {
        Ok(Ok(_)) => panic!("an edited superblock was opened"),
        Ok(Err(e)) => e.to_string(),
        Err(_) => panic!("an edited superblock panicked the open"),
    };
    original.save(dir).unwrap();
    refusal
}

#[test]
fn an_edited_superblock_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("s");
    let store = init(&d, CodeSpec::raid5(4), 5, WritePath::Wcl);
    let data = pattern(6, 30_000);
    store.put("f", &data).unwrap();
    store.close().unwrap();

    let err = refusal_of(&d, |sb| sb.element_bytes = 4095);
    assert!(err.contains("stripe unit of 4095 bytes"), "{err}");
    assert!(err.contains("restore it from a backup"), "{err}");
    let err = refusal_of(&d, |sb| sb.oss_capacity_bytes = Some(1));
    assert!(err.contains("OSS capacity of 1 bytes"), "{err}");
    let err = refusal_of(&d, |sb| sb.code.k = Some(3));
    assert!(err.contains("k=3") && err.contains("k=4"), "{err}");
    assert!(err.contains("restore it from a backup"), "{err}");
    let err = refusal_of(&d, |sb| sb.write_path = WritePath::Rmw);
    assert!(
        err.contains("write path rmw") && err.contains("write path wcl"),
        "{err}"
    );
    let err = refusal_of(&d, |sb| sb.code.name = "nope".into());
    assert!(err.contains("restore it from a backup"), "{err}");
    let err = refusal_of(&d, |sb| {
        sb.oss_dirs.pop();
    });
    assert!(err.contains("restore it from a backup"), "{err}");
    // The block crc seed (header version with it, as `save` writes): every block would
    // fail its crc and be taken for rot (merge review of session 12).
    let err = refusal_of(&d, |sb| {
        sb.block_crc_seed = exaraid_store::backend::BlockCrcSeed::Address;
    });
    assert!(
        err.contains("block crc seed") && err.contains("restore it from a backup"),
        "{err}"
    );

    let store = Store::open(&d).unwrap();
    assert_eq!(
        store.get("f").unwrap(),
        data,
        "the refusals changed nothing"
    );
    store.close().unwrap();
}

/// Merge review s16m M16-2: labels made before session 12 carry no settings, so they cannot
/// vouch for the superblock's. Counted as agreeing, three of them outvoted the one label
/// that carries settings (an OSS rebuilt by a newer binary): an edited superblock (k=3 ->
/// k=2) opened with that OSS taken as damaged, and `get` returned other bytes with exit 0.
#[test]
fn labels_without_settings_do_not_outvote_one_that_disagrees_with_an_edited_superblock() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("s");
    let store = init(&d, CodeSpec::raid5(3), 4, WritePath::Rmw);
    let data = pattern(7, 300_000);
    store.put("f", &data).unwrap();
    store.close().unwrap();
    for i in [0, 2, 3] {
        let label = d
            .join(format!("oss-{i}"))
            .join(exaraid_store::backend::LABEL_FILE);
        let mut json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&label).unwrap()).unwrap();
        assert!(
            json.as_object_mut().unwrap().remove("settings").is_some(),
            "a label written now carries settings"
        );
        std::fs::write(&label, serde_json::to_vec_pretty(&json).unwrap()).unwrap();
    }

    let err = refusal_of(&d, |sb| sb.code.k = Some(2));
    assert!(err.contains("restore it from a backup"), "{err}");

    let store = Store::open(&d).unwrap();
    assert_eq!(store.get("f").unwrap(), data, "the refusal changed nothing");
    store.close().unwrap();
}
