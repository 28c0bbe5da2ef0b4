//! Links ISA-L (Intel's Intelligent Storage Acceleration Library, Debian package libisal-dev),
//! the vetted erasure-code kernel behind the `isal` engine (see src/engine/mod.rs).
//!
//! Lookup order: `pkg-config libisal` (Debian ships libisal.pc), then the usual library
//! directories. If neither finds it the build stops and says how to install it: ISA-L is not
//! optional, because the `rs` code must run on a vetted kernel and the benchmark compares
//! against it.

use std::path::Path;
use std::process::Command;

const LIB_DIRS: [&str; 5] = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    avx512_cfg();
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=EXARAID_ISAL_LIB_DIR");

    // An explicit directory wins (for a self-built ISA-L).
    if let Ok(dir) = std::env::var("EXARAID_ISAL_LIB_DIR") {
        if has_isal(Path::new(&dir)) {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-lib=isal");
            return;
        }
        fail(&format!(
            "EXARAID_ISAL_LIB_DIR={dir} holds no libisal.so or libisal.a"
        ));
    }

    if let Some(flags) = pkg_config_libs() {
        for flag in flags.split_whitespace() {
            if let Some(dir) = flag.strip_prefix("-L") {
                println!("cargo:rustc-link-search=native={dir}");
            } else if let Some(lib) = flag.strip_prefix("-l") {
                println!("cargo:rustc-link-lib={lib}");
            }
        }
        if flags.split_whitespace().any(|f| f == "-lisal") {
            return;
        }
    }

    if let Some(dir) = LIB_DIRS.iter().find(|d| has_isal(Path::new(d))) {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-lib=isal");
        return;
    }
    fail("libisal was found neither by `pkg-config libisal` nor in the usual library directories");
}

fn pkg_config_libs() -> Option<String> {
    let out = Command::new("pkg-config")
        .args(["--libs", "libisal"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn has_isal(dir: &Path) -> bool {
    dir.join("libisal.so").exists() || dir.join("libisal.a").exists()
}

fn fail(why: &str) -> ! {
    panic!(
        "\n\nexaraid-codes needs ISA-L (libisal-dev): {why}.\n\
         Run `scripts/setup.sh` from the repository root (it installs libisal-dev and pkg-config \
         with apt-get), or set EXARAID_ISAL_LIB_DIR to a directory holding libisal.so.\n\n"
    );
}

/// The GFNI engine uses AVX-512 intrinsics, stable since Rust 1.89; the workspace allows older
/// compilers, which then build without that engine (cfg `exaraid_avx512`).
fn avx512_cfg() {
    println!("cargo:rustc-check-cfg=cfg(exaraid_avx512)");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let Ok(out) = Command::new(rustc).arg("--version").output() else {
        return;
    };
    // "rustc 1.95.0 (59807616e 2026-04-14)"
    let text = String::from_utf8_lossy(&out.stdout);
    let minor = text
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.split('.').nth(1))
        .and_then(|m| m.parse::<u32>().ok());
    if minor.is_some_and(|m| m >= 89) {
        println!("cargo:rustc-cfg=exaraid_avx512");
    }
}
