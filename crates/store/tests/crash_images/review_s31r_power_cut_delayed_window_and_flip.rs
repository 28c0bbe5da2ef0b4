//! Review s31r: POWER CUTS on the DELAYED path inside START_DELAYED .. END_DELAYED windows
//! (writes acknowledged inside a window, then END's parity build, all cut), and a power cut
//! plus ONE bit flip in a cache block (WCL or delayed). Copied from s30r's probe
//! (`review_s30r_power_cut_several_wcl_writers.rs`, not edited) and extended.
//!
//! Scene: a put of two stripes, two acknowledged writes before arming, then `S31R_ROUNDS`
//! rounds, each: (delayed path) START a window on `f`; one or two API writer threads of
//! `S31R_WRITES` writes each on disjoint ranges of home stripe 0; (delayed) END. Everything
//! after the arm runs under the power-cut emulation (`common/powercut.rs`). At every cut
//! (image, journal cut, OSS drop mask) open, read every 4 KiB block (each byte as
//! acknowledged at the cut, or as the one write in flight on its thread wrote it), `flush`,
//! read again. A window byte acknowledged by its write is acknowledged: one copy, no parity,
//! but a power cut with no failed disk may not lose it.
//!
//! `S31R_FLIP=1`: at each cut, also flip one bit of one cache block on the laid disk (the
//! cut's seed picks the OSS, the cache file and the bit among the cache files' nonzero
//! bytes). Two faults: a LOSS is allowed, WRONG BYTES is not.
//!
//! Knobs: `S31R_CODE` (as s30r's `S30R_CODE`), `S31R_PATH` (`delayed`, the default, or
//! `wcl`, `rmw`), `S31R_THREADS`, `S31R_WRITES`, `S31R_ROUNDS`, `S31R_SEEDS`, `S31R_FLIP`,
//! `S31R_NO_END=1` (windows left open: their bytes unprotected at the cut),
//! `S31R_KEEP=DIR` (lay the first losing or wrong cut there), `S31R_ALL=1`; for the rebuild
//! probe `S31R_DEAD=I`, `S31R_NO_FLUSH=1`, `S31R_OP=scrub` (cut a `scrub --repair` of one
//! rotten home block instead), `S31R_NO_FAIL=1` (scrub with every OSS up); for R31-1's
//! probe `S31R_WRITE=AT+LEN` and `S31R_KEEP_IMAGE=N` (with `S31R_KEEP`: lay the losing cut
//! of image N instead of the first).

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::WritePath;

/// Writes per thread while armed (each one a few images: a bound on the sweep's cost).
const WRITES_PER_THREAD: usize = 6;
const THREADS: usize = 2;

/// `S31R_WRITES=N`: writes per thread.
fn writes_per_thread() -> usize {
    count_of_env("S31R_WRITES", WRITES_PER_THREAD)
}

/// `S31R_CODE`: see `common::code_of_env`.
fn code_of_env() -> CodeSpec {
    common::code_of_env("S31R_CODE", "raid5:4")
}

/// `S31R_PATH`: `delayed` (the default: writes inside windows), `wcl` or `rmw`.
fn path_of_env() -> WritePath {
    write_path_of_env("S31R_PATH", WritePath::Delayed)
}

/// `S31R_THREADS=1` runs one writer (a control: the same writes without a second thread).
fn threads() -> usize {
    count_of_env("S31R_THREADS", THREADS)
}

/// The probe's counts (shared with s30r's probe; `flips` is this one's).
type Counts = ProbeCounts;

/// Files of zone `cache` under the laid store's OSS directories.
fn cache_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            cache_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "cache") {
            out.push(p);
        }
    }
}

