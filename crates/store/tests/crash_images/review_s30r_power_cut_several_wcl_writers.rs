//! Review s30r: a POWER CUT (not a kill) while two API writer threads of one `Store` write
//! disjoint ranges of one home stripe (WCL, the R29-1 family). The OPEN bullet of session 29
//! suspects, with no scene: "a plan leaves its stripes before its own sync, so after a power
//! cut WCL keeps a cut writer's range whose block may be gone".
//!
//! The power-cut emulation is `common/powercut.rs` (every backend call under one lock, an
//! image before each mutating call; per image the journal cut at each record boundary from
//! its durable length on, each OSS keeping or dropping its unsynced writes). Each thread
//! writes only its own range, one write at a time, so at any power cut each byte of a
//! thread's range reads as that thread's last acknowledged write left it, or (inside the
//! one write it had in flight) as that write wrote it. A power cut is one fault: nothing
//! acknowledged may be lost, and no byte may read what no write put there, before the
//! settle (`flush`) and after it.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// Writes per thread while armed (each one a few images: a bound on the sweep's cost).
const WRITES_PER_THREAD: usize = 6;
const THREADS: usize = 2;

/// `S30R_WRITES=N`: writes per thread.
fn writes_per_thread() -> usize {
    count_of_env("S30R_WRITES", WRITES_PER_THREAD)
}

/// `S30R_CODE`: see `common::code_of_env`.
fn code_of_env() -> CodeSpec {
    common::code_of_env("S30R_CODE", "raid5:4")
}

/// `S30R_PATH`: `wcl` (the default), `rmw` or `delayed` (no window open: writes outside one).
fn path_of_env() -> WritePath {
    write_path_of_env("S30R_PATH", WritePath::Wcl)
}

/// `S30R_THREADS=1` runs one writer (a control: the same writes without a second thread).
fn threads() -> usize {
    count_of_env("S30R_THREADS", THREADS)
}

/// The probe's counts (shared with s31r's probe).
type Counts = ProbeCounts;

fn power_cut_two_wcl_writers_of_one_home_stripe(code: CodeSpec, seed: u64) -> Counts {
    let (top, dir, layout) = init_without_timeout_on(code, UNIT, path_of_env());
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(stripe_bytes >= 4 * UNIT, "two columns per thread");

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut base = pattern(seed, 2 * stripe_bytes);
    store.put("f", &base).unwrap();
    // Earlier acknowledged cache contents under both ranges: a cache slot a cut write
    // reuses holds older bytes, not zeros.
    for t in 0..THREADS {
        let at = t * 2 * UNIT + 100;
        let b = pattern(seed + 10 + t as u64, UNIT);
        store.write("f", at as u64, &b).unwrap();
        base[at..at + UNIT].copy_from_slice(&b);
    }
    let base = base;

    cut.arm();
    let writes: Vec<Vec<Issued>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads())
            .map(|t| {
                let store = &store;
                let cut = &cut;
                s.spawn(move || {
                    let mut rng = Rng(seed.wrapping_mul(31) + t as u64 + 1);
                    let region = t * 2 * UNIT..(t + 1) * 2 * UNIT;
                    let mut done = Vec::new();
                    for n in 0..writes_per_thread() {
                        let len = 1 + (rng.next() as usize % (region.len() - 1));
                        let at = region.start + rng.next() as usize % (region.len() - len + 1);
                        let id = (t as u64 + 1) * 1000 + n as u64;
                        let bytes = bytes_of(id, at as u64, len as u64);
                        let issued_at = cut.images().len();
                        store.write("f", at as u64, &bytes).unwrap();
                        let acked_at = cut.images().len();
                        done.push(Issued {
                            at,
                            bytes,
                            issued_at,
                            acked_at,
                        });
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    cut.last_image();
    drop(store);

    let images = cut.images();
    let mut counts = Counts::default();
    let laid = top.path().join("try");
    for_each_power_cut(&images, |point| {
        counts.points += 1;
        let what = format!("{:?} seed {seed}: {}", code.kind, point.what());
        let (acked, flight) = model_at(&base, &writes, point.image_index);
        point.lay(&laid);
        probe_cut(
            "S30R",
            point,
            &laid,
            &what,
            &acked,
            &flight,
            &writes,
            &mut counts,
        );
    });
    eprintln!(
        "{:?} seed {seed}: {} images, {} power cuts: wrong before settle {}, wrong after {}, lost {} (kill-like {})\n  first wrong: {:?}\n  first lost: {:?}",
        code.kind,
        images.len(),
        counts.points,
        counts.wrong_before_settle,
        counts.wrong_after_settle,
        counts.lost,
        counts.lost_kill_like,
        counts.first_wrong,
        counts.first_lost
    );
    counts
}

fn seeds() -> Vec<u64> {
    seeds_of_env("S30R_SEEDS")
}

#[test]
#[ignore = "probe: S30R_SEEDS=1,2,3 to sweep"]
fn probe_power_cut_two_wcl_writers_raid5() {
    for seed in seeds() {
        let c = power_cut_two_wcl_writers_of_one_home_stripe(CodeSpec::raid5(4), seed);
        assert!(c.points > 0);
    }
}

#[test]
#[ignore = "probe: S30R_SEEDS=1,2,3 to sweep"]
fn probe_power_cut_two_wcl_writers_raid6() {
    for seed in seeds() {
        let c = power_cut_two_wcl_writers_of_one_home_stripe(CodeSpec::raid6(4), seed);
        assert!(c.points > 0);
    }
}

#[test]
#[ignore = "probe: S30R_CODE=hcode:5 S30R_SEEDS=1,2 S30R_THREADS=2 S30R_WRITES=6"]
fn probe_power_cut_wcl_writers_code_of_env() {
    for seed in seeds() {
        let c = power_cut_two_wcl_writers_of_one_home_stripe(code_of_env(), seed);
        assert!(c.points > 0);
    }
}
