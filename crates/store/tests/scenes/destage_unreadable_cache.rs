//! A WCL cache stripe moved home (a destage of a complete cache stripe, a flush's settle of
//! a partial one) while one of its elements does not read: a checksum-bad block (bit rot)
//! or a cache zone file gone on one OSS. Within the code's tolerance nothing is lost: the
//! move home decodes the element from the rest of its cache stripe (the running-parity
//! check before the destage, `check_destage_reads`, must neither take the decode for a
//! stale column nor record bytes lost), every acknowledged byte reads back right and the
//! home stripes' parity matches afterwards (note14 item 4: the destage path had no test
//! with an unreadable block).

use crate::common;
use crate::hooked;
use common::*;
use hooked::*;

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::backend::{BackendError, ElementKey, Zone};
use exaraid_store::store::CACHE_OBJECT;
use exaraid_store::{Store, StoreError, WritePath};

/// Bytes of one slot on disk: the payload, then one crc32c per 4 KiB block.
const SLOT_BYTES: usize = UNIT + UNIT / 4096 * 4;
/// Where in a slot's payload the rot lands.
const ROT_AT_BYTES: usize = 100;

fn cache_zone_file(dir: &Path, oss: usize) -> PathBuf {
    object_file(dir, oss, &format!("{CACHE_OBJECT}.cache"))
}

fn codes() -> Vec<(&'static str, CodeSpec, usize)> {
    vec![
        ("raid5 3+1", CodeSpec::raid5(3), 4),
        ("raid6 4+2", CodeSpec::raid6(4), 6),
        ("dcode p=5", CodeSpec::array(CodeKind::Dcode, 5), 5),
    ]
}

/// What happens to one OSS's cache zone right before a destage reads it.
#[derive(Clone, Copy, Debug)]
enum Damage {
    /// One bit of the slot being read flips (its block fails its checksum).
    Rot,
    /// The OSS's cache zone file is gone: every read of it finds nothing.
    Gone,
}

/// Armed at the first OSS sync once `go` is set (the sync that makes the write durable:
/// its destage runs after it, its own reads ran before), then damages `oss`'s cache zone
/// at its first cache-zone read (`Rot`), or fails every cache-zone read of `oss` as missing
/// (`Gone`).
struct DamageAtDestage {
    go: AtomicBool,
    armed: AtomicBool,
    /// Set once the damage was seen by a read.
    hit: AtomicBool,
    oss: usize,
    damage: Damage,
    path: PathBuf,
}