/// Flip one bit of one nonzero byte of one cache file of the laid store (a block that
/// holds bytes: a flip in a hole is no fault). Returns what it flipped.
fn flip_one_cache_bit(laid: &std::path::Path, seed: u64) -> Option<String> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(laid).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() && p.file_name().unwrap().to_string_lossy().starts_with("oss-") {
            cache_files(&p, &mut files);
        }
    }
    files.sort();
    let mut rng = Rng(seed.wrapping_add(0x5151));
    let with_bytes: Vec<(std::path::PathBuf, Vec<usize>)> = files
        .into_iter()
        .map(|f| {
            let b = std::fs::read(&f).unwrap();
            let nz = (0..b.len()).filter(|&i| b[i] != 0).collect::<Vec<_>>();
            (f, nz)
        })
        .filter(|(_, nz)| !nz.is_empty())
        .collect();
    if with_bytes.is_empty() {
        return None;
    }
    let (file, nz) = &with_bytes[rng.next() as usize % with_bytes.len()];
    let at = nz[rng.next() as usize % nz.len()];
    let bit = rng.next() % 8;
    let mut b = std::fs::read(file).unwrap();
    b[at] ^= 1 << bit;
    std::fs::write(file, &b).unwrap();
    Some(format!(
        "bit {bit} of byte {at} of {} flipped",
        file.strip_prefix(laid).unwrap().display()
    ))
}

