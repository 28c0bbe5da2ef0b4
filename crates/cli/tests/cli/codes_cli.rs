//! The byte-level CLI contract of `exaraid codes`, checked through the real binary.

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use exaraid_codes::{Cell, Code, CodeKind, CodeSpec, Pos};

fn exaraid(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_exaraid"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run exaraid");
    // A failing command may exit before reading stdin; a broken pipe is then expected.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Deterministic test bytes with no structure (a patterned input lets a wrong decode agree).
fn pattern(len: usize, salt: u8) -> Vec<u8> {
    common::bytes(salt, len)
}

/// GF(2^8)/0x11d multiply, independent of the crate.
fn slow_mul(mut a: u8, mut b: u8) -> u8 {
    let mut r = 0;
    while b != 0 {
        if b & 1 != 0 {
            r ^= a;
        }
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1d } else { 0 };
        b >>= 1;
    }
    r
}

#[test]
fn encode_raid5_is_the_xor_of_the_data() {
    let e = 64;
    let input = pattern(4 * e, 7);
    let out = exaraid(
        &[
            "codes",
            "encode",
            "--code",
            "raid5",
            "--k",
            "4",
            "--element-size",
            "64",
        ],
        &input,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut want = vec![0u8; e];
    for chunk in input.chunks(e) {
        want.iter_mut().zip(chunk).for_each(|(w, b)| *w ^= b);
    }
    assert_eq!(out.stdout, want);
}

#[test]
fn encode_raid6_writes_p_then_q_as_md_defines_them() {
    let (k, e) = (5, 32);
    let input = pattern(k * e, 3);
    let out = exaraid(
        &[
            "codes",
            "encode",
            "--code",
            "raid6",
            "--k",
            "5",
            "--m",
            "2",
            "--element-size",
            "32",
        ],
        &input,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (mut p, mut q) = (vec![0u8; e], vec![0u8; e]);
    for j in 0..k {
        let coef = (0..j).fold(1u8, |c, _| slow_mul(c, 2));
        for i in 0..e {
            p[i] ^= input[j * e + i];
            q[i] ^= slow_mul(coef, input[j * e + i]);
        }
    }
    assert_eq!(&out.stdout[..e], &p[..], "P");
    assert_eq!(&out.stdout[e..], &q[..], "Q");
}

/// Array codes: stdin is data in row-major *position* order, stdout parity in row-major
/// position order; the result equals the library's encode of the same stripe.
#[test]
fn encode_array_codes_matches_the_library() {
    for (name, kind) in [
        ("dcode", CodeKind::Dcode),
        ("rdp", CodeKind::Rdp),
        ("hdp", CodeKind::Hdp),
        ("evenodd", CodeKind::Evenodd),
    ] {
        let code = Code::new(CodeSpec::array(kind, 7)).unwrap();
        let g = code.geometry();
        let e = 32;
        let input = pattern(g.data_count() * e, 11);
        let out = exaraid(
            &[
                "codes",
                "encode",
                "--code",
                name,
                "--p",
                "7",
                "--element-size",
                "32",
            ],
            &input,
        );
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));

        let mut stripe = code.new_stripe(e).unwrap();
        let mut next = input.chunks(e);
        let mut want = Vec::new();
        for row in 0..g.rows {
            for col in 0..g.cols {
                if let Cell::Data(_) = g.cell(Pos { row, col }) {
                    stripe
                        .element_mut(Pos { row, col })
                        .copy_from_slice(next.next().unwrap());
                }
            }
        }
        code.encode(&mut stripe).unwrap();
        for row in 0..g.rows {
            for col in 0..g.cols {
                if let Cell::Parity(_) = g.cell(Pos { row, col }) {
                    want.extend_from_slice(stripe.element(Pos { row, col }));
                }
            }
        }
        assert_eq!(out.stdout.len(), g.parity_count() * e, "{name}");
        assert!(
            out.stdout == want,
            "{name}: CLI parity differs from the library"
        );
    }
}

#[test]
fn encode_refuses_anything_but_exactly_one_stripe() {
    for len in [0, 4 * 64 - 1, 4 * 64 + 1] {
        let out = exaraid(
            &[
                "codes",
                "encode",
                "--code",
                "raid5",
                "--k",
                "4",
                "--element-size",
                "64",
            ],
            &pattern(len, 0),
        );
        assert!(!out.status.success(), "{len} bytes must be refused");
        let err = text(&out.stderr);
        assert!(
            err.contains("256 bytes"),
            "the message names the stripe size: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn encode_refuses_bad_parameters_with_a_message() {
    for (args, says) in [
        (
            vec!["--code", "dcode", "--p", "9", "--element-size", "32"],
            "not a prime",
        ),
        (
            vec!["--code", "raid5", "--k", "4", "--element-size", "33"],
            "multiple of 32",
        ),
        (
            vec![
                "--code",
                "raid6",
                "--k",
                "4",
                "--m",
                "3",
                "--element-size",
                "32",
            ],
            "exactly 2 parity",
        ),
        (
            vec![
                "--code",
                "rs",
                "--k",
                "250",
                "--m",
                "10",
                "--element-size",
                "32",
            ],
            "at most 255",
        ),
        (
            vec!["--code", "raid9", "--k", "4", "--element-size", "32"],
            "unknown code",
        ),
    ] {
        let mut full = vec!["codes", "encode"];
        full.extend(args.iter());
        let out = exaraid(&full, &[]);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            text(&out.stderr).contains(says),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn verify_all_passes_and_covers_every_code() {
    let out = exaraid(&["codes", "verify", "--all"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for kind in CodeKind::ALL {
        assert!(
            stdout.lines().any(|l| l.starts_with(kind.name())),
            "verify --all must cover {}",
            kind.name()
        );
    }
    assert!(stdout.contains("dcode    p=13"));
    assert!(stdout.contains("rs       k=12 m=4"));
    assert!(stdout.lines().all(|l| l.ends_with(" ok")), "{stdout}");
}

#[test]
fn verify_one_code_and_refuse_a_bad_one() {
    let out = exaraid(
        &["codes", "verify", "--code", "hdp", "--p", "11", "--json"],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["code"], "hdp");
    assert_eq!(v[0]["patterns"], 10 + 45);
    assert_eq!(v[0]["ok"], true);
    let out = exaraid(&["codes", "verify", "--code", "hdp", "--p", "3"], &[]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("out of range"));
}

#[test]
fn show_prints_the_dcode_seven_disk_example() {
    let out = exaraid(&["codes", "show", "--code", "dcode", "--p", "7"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("P(5,1) = D(1,3) ^ D(1,4) ^ D(1,5) ^ D(1,6) ^ D(2,0)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("P(6,2) = D(0,0) ^ D(0,6) ^ D(1,5) ^ D(2,4) ^ D(3,3)"),
        "{stdout}"
    );
    let json = exaraid(
        &["codes", "show", "--code", "dcode", "--p", "7", "--json"],
        &[],
    );
    let g: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(g["rows"], 7);
    assert_eq!(g["cols"], 7);
    assert_eq!(g["fault_tolerance"], 2);
    assert_eq!(g["parity_terms"].as_array().unwrap().len(), 14);
}

#[test]
fn list_prints_one_line_per_code() {
    let out = exaraid(&["codes", "list"], &[]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert_eq!(stdout.lines().count(), CodeKind::ALL.len());
    for kind in CodeKind::ALL {
        assert!(stdout.lines().any(|l| l.starts_with(kind.name())));
    }
}
