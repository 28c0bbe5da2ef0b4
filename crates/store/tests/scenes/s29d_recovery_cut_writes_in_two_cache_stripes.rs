//! Session 29 (s29d): recovery of WCL writes cut in two cache stripes of one home stripe.
//!
//! The scene (several writers in flight at a kill, no fault): write W0 (acknowledged) opens
//! cache stripe G1 of home stripe 0; write X fills the rest of G1 (G1 complete: its destage
//! is planned behind X) and is killed after its cache writes, before its `Durable` record
//! (parked at its syncs: its stripe lock is released from there); write X2 rewrites bytes
//! of W0 into G2, the new open cache stripe of the same home stripe, and is killed waiting
//! in the stripe queue behind G1's destage (which waits for X to be durable). X2 wrote
//! nothing, but its crcs are on record, so recovery takes it as in flight beside X, in the
//! same home stripe and another cache stripe. Optionally a write Y of stripe 1 is made
//! durable after both (so recovery keeps the planner's view past the cut writes and forgets
//! only their ranges, `forget_writes`, instead of replaying to before them).
//!
//! Then a crash: the disk as it is (copied aside while every thread is parked), with X's
//! cache blocks (written, not synced) each kept, dropped, or torn (payload and checksum of
//! different versions), the others kept; and all of them dropped. Every byte no cut write
//! touched must read back as acknowledged; a cut write's range holds, per byte, its old or
//! its new bytes; nothing may be named lost (nothing but the crash happened).
//!
//! On 20c2fb7 recovery decided X's and X2's cache writes as one (`recover` gathered the cut
//! cache writes per home stripe): the chunks of G1 and G2 mixed, so X's torn block of
//! element 1 was decoded against G2's running parity (never written) and W0's acknowledged
//! bytes were named LOST (raid5 4+1, X's block on OSS 1 `ChecksumOnly`: "file 'f' bytes
//! 4096..8192 ... could not tell its true bytes"; raid6 the same; hdp: "bytes 4096..5096
//! ... its cache copy is unreadable beyond the code's tolerance").

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::backend::{BackendError, ElementKey};
use exaraid_store::WritePath;
use parking_lot::{Condvar, Mutex};

/// Parks, until `release_all`, every sync that starts while `syncs` is on (any thread: the
/// executor syncs on threads of its own). A sync that starts with it off passes, also
/// while earlier ones stay parked: so a later write can run to its `Durable` record beside
/// the parked ones.
#[derive(Default)]
struct Park {
    syncs: AtomicBool,
    held: Mutex<bool>,
    released: Condvar,
    parked_syncs: AtomicUsize,
    /// The OSSs read or written since `touched` was last cleared, and the OSSs of the
    /// parked syncs: a plan syncs the OSSs its steps touch, each on a thread of its own,
    /// so "every sync of X parked" is "every OSS X touched has a parked sync".
    touched: Mutex<BTreeSet<usize>>,
    parked_sync_osses: Mutex<BTreeSet<usize>>,
}

impl Park {
    fn wait(&self, count: &AtomicUsize) {
        let mut held = self.held.lock();
        *held = true;
        count.fetch_add(1, Ordering::SeqCst);
        while *held {
            self.released.wait(&mut held);
        }
    }

    /// Every OSS touched since `touched` was cleared has a parked sync.
    fn all_syncs_parked(&self) -> bool {
        let touched = self.touched.lock().clone();
        !touched.is_empty() && touched.is_subset(&self.parked_sync_osses.lock())
    }

    fn release_all(&self) {
        self.syncs.store(false, Ordering::SeqCst);
        *self.held.lock() = false;
        self.released.notify_all();
    }
}

impl Hook for Park {
    fn before_read(&self, oss: usize, _key: ElementKey) {
        self.touched.lock().insert(oss);
    }
    fn before_write(&self, oss: usize, _key: ElementKey) -> Result<(), BackendError> {
        self.touched.lock().insert(oss);
        Ok(())
    }
    fn before_sync(&self, oss: usize) -> Result<(), BackendError> {
        if self.syncs.load(Ordering::SeqCst) {
            self.parked_sync_osses.lock().insert(oss);
            self.wait(&self.parked_syncs);
        }
        Ok(())
    }
}