fn power_cut_writers_of_one_home_stripe(code: CodeSpec, seed: u64) -> Counts {
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
    let delayed = path_of_env() == WritePath::Delayed;
    let mut writes: Vec<Vec<Issued>> = (0..threads()).map(|_| Vec::new()).collect();
    for round in 0..rounds() {
        let window = delayed.then(|| store.delayed_window("f").unwrap());
        let done: Vec<Vec<Issued>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads())
                .map(|t| {
                    let store = &store;
                    let cut = &cut;
                    s.spawn(move || {
                        let mut rng = Rng(seed.wrapping_mul(31) + (round * 7 + t) as u64 + 1);
                        let region = t * 2 * UNIT..(t + 1) * 2 * UNIT;
                        let mut done = Vec::new();
                        for n in 0..writes_per_thread() {
                            let len = 1 + (rng.next() as usize % (region.len() - 1));
                            let at = region.start + rng.next() as usize % (region.len() - len + 1);
                            let id = (t as u64 + 1) * 1000 + (round * 100 + n) as u64;
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
        for (t, d) in done.into_iter().enumerate() {
            writes[t].extend(d);
        }
        if let Some(w) = window {
            if std::env::var("S31R_NO_END").is_err() {
                w.end().unwrap();
            }
        }
    }
    cut.last_image();
    drop(store);

    let images = cut.images();
    let mut counts = Counts::default();
    let laid = top.path().join("try");
    for_each_power_cut(&images, |point| {
        counts.points += 1;
        let mut what = format!("{:?} seed {seed}: {}", code.kind, point.what());
        let (acked, flight) = model_at(&base, &writes, point.image_index);
        point.lay(&laid);
        if std::env::var("S31R_FLIP").is_ok() {
            match flip_one_cache_bit(&laid, seed ^ (counts.points as u64).wrapping_mul(0x9e37)) {
                Some(flip) => {
                    counts.flips += 1;
                    what.push_str(&format!("; then {flip}"));
                }
                None => what.push_str("; no cache byte to flip"),
            }
        }
        probe_cut(
            "S31R",
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
        "{:?} seed {seed}: {} images, {} power cuts ({} with a flip): wrong before settle {}, wrong after {}, lost {} (kill-like {})\n  first wrong: {:?}\n  first lost: {:?}",
        code.kind,
        images.len(),
        counts.points,
        counts.flips,
        counts.wrong_before_settle,
        counts.wrong_after_settle,
        counts.lost,
        counts.lost_kill_like,
        counts.first_wrong,
        counts.first_lost
    );
    counts
}

/// `S31R_ROUNDS=N`: windows (or write rounds) one after the other.
fn rounds() -> usize {
    std::env::var("S31R_ROUNDS").map_or(2, |s| s.parse().unwrap())
}

fn seeds() -> Vec<u64> {
    seeds_of_env("S31R_SEEDS")
}

#[test]
#[ignore = "probe: S31R_CODE=raid5:4 S31R_PATH=delayed S31R_SEEDS=1,2 S31R_THREADS=2 S31R_FLIP=1"]
fn probe_power_cut_delayed_windows_code_of_env() {
    for seed in seeds() {
        let c = power_cut_writers_of_one_home_stripe(code_of_env(), seed);
        assert!(c.points > 0);
    }
}

/// A power cut during `rebuild` of one failed OSS in place (its directory emptied by the
/// rebuild), after a put and acknowledged writes on the `S31R_PATH` path and a `flush`. At
/// every cut: open (the OSS still failed on record, or rebuilt), read every 4 KiB block,
/// `rebuild` again (the operator's retry), read again. One dead disk and one power cut on
/// a code that tolerates one failure: a loss is a finding only where the code tolerates
/// two; WRONG BYTES is a finding everywhere.
fn power_cut_during_rebuild(code: CodeSpec, seed: u64, dead: usize) -> Counts {
    let (top, dir, layout) = init_without_timeout_on(code, UNIT, path_of_env());
    let stripe_bytes = layout.stripe_data_bytes() as usize;

    let cut = PowerCut::new(&dir);
    let mut store = open_power_cut(&dir, &cut).unwrap();
    let mut base = pattern(seed, 2 * stripe_bytes);
    store.put("f", &base).unwrap();
    let mut rng = Rng(seed.wrapping_mul(77) + 3);
    for n in 0..writes_per_thread() {
        let len = 1 + rng.next() as usize % (2 * UNIT);
        let at = rng.next() as usize % (base.len() - len);
        let b = bytes_of(9000 + n as u64, at as u64, len as u64);
        store.write("f", at as u64, &b).unwrap();
        base[at..at + len].copy_from_slice(&b);
    }
    if std::env::var("S31R_NO_FLUSH").is_err() {
        store.flush().unwrap();
    }
    // `S31R_NO_FAIL=1` (scrub probe only): a control with every OSS up.
    if std::env::var("S31R_NO_FAIL").is_err() {
        store.fail_oss(dead).unwrap();
    }
    let base = base;

    // `S31R_OP=scrub`: a `scrub --repair` with the OSS failed, cut, instead of the rebuild.
    // The scrub has something to repair: one rotten bit in another OSS's home data block
    // (with the failed OSS, two erasures: within raid6's and rs 4+2's tolerance).
    let scrub = std::env::var("S31R_OP").is_ok_and(|op| op == "scrub");
    let mut rot = std::path::PathBuf::new();
    if scrub {
        rot = (1..columns(code))
            .map(|i| dir.join(format!("oss-{}/objects/0.data", (dead + i) % columns(code))))
            .find(|p| p.exists())
            .expect("another OSS holds home data");
        let mut b = std::fs::read(&rot).unwrap();
        assert!(b.len() > 100, "the rot lands inside the file");
        if std::env::var("S31R_ALL").is_ok() {
            eprintln!(
                "rot file {} of {} bytes, byte 100 {:#04x}, nonzero bytes in 0..4100 {}; extents {:?}",
                rot.display(),
                b.len(),
                b[100],
                b[..4100].iter().filter(|&&x| x != 0).count(),
                std::fs::read_to_string(
                    rot.parent()
                        .unwrap()
                        .parent()
                        .unwrap()
                        .join("exaraid-extents.json")
                )
                .ok()
            );
        }
        // A byte an element holds (a data file has holes where this OSS holds parity).
        let at = (100..b.len()).find(|&i| b[i] != 0).expect("a written byte");
        b[at] ^= 1;
        std::fs::write(&rot, &b).unwrap();
    }
    cut.arm();
    if scrub {
        let report = store.scrub(true).unwrap();
        if std::env::var("S31R_ALL").is_ok() {
            eprintln!(
                "scrub --repair with OSS {dead} failed (rot in {}): {report:?}; reads: {:?}",
                rot.display(),
                check_reads(&store, &base, &vec![None; base.len()])
            );
        }
    } else {
        store.rebuild(dead, None).unwrap();
    }
    cut.disarm();
    drop(store);

    let images = cut.images();
    let mut counts = Counts::default();
    let laid = top.path().join("try");
    let none = vec![None; base.len()];
    for_each_power_cut(&images, |point| {
        counts.points += 1;
        let what = format!(
            "{:?} seed {seed} rebuild of OSS {dead}: {}",
            code.kind,
            point.what()
        );
        point.lay(&laid);
        let mut store = open_laid(&laid, &[]).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let note =
            |counts: &mut Counts, when: &str, r: Result<(Vec<usize>, String), String>| match r {
                Err(e) => {
                    counts.wrong_before_settle += 1;
                    counts
                        .first_wrong
                        .get_or_insert(format!("{what}: {when}: {e}"));
                }
                Ok((lost, message)) if !lost.is_empty() => {
                    counts.lost += 1;
                    counts.first_lost.get_or_insert(format!(
                        "{what}: {when}: blocks at {lost:?} LOST: {message}"
                    ));
                }
                Ok(_) => {}
            };
        note(
            &mut counts,
            "after the open",
            check_reads(&store, &base, &none),
        );
        match store.rebuild(dead, None) {
            Ok(()) => {}
            Err(e) => {
                counts
                    .first_lost
                    .get_or_insert(format!("{what}: the rebuild again: {e}"));
            }
        }
        note(
            &mut counts,
            "after the rebuild again",
            check_reads(&store, &base, &none),
        );
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "{:?} seed {seed}: rebuild of OSS {dead}: {} images, {} power cuts: wrong {}, lost {}\n  first wrong: {:?}\n  first lost: {:?}",
        code.kind,
        images.len(),
        counts.points,
        counts.wrong_before_settle,
        counts.lost,
        counts.first_wrong,
        counts.first_lost
    );
    counts
}

#[test]
#[ignore = "probe: S31R_CODE=raid6:4 S31R_PATH=wcl S31R_SEEDS=1,2 S31R_DEAD=1"]
fn probe_power_cut_during_rebuild_code_of_env() {
    let dead = std::env::var("S31R_DEAD").map_or(1, |s| s.parse().unwrap());
    for seed in seeds() {
        // A scrub may find nothing to write (no image): its run then checks nothing.
        let c = power_cut_during_rebuild(code_of_env(), seed, dead);
        assert!(c.points > 0 || std::env::var("S31R_OP").is_ok());
    }
}

/// R31-1's scene with the cut write a knob (`S31R_WRITE=AT+LEN`, default 2296+3141): WCL,
/// put of two stripes, acknowledged writes 100+4096 and 8292+4096 (home stripe 0 cached),
/// then the write cut at every KILL-LIKE cut (nothing dropped, the image's whole journal),
/// each laid with bit 7 of byte 7791 of OSS 3's cache file flipped (R31-1's fixture flip:
/// column 3's cache block, which a write inside columns 0..1 does not reach). Returns
/// (kill-like cuts, cuts that read some block LOST, the first of them); wrong bytes panic.
/// `S31R_KEEP=DIR` lays the first losing cut there (without the flip) with its model.
fn kill_cuts_beside_column_3_rot(
    code: CodeSpec,
    write: std::ops::Range<usize>,
) -> (usize, usize, String) {
    let (top, dir, layout) = init_wcl_without_timeout(code);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut base = pattern(1, 2 * stripe_bytes);
    store.put("f", &base).unwrap();
    for (at, s) in [(100usize, 11u64), (2 * UNIT + 100, 12)] {
        let b = pattern(s, UNIT);
        store.write("f", at as u64, &b).unwrap();
        base[at..at + UNIT].copy_from_slice(&b);
    }
    let new = bytes_of(1000, write.start as u64, write.len() as u64);
    cut.arm();
    store.write("f", write.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    let images = cut.images();
    let mut flight = vec![None; base.len()];
    for (j, &b) in new.iter().enumerate() {
        flight[write.start + j] = Some(b);
    }
    let last = images.len() - 1;
    let (mut kills, mut losing, mut first) = (0, 0, String::new());
    let laid = top.path().join("try");
    for_each_power_cut(&images, |point| {
        let journal_bytes = std::fs::metadata(point.image.dir.join("journal"))
            .unwrap()
            .len();
        if point.dropped.iter().any(|&d| d) || point.journal_cut_bytes != journal_bytes {
            return;
        }
        kills += 1;
        point.lay(&laid);
        let f = laid.join("oss-3/objects/18446744073709551615.cache");
        let mut b = std::fs::read(&f).unwrap();
        assert!(
            b.len() > 7791 && b[7791] != 0,
            "R31-1's flip lands on a cached byte"
        );
        b[7791] ^= 1 << 7;
        std::fs::write(&f, &b).unwrap();
        let mut acked = base.clone();
        if point.image_index == last {
            acked[write.clone()].copy_from_slice(&new);
        }
        let store = open_laid(&laid, &[]).unwrap();
        match check_reads(&store, &acked, &flight) {
            Err(e) => panic!("{}: {e}", point.what()),
            Ok((lost, m)) if !lost.is_empty() => {
                losing += 1;
                if std::env::var("S31R_ALL").is_ok() {
                    eprintln!(
                        "LOSING image {} of {}: {}",
                        point.image_index,
                        last,
                        point.what()
                    );
                }
                let keep_this = std::env::var("S31R_KEEP_IMAGE").map_or(first.is_empty(), |n| {
                    n.parse::<usize>().unwrap() == point.image_index
                });
                if first.is_empty() {
                    first = format!("{}: blocks at {lost:?} LOST: {m}", point.what());
                }
                if keep_this {
                    // `S31R_KEEP=DIR`: the first losing cut's disk (or image
                    // `S31R_KEEP_IMAGE`'s) WITHOUT the flip, and the model a fixture test
                    // checks (the window probe's file names).
                    if let Ok(keep) = std::env::var("S31R_KEEP") {
                        let keep = std::path::Path::new(&keep);
                        if !keep.exists() {
                            point.lay(keep);
                            std::fs::write(keep.join("s30r-acked.bin"), &acked).unwrap();
                            let flight_bytes: Vec<u8> =
                                flight.iter().map(|b| b.unwrap_or(0)).collect();
                            let flight_mask: Vec<u8> =
                                flight.iter().map(|b| u8::from(b.is_some())).collect();
                            std::fs::write(keep.join("s30r-flight.bin"), &flight_bytes).unwrap();
                            std::fs::write(keep.join("s30r-flight-mask.bin"), &flight_mask)
                                .unwrap();
                            std::fs::write(
                                keep.join("s30r-what.txt"),
                                format!(
                                    "image {} of {last}: {}\n{m}\n",
                                    point.image_index,
                                    point.what()
                                ),
                            )
                            .unwrap();
                        }
                    }
                }
            }
            Ok(_) => {}
        }
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    (kills, losing, first)
}

#[test]
#[ignore = "probe: S31R_CODE=raid6:4 S31R_WRITE=2296+3141"]
fn probe_kill_cuts_beside_column_3_rot() {
    let write = cut_write_of_env("S31R_WRITE");
    let (kills, losing, first) = kill_cuts_beside_column_3_rot(code_of_env(), write.clone());
    eprintln!(
        "write {}+{}: {kills} kill-like cuts, {losing} read LOST; first: {first}",
        write.start,
        write.len()
    );
    assert!(kills > 0);
}
