#!/bin/bash
# Merge review s17m, finding M17-1: LOST (false). A write A held in flight (after its
# plans ran, before its end) has its bytes recorded lost by a later write's destage
# (noted on A: s17a's WriteInFlight). A third write C then overwrites A's range whole and
# returns Ok (its `Rewritten` clears the loss: C's bytes are durable, newer). A's end then
# finds its noted loss "off record" (s17f/merge's `off_record`, "nothing should") and
# journals it Lost again: C's acknowledged, durable bytes read as LOST, for good.
# Expected: C's bytes read back. Got (s17int 7f9eac7): DataLost on C's range.
# Usage: bash scripts/repro/repro-m17-1.sh  (in a worktree of s17int; CARGO_TARGET_DIR set)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
T=crates/store/tests/repro_m17_1.rs
trap 'rm -f "$T"' EXIT
# The scene and helpers of background_destage_lost.rs, plus the test below.
sed -n '1,/^#\[test\]/p' crates/store/tests/background_destage_lost.rs | sed '$d' > "$T"
cat >> "$T" <<'RS'
#[allow(dead_code)]
fn _unused(store: &Store, e: &[u8]) -> usize { assert_reads_right_or_lost(store, e) }

#[test]
fn a_later_writes_bytes_over_an_in_flight_writes_noted_loss_are_not_recorded_lost() {
    let dir = scratch();
    let (store, hook, mut expected) = scene(dir.path(), false);
    let _hook_user = PAUSE_HOOK_USER.lock().unwrap_or_else(|e| e.into_inner());
    let (at_end_tx, at_end) = mpsc::channel::<()>();
    let (go, go_rx) = mpsc::channel::<()>();
    let go_rx = std::sync::Mutex::new(go_rx);
    exaraid_store::torture::set_pause_hook(Some(Arc::new(move |point: &str| {
        if point == exaraid_store::torture::WRITE_PLANS_RAN
            && std::thread::current().name() == Some(WRITER)
        {
            at_end_tx.send(()).unwrap();
            go_rx.lock().unwrap().recv_timeout(WAIT).expect("the test lets the writer go on");
        }
    })));
    let held = (4_096usize, pattern(5, 4_096));
    let others = [(0usize, pattern(6, 4_096)), (8_192, pattern(7, 8_192))];
    let again = (4_096usize, pattern(8, 4_096)); // C: A's range, whole
    let stop = AtomicBool::new(true);
    let (held_wrote, completing_wrote, again_wrote) = std::thread::scope(|s| {
        let _stop = StopOnDrop(&stop, hook.clone(), true);
        let writer = std::thread::Builder::new()
            .name(WRITER.into())
            .spawn_scoped(s, || store.write("f", held.0 as u64, &held.1))
            .unwrap();
        at_end.recv_timeout(WAIT).expect("the held writer reaches its end");
        store.write("f", others[0].0 as u64, &others[0].1).unwrap();
        let completing = store.write("f", others[1].0 as u64, &others[1].1);
        // C, while A is still held: overwrites A's (lost) range whole.
        let again_wrote = store.write("f", again.0 as u64, &again.1);
        eprintln!("after C: lost_ranges {:?}", store.status().unwrap().lost_ranges.iter().map(|l| format!("{l:?}")).collect::<Vec<_>>());
        go.send(()).unwrap();
        (writer.join().unwrap(), completing, again_wrote)
    });
    eprintln!("A: {held_wrote:?}\nB: {completing_wrote:?}\nC: {again_wrote:?}");
    assert!(!hook.armed.load(Ordering::SeqCst), "the destage read the stale cache element");
    assert!(again_wrote.is_ok(), "C acknowledged: {again_wrote:?}");
    expected[again.0..again.0 + 4096].copy_from_slice(&again.1);
    let got = store.read("f", again.0 as u64, 4096);
    assert!(
        matches!(&got, Ok(b) if b[..] == again.1[..]),
        "C's acknowledged bytes read back: got {:?}",
        got.map(|b| wrong_bytes(&b, &again.1))
    );
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let got = store.read("f", again.0 as u64, 4096);
    assert!(matches!(&got, Ok(b) if b[..] == again.1[..]), "after reopen: {:?}", got.map(|_| ()));
}
RS
cargo test -q -p exaraid-store --test repro_m17_1 -- --nocapture 2>&1 | tail -40
