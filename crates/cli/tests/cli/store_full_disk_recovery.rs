//! A write killed -9 on a store whose OSS disks then fill up (review s12r R12-3): the next
//! open's recovery must find every byte of room it writes already reserved, by the cut
//! write itself before its `Durable` (docs/store.md "A full disk ..."). Before, on array
//! codes (several block rows per element) it did not: under WCL the recovery rewrote the
//! running parity of every parity row of the cut write's cache chunks, also rows no write
//! had reserved (ENOSPC in the cache zone); under rmw its settle wrote every element of the
//! cut write's stripe, also the data elements the write never touched (its reservation
//! refused). Every later command then opened "for reads only" until the file system grew,
//! `rm` included: nothing could free the room it asked for.
//!
//! Real ENOSPC: every OSS directory is on a tmpfs of its own, filled after the crash to 0
//! bytes free by a preallocated filler file (the extents log's appends, one per sync, go
//! into room a write reserved too). Needs `mount` (root); skipped, saying so, where it is
//! not permitted.

use crate::common;
use common::*;

use std::path::PathBuf;

/// The review's stripe unit: a slot's 16 blocks span pages no neighbouring slot allocates.
const UNIT: u64 = 65536;
/// Each OSS's tmpfs: room for the store's few stripes and cache chunks, filled afterwards.
const TMPFS_BYTES: u64 = 8 << 20;

/// A store at `root/store` (metadata on the ordinary disk) whose OSS directories are each
/// on a tmpfs of their own; `None` where mounting is not permitted.
struct Scene {
    dir: PathBuf,
    mounts: Vec<Tmpfs>,
    _tmp: tempfile::TempDir,
}

impl Scene {
    fn new(osses: usize, code: &[&str], write_path: &str) -> Option<Scene> {
        let tmp = tempfile::tempdir().unwrap();
        let mut mounts = Vec::new();
        for i in 0..osses {
            mounts.push(Tmpfs::mount(
                &tmp.path().join(format!("m{i}")),
                TMPFS_BYTES,
            )?);
        }
        let dir = tmp.path().join("store");
        let oss_dirs: Vec<String> = mounts
            .iter()
            .map(|m| s(&m.0.join("oss")).to_string())
            .collect();
        let oss_dirs = oss_dirs.join(",");
        let mut args = vec!["--oss-dirs", oss_dirs.as_str(), "--write-path", write_path];
        args.extend_from_slice(code);
        init_store_unit(s(&dir), UNIT, &args);
        Some(Scene {
            dir,
            mounts,
            _tmp: tmp,
        })
    }

    /// `acked` written at 0 (acknowledged), then `cut` at `cut_at` killed at its first block
    /// write (steps in plan order: the same block every run), then every OSS disk filled.
    /// The next commands must open read-write: every file reads its acknowledged bytes (the
    /// cut range old or new), `rm` frees room, and a write after it is taken.
    fn killed_write_then_disks_full(&self, acked: &[u8], cut_at: usize, cut: &[u8]) {
        let d = s(&self.dir);
        ok(&["store", "write", d, "f", "--offset", "0"], acked);
        ok(&["store", "put", d, "g"], &bytes(9, 3000));
        let off = cut_at.to_string();
        let killed = killed_at_with(
            &["store", "write", d, "f", "--offset", &off],
            cut,
            "write-torn-block:1",
            &[exaraid_store::torture::KILL_IN_PLAN_ORDER_ENV],
        );
        assert!(killed, "the cut write writes at least one block");
        for m in &self.mounts {
            m.fill();
        }

        let status = exaraid(&["store", "status", d], b"");
        let said = String::from_utf8_lossy(&status.stderr).to_string()
            + &String::from_utf8_lossy(&status.stdout);
        assert!(
            status.status.success() && !said.contains("RECOVERY PENDING"),
            "the recovery of the cut write finishes on the full disks: {said}"
        );
        let mut old = acked.to_vec();
        old.resize(old.len().max(cut_at + cut.len()), 0);
        let mut new = old.clone();
        new[cut_at..cut_at + cut.len()].copy_from_slice(cut);
        let got = ok(&["store", "get", d, "f"], b"");
        assert!(
            got.len() == acked.len() || got.len() == new.len(),
            "f reads {} bytes: neither before ({}) nor after ({}) the cut write",
            got.len(),
            acked.len(),
            new.len()
        );
        let wrong = (0..got.len())
            .filter(|&i| got[i] != old[i] && got[i] != new[i])
            .count();
        assert_eq!(wrong, 0, "f reads bytes neither old nor new");
        assert_eq!(ok(&["store", "get", d, "g"], b""), bytes(9, 3000));
        // The way out the full-disk messages name: `rm` frees room (no settle needed
        // after the recovery), and a write after it is taken.
        ok(&["store", "rm", d, "g"], b"");
        ok(&["store", "rm", d, "f"], b"");
        ok(
            &["store", "write", d, "h", "--offset", "0"],
            &bytes(5, 1000),
        );
        assert_eq!(ok(&["store", "get", d, "h"], b""), bytes(5, 1000));
        ok(&["store", "scrub", d], b"");
    }
}

/// D-code p=5 (parity rows in every column), WCL: the recovery rewrote the running parity
/// of parity rows the cut write's cache chunks never had allocated.
#[test]
fn a_cut_wcl_write_on_an_array_code_recovers_on_full_disks() {
    let Some(scene) = Scene::new(5, &["--code", "dcode", "--p", "5"], "wcl") else {
        return tmpfs_skipped();
    };
    // One acknowledged write over the first data elements of stripe 0, then a cut one
    // beside it in the same cache stripe.
    let acked = bytes(1, 3 * UNIT as usize + 5000);
    let cut = bytes(2, 2 * UNIT as usize);
    scene.killed_write_then_disks_full(&acked, 4 * UNIT as usize + 700, &cut);
}

/// EVENODD p=5, rmw: the recovery's settle wrote every element of the cut write's stripe,
/// the data elements it did not touch too.
#[test]
fn a_cut_rmw_write_on_an_array_code_recovers_on_full_disks() {
    let Some(scene) = Scene::new(7, &["--code", "evenodd", "--p", "5"], "rmw") else {
        return tmpfs_skipped();
    };
    // EVENODD p=5: 4 rows by 5 data columns, 20 elements a stripe. The cut write lands in
    // stripe 1, which the acknowledged one never reached.
    let acked = bytes(3, 3 * UNIT as usize);
    let cut = bytes(4, UNIT as usize + 3000);
    scene.killed_write_then_disks_full(&acked, 21 * UNIT as usize + 100, &cut);
}
