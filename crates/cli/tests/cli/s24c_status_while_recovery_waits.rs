//! Session 24 (s24c), "OPEN after session 23", Errors: `status` was refused while crash
//! recovery waited for an OSS within the code's tolerance (a write cut by a crash, then one
//! OSS directory missing: a dropped mount). It gave the open's refusal, though `status` is
//! how the user finds out what is wrong; past the tolerance it opened.
//!
//! Specification: `status` works there (exit 0), runs no recovery and changes nothing (the
//! journal and state are byte for byte as before), says that crash recovery is pending and
//! which OSS it waits for (its directory, MISSING), with both ways on (mount it again, or
//! `exaraid store fail`); every other command still waits. With the mount back, recovery
//! runs and every acknowledged byte reads.

use crate::common;
use common::*;

const MISSING_OSS: usize = 2;

#[test]
fn status_reports_the_recovery_that_waits_for_a_missing_oss_and_changes_nothing() {
    let tmp = fast_tempdir("s24c-status-waits");
    let dir = tmp.path().join("S");
    let d = s(&dir);
    init_store_unit(d, 4096, &["--oss", "5", "--code", "raid6", "--k", "3"]);
    let old = bytes(7, 60_000);
    ok(&["store", "put", d, "f"], &old);
    let new = bytes(9, 30_000);
    let kill_at = format!("{}:2", exaraid_store::torture::WRITE_TORN_BLOCK);
    assert!(
        killed_at(
            &["store", "write", d, "f", "--offset", "5000"],
            &new,
            &kill_at
        ),
        "the write must be cut"
    );
    oss_away(&dir, MISSING_OSS);
    let metadata = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let (journal, state) = (metadata("journal"), metadata("state"));

    let out = exaraid(&["store", "status", d], b"");
    let said =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "status works: {said}");
    let missing = dir.join(format!("oss-{MISSING_OSS}"));
    let fail = format!("exaraid store fail {d} --oss {MISSING_OSS}");
    assert!(
        said.contains("RECOVERY PENDING")
            && said.contains("needs crash recovery")
            && said.contains(&format!("OSS {MISSING_OSS} ({})", missing.display()))
            && said.contains("mount it and retry")
            && said.contains(&fail),
        "status says recovery waits, for which OSS, and the ways on: {said}"
    );
    let line = said
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{MISSING_OSS} ")))
        .unwrap_or_else(|| panic!("an OSS {MISSING_OSS} line: {said}"));
    assert!(line.contains("MISSING"), "{line}");
    assert!(!said.contains("LOST"), "nothing recorded lost: {said}");
    assert!(
        metadata("journal") == journal && metadata("state") == state,
        "status ran no recovery and changed nothing"
    );
    // Every other command still waits for the mount, saying so.
    let err = fails(&["store", "get", d, "f"], b"");
    assert!(
        err.contains("mount it and retry") && err.contains(&fail),
        "{err}"
    );

    oss_back(&dir, MISSING_OSS);
    let got = ok(&["store", "get", d, "f"], b"");
    assert_eq!(got.len(), old.len());
    for (i, &b) in got.iter().enumerate() {
        let cut = i.checked_sub(5000).and_then(|j| new.get(j).copied());
        assert!(
            b == old[i] || Some(b) == cut,
            "byte {i}: {b:#04x} neither the put's nor the cut write's"
        );
    }
    let status = String::from_utf8_lossy(&ok(&["store", "status", d], b"")).to_string();
    assert!(
        !status.contains("RECOVERY PENDING") && !status.contains("LOST"),
        "recovered, nothing lost: {status}"
    );
}
