//! Review s19r R19-3 (WRONG BYTES, Rust API): `fail_oss` from another thread while a
//! delayed-window write is planned (its cache address on the OSS reserved) but has not
//! begun to run. The `fail` recorded the window's bytes on that OSS lost *with their cache
//! address* (restorable), as if every byte the planner counts were on the OSS; the write
//! then skipped the failed OSS, so that address holds a hole (or an older chunk, under a
//! checksum that verifies: checksums are seeded with the address, not a version) and
//! `online_oss` "took back" zeros as the file's bytes. The rule: `online` restores only
//! bytes a plan put at that address before the failure; every read returns the
//! acknowledged bytes, a refused write's bytes, or an error naming the loss.

mod common;
use common::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{Store, StoreError, WritePath};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WRITER: &str = "window-writer";
const WAIT: Duration = Duration::from_secs(60);
/// The pause hook is process-wide: one test at a time sets it.
static PAUSE_HOOK_USER: Mutex<()> = Mutex::new(());

/// Sets the pause hook: the thread named `WRITER` stops once its write's plans are admitted
/// (before any runs), says so on the first channel and goes on when the second says so.
fn hold_the_writer_after_admission() -> (
    std::sync::MutexGuard<'static, ()>,
    mpsc::Receiver<()>,
    mpsc::Sender<()>,
) {
    let hook_user = PAUSE_HOOK_USER.lock().unwrap_or_else(|e| e.into_inner());
    let (at_tx, at) = mpsc::channel::<()>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = Mutex::new(go_rx);
    exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
        if point == exaraid_store::torture::WRITE_PLANS_ADMITTED
            && std::thread::current().name() == Some(WRITER)
        {
            at_tx.send(()).unwrap();
            go_rx
                .lock()
                .unwrap()
                .recv_timeout(WAIT)
                .expect("the test lets the writer go on");
        }
    })));
    (hook_user, at, go)
}

struct UnhookOnDrop;
impl Drop for UnhookOnDrop {
    fn drop(&mut self) {
        exaraid_store::torture::set_pause_hook(None);
    }
}

/// Every 4 KiB block of "f" reads `acknowledged`'s block, `refused`'s bytes where the
/// refused write lay, or fails naming the loss; never other bytes with success.
fn assert_blocks_acknowledged_refused_or_lost(
    store: &Store,
    acknowledged: &[u8],
    refused: (usize, &[u8]),
    when: &str,
) {
    let (refused_at, refused_bytes) = refused;
    for b in 0..acknowledged.len() / UNIT {
        let (a, z) = (b * UNIT, (b + 1) * UNIT);
        match store.read("f", a as u64, UNIT as u64) {
            Ok(got) => {
                let refused_here = a >= refused_at
                    && z <= refused_at + refused_bytes.len()
                    && got == refused_bytes[a - refused_at..z - refused_at];
                let wrong = got
                    .iter()
                    .zip(&acknowledged[a..z])
                    .filter(|(g, w)| g != w)
                    .count();
                let zeros = got.iter().filter(|&&g| g == 0).count();
                assert!(
                    got == acknowledged[a..z] || refused_here,
                    "{when}: block at {a} read with success but is neither the acknowledged bytes nor the refused write's: {wrong} of {UNIT} bytes wrong, {zeros} bytes zero"
                );
            }
            Err(StoreError::DataLost(why)) => {
                assert!(why.contains("lost"), "{when}: block at {a}: {why}");
            }
            Err(e) => panic!("{when}: block at {a}: neither bytes nor a loss: {e}"),
        }
    }
}

/// `f` written with parity, a window opened on it, one window write acknowledged; a second
/// window write (into an element on `victim`, whose cache zone it has never written) is
/// held after its admission while another thread fails `victim`; then `online_oss(victim)`.
fn fail_racing_an_admitted_window_write_then_online(code: CodeSpec, oss_count: usize) {
    let dir = scratch();
    let mut store = init(dir.path(), code, oss_count, WritePath::Delayed);
    let f_bytes = 4 * store.layout().stripe_data_bytes() as usize;
    let mut acknowledged = pattern(1, f_bytes);
    store.put("f", &acknowledged).unwrap();
    let token = store.delayed_start("f").unwrap();
    let id = store.file_id("f").unwrap();
    let first = pattern(2, UNIT);
    store.write("f", 0, &first).unwrap();
    acknowledged[..UNIT].copy_from_slice(&first);
    let first_oss = store.layout().locate(id, 0).oss;
    // An element of the window on another OSS than the acknowledged write's: its cache
    // address there was never written.
    let refused_at = (1..f_bytes / UNIT)
        .map(|b| b * UNIT)
        .find(|&at| store.layout().locate(id, at as u64).oss != first_oss)
        .expect("the file spans several OSSs");
    let victim = store.layout().locate(id, refused_at as u64).oss;
    let refused = pattern(3, UNIT);

    let (_hook_user, at, go) = hold_the_writer_after_admission();
    let _unhook = UnhookOnDrop;
    let written = std::thread::scope(|s| {
        let writer = std::thread::Builder::new()
            .name(WRITER.into())
            .spawn_scoped(s, || store.write("f", refused_at as u64, &refused))
            .unwrap();
        at.recv_timeout(WAIT)
            .expect("the writer reaches its admission");
        store.fail_oss(victim).unwrap();
        go.send(()).unwrap();
        writer.join().unwrap()
    });
    match written {
        Err(StoreError::DataLost(why)) => assert!(why.contains("lost"), "{why}"),
        other => panic!("a window write whose only copy went to an OSS failed under it is refused naming the loss; got {other:?}"),
    }
    assert_blocks_acknowledged_refused_or_lost(
        &store,
        &acknowledged,
        (refused_at, &refused),
        "after the fail",
    );
    store.online_oss(victim).unwrap();
    assert_blocks_acknowledged_refused_or_lost(
        &store,
        &acknowledged,
        (refused_at, &refused),
        "after online",
    );
    // END names what stays lost or gives every byte parity; the reads hold either way.
    let _ = store.delayed_end(&token);
    assert_blocks_acknowledged_refused_or_lost(
        &store,
        &acknowledged,
        (refused_at, &refused),
        "after END",
    );
}

#[test]
fn online_after_a_fail_racing_an_admitted_window_write_never_reads_unwritten_cache_raid5() {
    fail_racing_an_admitted_window_write_then_online(CodeSpec::raid5(3), 4);
}

#[test]
fn online_after_a_fail_racing_an_admitted_window_write_never_reads_unwritten_cache_raid6() {
    fail_racing_an_admitted_window_write_then_online(CodeSpec::raid6(4), 6);
}
