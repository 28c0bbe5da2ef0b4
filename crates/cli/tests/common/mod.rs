//! Helpers shared by the `exaraid store` command-line tests: run the binary, check its exit.
#![allow(dead_code)] // each test file uses a different subset

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

pub fn exaraid(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

pub fn ok(args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let out = exaraid(args, stdin);
    assert!(
        out.status.success(),
        "exaraid {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

pub fn fails(args: &[&str], stdin: &[u8]) -> String {
    let out = exaraid(args, stdin);
    assert!(!out.status.success(), "exaraid {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).to_string()
}

pub fn bytes(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