impl Hook for DamageAtDestage {
    fn before_read(&self, oss: usize, key: ElementKey) {
        if oss != self.oss || key.zone != Zone::Cache || !matches!(self.damage, Damage::Rot) {
            return;
        }
        if self.armed.swap(false, Ordering::SeqCst) {
            let mut file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(&self.path)
                .unwrap();
            let at = (key.slot as usize * SLOT_BYTES + ROT_AT_BYTES) as u64;
            let mut byte = [0u8; 1];
            use std::io::Read;
            file.seek(SeekFrom::Start(at)).unwrap();
            file.read_exact(&mut byte).unwrap();
            byte[0] ^= 0x10;
            file.seek(SeekFrom::Start(at)).unwrap();
            file.write_all(&byte).unwrap();
            self.hit.store(true, Ordering::SeqCst);
        }
    }
    fn fail_read(&self, oss: usize, key: ElementKey) -> Result<(), BackendError> {
        if oss == self.oss
            && key.zone == Zone::Cache
            && matches!(self.damage, Damage::Gone)
            && self.armed.load(Ordering::SeqCst)
        {
            self.hit.store(true, Ordering::SeqCst);
            return Err(BackendError::Missing {
                oss: format!("{oss} (test: cache zone file gone)"),
                key,
            });
        }
        Ok(())
    }
    fn before_sync(&self, _oss: usize) -> Result<(), BackendError> {
        if self.go.swap(false, Ordering::SeqCst) {
            self.armed.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// Every 4 KiB block of "f" reads as acknowledged: nothing was lost, so no block may read
/// other bytes, nor fail as lost.
fn assert_reads_acked(store: &Store, acked: &[u8], what: &str) {
    for at in (0..acked.len()).step_by(4096) {
        let n = 4096.min(acked.len() - at);
        match store.read("f", at as u64, n as u64) {
            Ok(got) => {
                let wrong = (0..n).filter(|&i| got[i] != acked[at + i]).count();
                assert_eq!(
                    wrong,
                    0,
                    "{what}: bytes {at}..{} read {wrong} wrong bytes with success",
                    at + n
                );
            }
            Err(e) => panic!(
                "{what}: bytes {at}..{} fail although one unreadable element is within the code's tolerance: {e}",
                at + n
            ),
        }
    }
}

/// `put f` (three stripes home), then stripe 0 written whole through the WCL cache: its
/// complete cache stripe is destaged, and OSS `victim`'s cache element of it does not read
/// (`damage`) when the destage reads it. Returns whether that OSS held an element of it
/// (the damage was read).
fn destage_with_damage(code: CodeSpec, oss_count: usize, victim: usize, damage: Damage) -> bool {
    let what = format!("{code:?} OSS {victim} {damage:?}");
    let tmp = scratch();
    let dir = tmp.path();
    let stripe_bytes;
    let mut acked;
    {
        let store = init(dir, code, oss_count, WritePath::Wcl);
        stripe_bytes = store.layout().stripe_data_bytes() as usize;
        acked = pattern(1, 3 * stripe_bytes);
        store.put("f", &acked).unwrap();
        // A partial write of stripe 2 keeps every OSS's cache zone file in use.
        let bytes = pattern(2, 1000);
        store
            .write("f", (2 * stripe_bytes + 10) as u64, &bytes)
            .unwrap();
        acked[2 * stripe_bytes + 10..2 * stripe_bytes + 1010].copy_from_slice(&bytes);
        store.close().unwrap();
    }
    let hook = Arc::new(DamageAtDestage {
        go: AtomicBool::new(false),
        armed: AtomicBool::new(false),
        hit: AtomicBool::new(false),
        oss: victim,
        damage,
        path: cache_zone_file(dir, victim),
    });
    let store = open_wrapped(dir, &hook, &[], Default::default()).unwrap();
    let bytes = pattern(3, stripe_bytes);
    hook.go.store(true, Ordering::SeqCst);
    store.write("f", 0, &bytes).unwrap();
    acked[..stripe_bytes].copy_from_slice(&bytes);
    store
        .flush()
        .unwrap_or_else(|e| panic!("{what}: flush: {e}"));
    hook.armed.store(false, Ordering::SeqCst);
    if !hook.hit.load(Ordering::SeqCst) {
        return false; // this OSS holds no element of the destaged cache stripe
    }
    assert_reads_acked(&store, &acked, &what);
    assert_consistent(&store);
    assert_eq!(store.get("f").unwrap(), acked, "{what}");
    true
}

/// Every code's destage met the damage on as many OSSs as its cache stripe has columns.
fn destage_with_damage_on_every_oss(damage: Damage) {
    for (name, code, oss_count) in codes() {
        let hit = (0..oss_count)
            .filter(|&victim| destage_with_damage(code, oss_count, victim, damage))
            .count();
        assert_eq!(
            hit,
            columns(code),
            "{name}: OSSs whose damage the destage read"
        );
    }
}

#[test]
fn a_destage_decodes_a_cache_element_with_a_rotten_block() {
    destage_with_damage_on_every_oss(Damage::Rot);
}

#[test]
fn a_destage_decodes_a_cache_element_whose_zone_file_is_gone() {
    destage_with_damage_on_every_oss(Damage::Gone);
}

/// `put f`, then partial WCL writes into stripes 0 and 1 (open cache stripes), the store
/// closed, OSS `victim`'s cache zone damaged on disk (`Rot`: one bit of every slot's
/// payload; `Gone`: the file removed), and a flush's settle moves the cached bytes home.
fn settle_with_damage(code: CodeSpec, oss_count: usize, victim: usize, damage: Damage) {
    let what = format!("{code:?} OSS {victim} {damage:?}");
    let tmp = scratch();
    let dir = tmp.path();
    let mut acked;
    {
        let store = init(dir, code, oss_count, WritePath::Wcl);
        let stripe_bytes = store.layout().stripe_data_bytes() as usize;
        acked = pattern(1, 2 * stripe_bytes + 777);
        store.put("f", &acked).unwrap();
        for (at, seed, len) in [(300usize, 2u64, 5000usize), (stripe_bytes + 4000, 3, 9000)] {
            let bytes = pattern(seed, len);
            store.write("f", at as u64, &bytes).unwrap();
            acked[at..at + len].copy_from_slice(&bytes);
        }
        store.close().unwrap();
    }
    let path = cache_zone_file(dir, victim);
    let Ok(mut zone) = std::fs::read(&path) else {
        return; // no cache zone on this OSS
    };
    match damage {
        Damage::Rot => {
            for slot in 0..zone.len() / SLOT_BYTES {
                zone[slot * SLOT_BYTES + ROT_AT_BYTES] ^= 0x10;
            }
            std::fs::write(&path, zone).unwrap();
        }
        Damage::Gone => std::fs::remove_file(&path).unwrap(),
    }
    let store = Store::open(dir).unwrap_or_else(|e| panic!("{what}: open: {e}"));
    store
        .flush()
        .unwrap_or_else(|e| panic!("{what}: flush: {e}"));
    assert_reads_acked(&store, &acked, &what);
    assert_consistent(&store);
}

#[test]
fn a_settle_decodes_a_cache_element_with_a_rotten_block() {
    for (_, code, oss_count) in codes() {
        for victim in 0..oss_count {
            settle_with_damage(code, oss_count, victim, Damage::Rot);
        }
    }
}

#[test]
fn a_settle_decodes_a_cache_element_whose_zone_file_is_gone() {
    for (_, code, oss_count) in codes() {
        for victim in 0..oss_count {
            settle_with_damage(code, oss_count, victim, Damage::Gone);
        }
    }
}

/// Armed as `DamageAtDestage`; then at the first cache-zone read of each: OSS `stale`'s
/// cache zone file put back to `snapshot` (its element of the cache stripe stale: a lost
/// write, old bytes under valid checksums), and one bit of OSS `rot`'s slot being read
/// flipped.
struct StaleBesideRot {
    go: AtomicBool,
    /// Set at the arming sync: both damages wait for it.
    armed: AtomicBool,
    stale: (usize, AtomicBool, PathBuf, Vec<u8>),
    rot: (usize, AtomicBool, PathBuf),
}

impl Hook for StaleBesideRot {
    fn before_read(&self, oss: usize, key: ElementKey) {
        if key.zone != Zone::Cache || !self.armed.load(Ordering::SeqCst) {
            return;
        }
        let (s, armed, path, snapshot) = &self.stale;
        if oss == *s && armed.swap(false, Ordering::SeqCst) {
            std::fs::write(path, snapshot).unwrap();
        }
        let (r, armed, path) = &self.rot;
        if oss == *r && armed.swap(false, Ordering::SeqCst) {
            let mut zone = std::fs::read(path).unwrap();
            zone[key.slot as usize * SLOT_BYTES + ROT_AT_BYTES] ^= 0x10;
            std::fs::write(path, zone).unwrap();
        }
    }
    fn before_sync(&self, _oss: usize) -> Result<(), BackendError> {
        if self.go.swap(false, Ordering::SeqCst) {
            self.armed.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// What one stale-beside-rot destage did: whether it read both damages, and whether the
/// write that completed the cache stripe returned its own bytes lost.
struct StaleBesideRotSeen {
    hit: bool,
    write_named_lost: bool,
}

/// Stripe 0 destaged once (its chunk freed), OSS `stale`'s cache zone file copied, stripe 0
/// written whole again into the reused chunk, and when the destage reads it, OSS `stale`'s
/// element is the copy's (stale) and OSS `rot`'s has a rotten block. The destage's check
/// has one parity fewer than usual. Where its checked decode of the rotten block fails
/// (the stale column leaves no parity to check it by) the destage decides as a settle
/// does: the block rows nobody can tell are recorded lost, the rest goes home right. So:
/// the store stays usable (no reopen: the destage ran after the write was durable, and
/// nothing failed half way), the write returns `DataLost` exactly when bytes of its own
/// range are lost and names them, every byte reads as acknowledged or fails named lost,
/// never other bytes with success, and the home stripes' parity matches.
fn destage_stale_beside_rot(
    code: CodeSpec,
    oss_count: usize,
    stale: usize,
    rot: usize,
) -> StaleBesideRotSeen {
    let what = format!("{code:?} stale OSS {stale}, rot OSS {rot}");
    let tmp = scratch();
    let dir = tmp.path();
    let stripe_bytes;
    let mut acked;
    {
        let store = init(dir, code, oss_count, WritePath::Wcl);
        stripe_bytes = store.layout().stripe_data_bytes() as usize;
        acked = pattern(1, 3 * stripe_bytes);
        store.put("f", &acked).unwrap();
        for (at, seed, len) in [
            (2 * stripe_bytes + 10, 2u64, 1000usize),
            (0, 3, stripe_bytes),
        ] {
            let bytes = pattern(seed, len);
            store.write("f", at as u64, &bytes).unwrap();
            acked[at..at + len].copy_from_slice(&bytes);
        }
        store.close().unwrap();
    }
    let hook = Arc::new(StaleBesideRot {
        go: AtomicBool::new(false),
        armed: AtomicBool::new(false),
        stale: (
            stale,
            AtomicBool::new(true),
            cache_zone_file(dir, stale),
            std::fs::read(cache_zone_file(dir, stale)).unwrap(),
        ),
        rot: (rot, AtomicBool::new(true), cache_zone_file(dir, rot)),
    });
    let store = open_wrapped(dir, &hook, &[], Default::default()).unwrap();
    let bytes = pattern(4, stripe_bytes);
    hook.go.store(true, Ordering::SeqCst);
    // The destage runs inline, after the write is durable.
    let wrote = store.write("f", 0, &bytes);
    acked[..stripe_bytes].copy_from_slice(&bytes);
    let write_named_lost = match &wrote {
        Ok(()) => false,
        Err(e) => {
            assert!(
                matches!(e, StoreError::DataLost(m) if m.contains("could not tell") && m.contains("They are lost")),
                "{what}: write: {e}"
            );
            true
        }
    };
    store
        .flush()
        .unwrap_or_else(|e| panic!("{what}: flush after the destage (no reopen): {e}"));
    let hit = !hook.stale.1.load(Ordering::SeqCst) && !hook.rot.1.load(Ordering::SeqCst);
    let mut write_range_reads_lost = false;
    for at in (0..acked.len()).step_by(4096) {
        let n = 4096.min(acked.len() - at);
        match store.read("f", at as u64, n as u64) {
            Ok(got) => {
                let wrong = (0..n).filter(|&i| got[i] != acked[at + i]).count();
                assert_eq!(
                    wrong,
                    0,
                    "{what}: bytes {at}..{} read {wrong} wrong bytes with success",
                    at + n
                );
            }
            Err(e) => {
                assert!(
                    matches!(&e, StoreError::DataLost(m) if m.contains("They are lost")),
                    "{what}: {e}"
                );
                write_range_reads_lost |= at < stripe_bytes;
            }
        }
    }
    assert_eq!(
        write_named_lost, write_range_reads_lost,
        "{what}: the write returns its own bytes lost exactly when some of them read lost"
    );
    assert_consistent(&store);
    StaleBesideRotSeen {
        hit,
        write_named_lost,
    }
}

#[test]
fn a_destage_never_moves_a_stale_element_home_beside_a_rotten_one() {
    for (name, code, oss_count) in codes().into_iter().skip(1) {
        let (mut hit, mut named_lost) = (0, 0);
        for stale in 0..oss_count {
            for rot in (0..oss_count).filter(|&r| r != stale) {
                let seen = destage_stale_beside_rot(code, oss_count, stale, rot);
                hit += seen.hit as usize;
                named_lost += seen.write_named_lost as usize;
            }
        }
        assert!(hit > 0, "{name}: no destage read both damages");
        // The case this test is for: a checked decode the destage could not make.
        assert!(
            named_lost > 0,
            "{name}: no destage met a block it could not tell"
        );
    }
}
