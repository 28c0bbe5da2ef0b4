//! A damaged extents record (`exaraid-extents.json` snapshot or `exaraid-extents.log`) on an
//! OSS makes that OSS unavailable, not the store: without the record the OSS cannot tell a
//! zone file deleted behind its back from one never written, so its elements are rebuilt
//! from parity (never read with forgotten slots, which would give acknowledged bytes back as
//! zeros); `status` and `scrub` name the OSS, what is wrong and the rebuild to run; a write
//! records it failed; `rebuild` makes it whole. Past the tolerance: a clear error naming
//! every damaged OSS, and nothing is changed (repairing the files brings everything back).

use crate::common;
use common::*;

use std::path::{Path, PathBuf};

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, WritePath};

const SNAPSHOT: &str = "exaraid-extents.json";
const LOG: &str = "exaraid-extents.log";

#[derive(Clone, Copy, Debug)]
enum Damage {
    /// One byte of the log's first record flipped (intact records follow it).
    FlipLog,
    DeleteLog,
    /// The snapshot cut to half its length.
    TruncateSnapshot,
    DeleteSnapshot,
}

impl Damage {
    const ALL: [Damage; 4] = [
        Damage::FlipLog,
        Damage::DeleteLog,
        Damage::TruncateSnapshot,
        Damage::DeleteSnapshot,
    ];

    /// Damage OSS directory `oss`; returns the file and its bytes before, to undo it.
    fn apply(self, oss: &Path) -> (PathBuf, Vec<u8>) {
        let (name, path) = match self {
            Damage::FlipLog | Damage::DeleteLog => (LOG, oss.join(LOG)),
            Damage::TruncateSnapshot | Damage::DeleteSnapshot => (SNAPSHOT, oss.join(SNAPSHOT)),
        };
        let before = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        match self {
            Damage::FlipLog => {
                assert!(before.len() >= 48, "the log holds at least two records");
                let mut bytes = before.clone();
                bytes[3] ^= 0xff;
                std::fs::write(&path, bytes).unwrap();
            }
            Damage::TruncateSnapshot => {
                std::fs::write(&path, &before[..before.len() / 2]).unwrap();
            }
            Damage::DeleteLog | Damage::DeleteSnapshot => std::fs::remove_file(&path).unwrap(),
        }
        (path, before)
    }

    /// What the OSS's problem must name.
    fn names(self) -> &'static str {
        match self {
            Damage::FlipLog | Damage::DeleteLog => LOG,
            Damage::TruncateSnapshot | Damage::DeleteSnapshot => SNAPSHOT,
        }
    }
}

/// raid6 3+2 over 5 OSSs with two files written over several stripes.
fn store_with_files(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let store = init(dir, CodeSpec::raid6(3), 5, WritePath::Rmw);
    let f = pattern(70, 10 * UNIT + 123);
    let g = pattern(71, 4 * UNIT);
    store.put("f", &f).unwrap();
    store.put("g", &g).unwrap();
    store.close().unwrap();
    (f, g)
}

#[test]
fn a_damaged_extents_record_on_one_oss_makes_only_that_oss_unavailable_until_rebuilt() {
    for damage in Damage::ALL {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (f, g) = store_with_files(dir);
        let victim = 1;
        damage.apply(&dir.join(format!("oss-{victim}")));

        let mut store = Store::open(dir).unwrap_or_else(|e| panic!("{damage:?}: {e}"));
        assert_eq!(
            store.get("f").unwrap(),
            f,
            "{damage:?}: decoded around OSS {victim}"
        );
        assert_eq!(store.get("g").unwrap(), g, "{damage:?}");
        let status = store.status().unwrap();
        let o = &status.oss[victim];
        assert!(!o.healthy, "{damage:?}");
        let problem = o.problem.clone().unwrap_or_default();
        assert!(
            problem.contains(damage.names())
                && problem.contains(&format!(
                    "exaraid store rebuild {} --oss {victim}",
                    dir.display()
                )),
            "{damage:?}: {problem}"
        );
        assert!(
            status.oss.iter().filter(|o| o.problem.is_some()).count() == 1,
            "{damage:?}: only OSS {victim}"
        );
        // Not on record as failed, yet not fine: `online` names the damage and the rebuild.
        let refused = store.online_oss(victim).unwrap_err().to_string();
        assert!(
            refused.contains("refused, nothing changed")
                && refused.contains(damage.names())
                && refused.contains(&format!(
                    "exaraid store rebuild {} --oss {victim}",
                    dir.display()
                )),
            "{damage:?}: {refused}"
        );
        let report = store.scrub(false).unwrap();
        assert_eq!(report.failed_oss, vec![victim], "{damage:?}");
        assert_eq!(report.oss_problems.len(), 1, "{damage:?}");
        assert_eq!(report.oss_problems[0].0, victim, "{damage:?}");
        // A write goes on degraded (the OSS is then recorded failed: its bytes are stale).
        let patch = pattern(72, 2 * UNIT);
        store.write("f", 3 * UNIT as u64 + 5, &patch).unwrap();
        let mut f2 = f.clone();
        f2[3 * UNIT + 5..5 * UNIT + 5].copy_from_slice(&patch);
        assert_eq!(store.get("f").unwrap(), f2, "{damage:?}");
        store.close().unwrap();

        let mut store = Store::open(dir).unwrap();
        store.rebuild(victim, None).unwrap();
        let status = store.status().unwrap();
        assert!(
            status.oss.iter().all(|o| o.healthy && o.problem.is_none()),
            "{damage:?}: rebuilt"
        );
        assert_consistent(&store);
        store.close().unwrap();
        let store = Store::open(dir).unwrap();
        assert_eq!(store.get("f").unwrap(), f2, "{damage:?}");
        assert_eq!(store.get("g").unwrap(), g, "{damage:?}");
        assert!(store.oss_problems().is_empty(), "{damage:?}");
    }
}

#[test]
fn damaged_extents_records_past_the_tolerance_are_a_clear_error_and_change_nothing() {
    for damage in [Damage::FlipLog, Damage::DeleteSnapshot] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (f, g) = store_with_files(dir);
        // raid6 tolerates 2: damage 3 (m + 1).
        let undo: Vec<(PathBuf, Vec<u8>)> = [0, 2, 4]
            .iter()
            .map(|i| damage.apply(&dir.join(format!("oss-{i}"))))
            .collect();
        let err = match Store::open(dir) {
            Err(e) => e.to_string(),
            Ok(store) => store.get("f").unwrap_err().to_string(),
        };
        assert!(
            err.contains("3 OSSs are unavailable")
                && err.contains("tolerates 2")
                && err.contains("needs that file restored"),
            "{damage:?}: {err}"
        );
        for i in [0, 2, 4] {
            let oss = dir.join(format!("oss-{i}"));
            assert!(
                err.contains(&format!("OSS {i} ({}: its extents", oss.display())),
                "{damage:?}: OSS {i} named with its problem: {err}"
            );
        }
        // Nothing was recorded or written: with the records repaired, everything is back.
        for (path, bytes) in undo {
            std::fs::write(path, bytes).unwrap();
        }
        let store = Store::open(dir).unwrap();
        assert!(store.failed_osses().is_empty(), "{damage:?}");
        assert_eq!(store.get("f").unwrap(), f, "{damage:?}");
        assert_eq!(store.get("g").unwrap(), g, "{damage:?}");
        assert_consistent(&store);
    }
}
