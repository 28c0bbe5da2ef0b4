//! Review s15r R15-3b: an OSS whose `exaraid-epoch.json` refuses writes (a real write error
//! from `scripts/eioshim.c`, `FAILWRITESUNDER`) while it takes every data write is never
//! told the store's epochs. Before session 16 nothing said so (`status` showed it `ok`) until,
//! some 512 writing commands later, every command was refused. `status` now names it, from
//! the first command that could not tell it, with what to do; the OSS stays in service and
//! every byte reads right.

use crate::common;

use common::*;
use std::process::Command;

#[test]
fn status_warns_of_an_oss_whose_epoch_file_refuses_writes() {
    let tmp = fast_tempdir("s16c-epoch-not-told");
    let dir = tmp.path().join("s");
    let d = s(&dir);
    let Some(shim) = build_shim(tmp.path()) else {
        eprintln!("no C compiler: the EIO shim cannot be built, test skipped");
        return;
    };
    init_store(d, &["--oss", "5", "--code", "raid6"]);
    let mut a = bytes(1, 50_000);
    ok(&["store", "put", d, "a"], &a);
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(!status.contains("EPOCH NOT TOLD"), "{status}");

    let epoch_file = dir.join("oss-2").join("exaraid-epoch.json");
    let prefix = dir.join("oss-2").join("exaraid-epoch");
    let data = bytes(2, 3_000);
    let out = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(["store", "write", d, "a", "--offset", "0"])
        .env("LD_PRELOAD", &shim)
        .env("FAILWRITESUNDER", &prefix)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&data)?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        out.status.success(),
        "the write does not need OSS 2's epoch file: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    put_over(&mut a, 0, &data);

    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    let line = status
        .lines()
        .find(|l| l.starts_with("EPOCH NOT TOLD: OSS 2:"))
        .unwrap_or_else(|| panic!("no warning of OSS 2:\n{status}"));
    assert!(
        line.contains("epochs behind")
            && line.contains(&format!("{} refuses writes", epoch_file.display()))
            && line.contains("make it writable"),
        "{line}"
    );
    assert_eq!(
        status.matches("EPOCH NOT TOLD").count(),
        1,
        "only OSS 2: {status}"
    );
    assert!(
        status
            .lines()
            .any(|l| l.trim_start().starts_with("2 ") && l.split_whitespace().nth(1) == Some("ok")),
        "OSS 2 stays in service: {status}"
    );
    assert!(ok(&["store", "get", d, "a"], b"") == a);

    // Writable again: the next writing command tells it, and the warning goes.
    ok(&["store", "write", d, "a", "--offset", "10000"], &data);
    put_over(&mut a, 10_000, &data);
    let status = String::from_utf8(ok(&["store", "status", d], b"")).unwrap();
    assert!(!status.contains("EPOCH NOT TOLD"), "{status}");
    assert!(ok(&["store", "get", d, "a"], b"") == a);
}
