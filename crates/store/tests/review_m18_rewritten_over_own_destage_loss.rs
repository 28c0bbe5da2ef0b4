//! Merge review s18m (M18-1), a repro, not a fix: a write whose own inline destage recorded
//! its cache stripe's bytes LOST (a stale cache element raid5 cannot locate, the scene of
//! `background_destage_lost.rs`) is held after its plans ran; a later write C rewrites those
//! bytes whole and returns Ok. C's `Rewritten` takes the range off the held write's notes
//! (s18e `forget_rewritten`), and the held write's end then asserts that every loss of its
//! own destage is on its notes (`in_flight.lost.len() == 1 || contains`): with the notes
//! emptied, the assert panics inside `Store::write`. Expected: the held write returns Ok
//! (every byte of it recorded lost was rewritten by C, acknowledged) and C's bytes read back.

mod common;
use common::*;
#[path = "common/hooked.rs"]
mod hooked;
use hooked::*;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use exaraid_codes::CodeSpec;
use exaraid_store::backend::{ElementKey, Zone};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{OpenOptions, Store, WritePath};

const WRITER: &str = "exaraid-test-writer";
const STALE_OSS: usize = 1;
const STRIPE_BYTES: usize = 16_384;
const WAIT: Duration = Duration::from_secs(60);

/// Puts `snapshot` back as `oss`'s cache zone file at its first cache-zone read once armed.
struct StaleAtFirstCacheRead {
    armed: AtomicBool,
    oss: usize,
    path: PathBuf,
    snapshot: Vec<u8>,
}

impl Hook for StaleAtFirstCacheRead {
    fn before_read(&self, oss: usize, key: ElementKey) {
        if oss == self.oss && key.zone == Zone::Cache && self.armed.swap(false, Ordering::SeqCst) {
            std::fs::write(&self.path, &self.snapshot).unwrap();
        }
    }
}

fn scene(dir: &Path) -> (Store, Arc<StaleAtFirstCacheRead>) {
    {
        let store = init(dir, CodeSpec::raid5(4), 5, WritePath::Wcl);
        store.put("f", &pattern(1, 65_536)).unwrap();
        for (offset, seed, len) in [(20_000u64, 2u64, 1_000usize), (0, 3, STRIPE_BYTES)] {
            store.write("f", offset, &pattern(seed, len)).unwrap();
        }
    }
    let path = object_file(dir, STALE_OSS, &format!("{CACHE_OBJECT}.cache"));
    let hook = Arc::new(StaleAtFirstCacheRead {
        armed: AtomicBool::new(true),
        oss: STALE_OSS,
        snapshot: std::fs::read(&path).unwrap(),
        path,
    });
    let store = open_wrapped(dir, &hook, &[], OpenOptions::default()).unwrap();
    (store, hook)
}

#[test]
fn a_later_write_over_every_byte_an_in_flight_writes_own_destage_lost_lets_it_end() {
    let dir = scratch();
    let (store, hook) = scene(dir.path());
    let (at_end_tx, at_end) = mpsc::channel::<()>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = std::sync::Mutex::new(go_rx);
    exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
        if point == exaraid_store::torture::WRITE_PLANS_RAN
            && std::thread::current().name() == Some(WRITER)
        {
            at_end_tx.send(()).unwrap();
            go_rx.lock().unwrap().recv_timeout(WAIT).unwrap();
        }
    })));
    let a = pattern(4, STRIPE_BYTES);
    let c = pattern(8, STRIPE_BYTES);
    let (held_wrote, c_wrote) = std::thread::scope(|s| {
        // A completes cache stripe 0 and destages it inline (no worker): the stale element
        // makes the destage record the stripe's bytes lost, noted on A in flight.
        let writer = std::thread::Builder::new()
            .name(WRITER.into())
            .spawn_scoped(s, || store.write("f", 0, &a))
            .unwrap();
        at_end.recv_timeout(WAIT).expect("A reaches its end");
        assert!(
            !hook.armed.load(Ordering::SeqCst),
            "A's destage read the stale element"
        );
        assert!(
            !store.status().unwrap().lost_ranges.is_empty(),
            "A's destage recorded its stripe's bytes lost"
        );
        let c_wrote = store.write("f", 0, &c);
        go.send(()).unwrap();
        (writer.join(), c_wrote)
    });
    exaraid_store::torture::set_pause_hook(None);
    assert!(c_wrote.is_ok(), "C is acknowledged: {c_wrote:?}");
    let held_wrote = match held_wrote {
        Ok(r) => r,
        Err(p) => panic!("A's write panicked at its end: {:?}", panic_message(&*p)),
    };
    assert!(
        held_wrote.is_ok(),
        "every byte of A recorded lost was rewritten by C: {held_wrote:?}"
    );
    assert_eq!(
        store.read("f", 0, STRIPE_BYTES as u64).unwrap(),
        c,
        "C's acknowledged bytes"
    );
    assert_consistent(&store);
}