fn scene(spec: CodeSpec, durable_after: bool) {
    let tmp = scratch();
    let dir = tmp.path().join("store");
    std::fs::create_dir_all(&dir).unwrap();
    let cols = columns(spec);
    let store = init(&dir, spec, cols, WritePath::Wcl);
    let sdb = store.layout().stripe_data_bytes();
    let unit = UNIT as u64;
    assert!(sdb >= 3 * unit, "data elements 0..2 in stripe 0");
    let mut acked = bytes_of(1, 0, 2 * sdb);
    store.put("f", &acked).unwrap();
    store.close().unwrap();
    let hook = Arc::new(Park::default());
    let store = Arc::new(open_wrapped(&dir, &hook, &[], Default::default()).unwrap());

    // W0, acknowledged: opens G1 with data element 0 whole and bytes 0..1000 of element 1.
    let w0 = bytes_of(10, 0, unit + 1000);
    store.write("f", 0, &w0).unwrap();
    acked[..w0.len()].copy_from_slice(&w0);
    // The disk now, every byte of it synced (W0 returned; nothing else runs).
    let before = tmp.path().join("before");
    copy_tree(&dir, &before);

    let spawn_write = |id: u64, off: u64, data: Vec<u8>| {
        let store = store.clone();
        spawn(move || {
            store
                .write("f", off, &data)
                .map_err(|e| format!("write {id}: {e}"))
        })
    };
    // X: the rest of G1 (G1 complete), killed at its sync.
    let x_at = unit + 1000;
    let x_bytes = bytes_of(11, x_at, sdb - x_at);
    hook.syncs.store(true, Ordering::SeqCst);
    hook.touched.lock().clear();
    let x = spawn_write(11, x_at, x_bytes.clone());
    eventually("X parks at its syncs", || hook.all_syncs_parked());
    // X2: W0's bytes 100..600 again, into G2 (G1 is complete).
    let x2_at = 100;
    let x2_bytes = bytes_of(12, x2_at, 500);
    let x2 = spawn_write(12, x2_at, x2_bytes.clone());
    eventually(
        "X2 waits in the stripe queue (behind G1's destage, which waits for X)",
        || store.stripe_lock_waiters() >= 1,
    );
    hook.syncs.store(false, Ordering::SeqCst);
    let mid = tmp.path().join("mid");
    copy_tree(&dir, &mid);
    if durable_after {
        // Y: stripe 1, durable after X and X2 were planned.
        let y = bytes_of(13, sdb + 200, 300);
        store.write("f", sdb + 200, &y).unwrap();
        acked[(sdb + 200) as usize..(sdb + 500) as usize].copy_from_slice(&y);
    }
    let after = tmp.path().join("after");
    copy_tree(&dir, &after);
    hook.release_all();
    let _ = done_in_time(&x, "X");
    let _ = done_in_time(&x2, "X2");
    drop(store);

    // The crashes: X's cache blocks each as it was before X, landed, or torn (payload and
    // checksum of different versions: a power cut that kept one page of the slot), the
    // others landed; and every one of them as before X (a power cut that dropped them all).
    let x_units = changed_slots(&before, &mid, cols, |_, name| name.ends_with(".cache"));
    assert!(!x_units.is_empty(), "X wrote cache blocks");
    let mut crashes: Vec<(String, Vec<(Unit, Block)>)> = vec![
        ("every block of X landed".into(), Vec::new()),
        (
            "no block of X landed".into(),
            x_units.iter().map(|u| (u.clone(), Block::Old)).collect(),
        ),
    ];
    for u in &x_units {
        for block in [Block::Old, Block::ChecksumOnly, Block::PayloadOnly] {
            crashes.push((
                format!("X's block {u:?} {block:?}"),
                vec![(u.clone(), block)],
            ));
        }
    }
    for (n, (crash, blocks)) in crashes.iter().enumerate() {
        let image = tmp.path().join(format!("crash-{n}"));
        copy_tree(&after, &image);
        for (u, block) in blocks {
            copy_slot_bytes(&before, &image, u, 0..SLOT_BYTES);
            lay_block(&after, &image, u, *block);
        }
        let what =
            format!("{spec:?}, a durable write after the cut ones: {durable_after}, {crash}");
        let reopened = open_own_dirs_unsynced(&image, &[])
            .unwrap_or_else(|e| panic!("{what}: the store does not open after the crash: {e}"));
        let got = reopened
            .get("f")
            .unwrap_or_else(|e| panic!("{what}: acknowledged bytes named lost: {e}"));
        assert_eq!(got.len(), acked.len(), "{what}: the file's length");
        let mut wrong: Vec<u64> = Vec::new();
        for (i, (&g, &a)) in got.iter().zip(acked.iter()).enumerate() {
            let o = i as u64;
            let x_new = (x_at..sdb).contains(&o) && g == x_bytes[(o - x_at) as usize];
            let x2_new = (x2_at..x2_at + 500).contains(&o) && g == x2_bytes[(o - x2_at) as usize];
            if g != a && !x_new && !x2_new {
                wrong.push(o);
            }
        }
        assert!(
            wrong.is_empty(),
            "{what}: WRONG BYTES: {} bytes read back as no write put them, first at {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(8)]
        );
        reopened.flush().unwrap();
        assert!(
            reopened.get("f").unwrap() == got,
            "{what}: the same bytes after a flush"
        );
        assert_consistent(&reopened);
        drop(reopened);
        std::fs::remove_dir_all(&image).unwrap();
    }
}

#[test]
fn two_wcl_writes_killed_in_two_cache_stripes_of_one_home_stripe_keep_every_acknowledged_byte_raid5(
) {
    for durable_after in [false, true] {
        scene(CodeSpec::raid5(4), durable_after);
    }
}

#[test]
fn two_wcl_writes_killed_in_two_cache_stripes_of_one_home_stripe_keep_every_acknowledged_byte_raid6(
) {
    for durable_after in [false, true] {
        scene(CodeSpec::raid6(4), durable_after);
    }
}

#[test]
fn two_wcl_writes_killed_in_two_cache_stripes_of_one_home_stripe_keep_every_acknowledged_byte_hdp()
{
    for durable_after in [false, true] {
        scene(CodeSpec::array(CodeKind::Hdp, 5), durable_after);
    }
}
