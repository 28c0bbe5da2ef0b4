//! Review s32r: POWER CUTS while ONE OSS is already failed (degraded WCL writes, degraded
//! delayed windows and END, a degraded `flush`), and two writer threads on disjoint ranges of
//! one file MIXING a delayed window (thread 0: START, its writes, END, per round) with
//! writes outside it (thread 1), all under the power-cut emulation (`common/powercut.rs`).
//! Copied from s31r's probe (`review_s31r_power_cut_delayed_window_and_flip.rs`, not
//! edited) and changed.
//!
//! Scene: a put of two stripes, two acknowledged writes (home stripe 0 cached), then
//! (`S32R_DEAD=I`) `fail_oss(I)`; arm; `S32R_ROUNDS` rounds of one or two writer threads of
//! `S32R_WRITES` writes each on disjoint ranges of home stripe 0 (thread t: bytes
//! t*8192..(t+1)*8192; on the delayed path inside a window, or with `S32R_MIX=1` thread 0
//! inside a window and thread 1 without); `S32R_FLUSH=1` then a `flush` (the degraded
//! destage) before the last image. At every cut (image, journal cut, OSS drop mask) lay the
//! disk, with `S32R_GONE=1` empty the dead OSS's directory (the disk is gone, not merely
//! failed on record), open with the dead OSS down, read every 4 KiB block (each byte as
//! acknowledged at the cut, or as the one write in flight on its thread wrote it), `flush`,
//! read again; `S32R_REBUILD=1` then `rebuild` the dead OSS in place and read again.
//!
//! One failed OSS and a power cut (no bit rot): on a code that tolerates two failures a
//! LOSS is a finding; on raid5 (one) it is reported apart. WRONG BYTES is a finding
//! everywhere.
//!
//! Knobs: `S32R_CODE` (`raid5:4`, `raid6:4`, `rs:4:2`, `hcode:5`, ...), `S32R_PATH` (`wcl`,
//! the default, `delayed`, `rmw`), `S32R_THREADS`, `S32R_WRITES`, `S32R_ROUNDS`,
//! `S32R_SEEDS`, `S32R_DEAD`, `S32R_GONE`, `S32R_MIX`, `S32R_FLUSH`, `S32R_REBUILD`,
//! `S32R_LIVE_COLUMNS` (each thread inside one data column whose OSS is alive),
//! `S32R_KEEP=DIR` (lay the first losing or wrong cut there), `S32R_ALL=1`.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::CodeSpec;
use exaraid_store::{StoreError, WritePath};

/// Writes per thread per round while armed (each a few images: a bound on the sweep's cost).
const WRITES_PER_THREAD: usize = 4;
const THREADS: usize = 2;

fn env_on(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

fn code_of_env() -> CodeSpec {
    common::code_of_env("S32R_CODE", "raid6:4")
}

fn path_of_env() -> WritePath {
    write_path_of_env("S32R_PATH", WritePath::Wcl)
}

fn dead_of_env() -> Option<usize> {
    std::env::var("S32R_DEAD").ok().map(|s| s.parse().unwrap())
}

fn seeds() -> Vec<u64> {
    seeds_of_env("S32R_SEEDS")
}

#[derive(Default, Debug)]
pub struct Counts {
    pub points: usize,
    pub wrong_before_settle: usize,
    pub wrong_after_settle: usize,
    pub wrong_after_rebuild: usize,
    pub lost: usize,
    /// Losing cuts that drop no OSS's writes and keep the image's whole journal: what a
    /// kill -9 at that instant leaves (a crash alone beside the failed OSS).
    pub lost_kill_like: usize,
    pub lost_after_rebuild: usize,
    pub rebuild_failed: usize,
    pub first_wrong: Option<String>,
    pub first_lost: Option<String>,
}

fn journal_bytes(dir: &std::path::Path) -> u64 {
    std::fs::metadata(dir.join("journal")).unwrap().len()
}

pub fn power_cut_degraded_writers(code: CodeSpec, seed: u64) -> Counts {
    let path = path_of_env();
    let (top, dir, layout) = init_without_timeout_on(code, UNIT, path);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    assert!(stripe_bytes >= 4 * UNIT, "two columns per thread");
    let dead = dead_of_env();
    let mix = env_on("S32R_MIX");
    assert!(
        !mix || path == WritePath::Delayed,
        "S32R_MIX needs S32R_PATH=delayed"
    );

    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut base = pattern(seed, 2 * stripe_bytes);
    store.put("f", &base).unwrap();
    for t in 0..THREADS {
        let at = t * 2 * UNIT + 100;
        let b = pattern(seed + 10 + t as u64, UNIT);
        store.write("f", at as u64, &b).unwrap();
        base[at..at + UNIT].copy_from_slice(&b);
    }
    if let Some(d) = dead {
        store.fail_oss(d).unwrap();
    }
    let base = base;
    let threads = count_of_env("S32R_THREADS", THREADS);
    let rounds = count_of_env("S32R_ROUNDS", 2);
    let writes_per_thread = count_of_env("S32R_WRITES", WRITES_PER_THREAD);

    cut.arm();
    let mut writes: Vec<Vec<Issued>> = (0..threads).map(|_| Vec::new()).collect();
    for round in 0..rounds {
        let whole_window =
            (path == WritePath::Delayed && !mix).then(|| store.delayed_window("f").unwrap());
        let done: Vec<Vec<Issued>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let store = &store;
                    let cut = &cut;
                    let layout = &layout;
                    s.spawn(move || {
                        // Thread 0's own window when mixing: thread 1's writes land inside
                        // or outside it, as the threads' timing falls.
                        let window = (mix && t == 0).then(|| store.delayed_window("f").unwrap());
                        let mut rng = Rng(seed.wrapping_mul(31) + (round * 7 + t) as u64 + 1);
                        // `S32R_LIVE_COLUMNS=1`: thread t writes only inside the t-th data
                        // column of home stripe 0 whose OSS is not the dead one (a window
                        // refuses bytes for a failed OSS; this cuts windows beside it).
                        let region = if env_on("S32R_LIVE_COLUMNS") {
                            let col = (0..4)
                                .filter(|&c| Some(layout.oss_of(0, 0, c)) != dead)
                                .nth(t)
                                .expect("a live data column per thread");
                            col * UNIT..(col + 1) * UNIT
                        } else {
                            t * 2 * UNIT..(t + 1) * 2 * UNIT
                        };
                        let mut done = Vec::new();
                        for n in 0..writes_per_thread {
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
                        if let Some(w) = window {
                            w.end().unwrap();
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
        if let Some(w) = whole_window {
            w.end().unwrap();
        }
    }
    if env_on("S32R_FLUSH") {
        // The settle ends in a checkpoint (not modelled): the images before it cover its
        // block writes; a power cut after it is the last image's disk settled.
        store.flush().unwrap();
        cut.disarm();
    } else {
        cut.last_image();
    }
    drop(store);

    let images = cut.images();
    let mut counts = Counts::default();
    let laid = top.path().join("try");
    let failed: Vec<usize> = dead.into_iter().collect();
    for_each_power_cut(&images, |point| {
        counts.points += 1;
        let what = format!(
            "{:?} {path:?} dead {dead:?} seed {seed}: {}",
            code.kind,
            point.what()
        );
        let (acked, flight) = model_at(&base, &writes, point.image_index);
        point.lay(&laid);
        if let (Some(d), true) = (dead, env_on("S32R_GONE")) {
            lose_disk(&laid, d);
        }
        let mut store = open_laid(&laid, &failed).unwrap_or_else(|e| panic!("{what}: open: {e}"));
        let kill_like = !point.dropped.iter().any(|&d| d)
            && point.journal_cut_bytes == journal_bytes(&point.image.dir);
        let note_lost = |counts: &mut Counts, lost: &[usize], message: &str, when: &str| {
            counts.first_lost.get_or_insert(format!(
                "{what}: {when}: blocks at {lost:?} LOST: {message}"
            ));
            if env_on("S32R_ALL") {
                eprintln!("LOSING {what}: {when}: blocks at {lost:?}: {message}");
            }
        };
        let mut lost_here = false;
        match check_reads(&store, &acked, &flight) {
            Err(e) => {
                counts.wrong_before_settle += 1;
                counts
                    .first_wrong
                    .get_or_insert(format!("{what}: before the settle: {e}"));
            }
            Ok((lost, message)) if !lost.is_empty() => {
                lost_here = true;
                note_lost(&mut counts, &lost, &message, "before the settle");
            }
            Ok(_) => {}
        }
        match store.flush() {
            Ok(()) | Err(StoreError::DataLost(_)) => {}
            Err(e) => panic!("{what}: flush: {e}"),
        }
        match check_reads(&store, &acked, &flight) {
            Err(e) => {
                counts.wrong_after_settle += 1;
                counts
                    .first_wrong
                    .get_or_insert(format!("{what}: after the settle: {e}"));
            }
            Ok((lost, message)) if !lost.is_empty() => {
                lost_here = true;
                note_lost(&mut counts, &lost, &message, "after the settle");
            }
            Ok(_) => {}
        }
        if lost_here {
            counts.lost += 1;
            counts.lost_kill_like += usize::from(kill_like);
            if let Ok(keep) = std::env::var("S32R_KEEP") {
                let keep = std::path::Path::new(&keep);
                if !keep.exists() {
                    point.lay(keep);
                    std::fs::write(keep.join("s32r-acked.bin"), &acked).unwrap();
                    let fb: Vec<u8> = flight.iter().map(|b| b.unwrap_or(0)).collect();
                    let fm: Vec<u8> = flight.iter().map(|b| u8::from(b.is_some())).collect();
                    std::fs::write(keep.join("s32r-flight.bin"), &fb).unwrap();
                    std::fs::write(keep.join("s32r-flight-mask.bin"), &fm).unwrap();
                    std::fs::write(keep.join("s32r-what.txt"), format!("{what}\n")).unwrap();
                    for (t, thread) in writes.iter().enumerate() {
                        for w in thread {
                            eprintln!(
                                "thread {t}: write {}+{} issued at image {} acknowledged at image {}",
                                w.at,
                                w.bytes.len(),
                                w.issued_at,
                                w.acked_at
                            );
                        }
                    }
                }
            }
        }
        if let (Some(d), true) = (dead, env_on("S32R_REBUILD")) {
            match store.rebuild(d, None) {
                Ok(()) => {}
                Err(e) => {
                    counts.rebuild_failed += 1;
                    counts
                        .first_lost
                        .get_or_insert(format!("{what}: rebuild: {e}"));
                }
            }
            match check_reads(&store, &acked, &flight) {
                Err(e) => {
                    counts.wrong_after_rebuild += 1;
                    counts
                        .first_wrong
                        .get_or_insert(format!("{what}: after the rebuild: {e}"));
                }
                Ok((lost, message)) if !lost.is_empty() => {
                    counts.lost_after_rebuild += 1;
                    counts.first_lost.get_or_insert(format!(
                        "{what}: after the rebuild: blocks at {lost:?} LOST: {message}"
                    ));
                }
                Ok(_) => {}
            }
        }
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    eprintln!(
        "S32R {:?} {path:?} dead {dead:?} mix {mix} seed {seed}: {} images, {} cuts: wrong {}/{}/{} lost {} (kill-like {}) lost-after-rebuild {} rebuild-failed {}\n  first wrong: {:?}\n  first lost: {:?}",
        code.kind,
        images.len(),
        counts.points,
        counts.wrong_before_settle,
        counts.wrong_after_settle,
        counts.wrong_after_rebuild,
        counts.lost,
        counts.lost_kill_like,
        counts.lost_after_rebuild,
        counts.rebuild_failed,
        counts.first_wrong,
        counts.first_lost
    );
    counts
}

#[test]
#[ignore = "probe: S32R_CODE=raid6:4 S32R_PATH=wcl S32R_DEAD=1 S32R_GONE=1 S32R_SEEDS=1,2"]
fn probe_power_cut_degraded_writers_code_of_env() {
    for seed in seeds() {
        let c = power_cut_degraded_writers(code_of_env(), seed);
        assert!(c.points > 0);
    }
}

/// What the cuts of one degraded write gave.
#[derive(Default, Debug)]
pub struct OneWrite {
    pub cuts: usize,
    pub kill_like: usize,
    pub losing: usize,
    pub losing_kill_like: usize,
    pub first_lost: String,
}

/// One WCL write cut at every power cut beside ONE failed OSS: a put of two stripes,
/// acknowledged writes 100+4096 and 8292+4096 (home stripe 0 cached in every data column),
/// `fail_oss(dead)`, then `write` (the cut one, its block writes in plan order: the same
/// images on every run). Each cut is laid with the dead OSS's directory emptied (the disk
/// gone) and opened with it down; every 4 KiB block is read (acknowledged, or the cut
/// write's bytes), then after a `flush` again. Wrong bytes panic.
pub fn cuts_of_one_degraded_write(
    code: CodeSpec,
    dead: usize,
    write: std::ops::Range<usize>,
) -> OneWrite {
    let DegradedCutWrite {
        top,
        base,
        new,
        flight,
        images,
        ..
    } = degraded_cut_write(code, dead, write.clone());
    let last = images.len() - 1;
    if env_on("S32R_DIFF") {
        // Which files each mutating call changed: image i+1 against image i.
        for i in 0..last {
            eprintln!(
                "call {i}: {:?}",
                changed_files(&images[i].dir, &images[i + 1].dir)
            );
        }
    }
    let mut out = OneWrite::default();
    let laid = top.path().join("try");
    for_each_power_cut(&images, |point| {
        out.cuts += 1;
        let kill_like = !point.dropped.iter().any(|&d| d)
            && point.journal_cut_bytes == journal_bytes(&point.image.dir);
        out.kill_like += usize::from(kill_like);
        point.lay(&laid);
        lose_disk(&laid, dead);
        let mut acked = base.clone();
        if point.image_index == last {
            acked[write.clone()].copy_from_slice(&new);
        }
        let store =
            open_laid(&laid, &[dead]).unwrap_or_else(|e| panic!("{}: open: {e}", point.what()));
        let lost = lost_blocks_across_a_flush(&store, &acked, &flight, &point.what());
        if !lost.is_empty() {
            out.losing += 1;
            out.losing_kill_like += usize::from(kill_like);
            if env_on("S32R_ALL") {
                eprintln!(
                    "LOSING image {} of {last}: {}: blocks at {lost:?}",
                    point.image_index,
                    point.what()
                );
            }
            if out.first_lost.is_empty() {
                out.first_lost = format!("{}: blocks at {lost:?}", point.what());
                if let Ok(keep) = std::env::var("S32R_KEEP") {
                    let keep = std::path::Path::new(&keep);
                    if !keep.exists() {
                        point.lay(keep);
                    }
                }
            }
        }
        drop(store);
        std::fs::remove_dir_all(&laid).unwrap();
    });
    out
}

#[test]
#[ignore = "probe: S32R_CODE=raid6:4 S32R_DEAD=1 S32R_WRITE=2296+3141"]
fn probe_cuts_of_one_degraded_wcl_write() {
    let write = cut_write_of_env("S32R_WRITE");
    let dead = dead_of_env().unwrap_or(1);
    let o = cuts_of_one_degraded_write(code_of_env(), dead, write.clone());
    eprintln!(
        "S32R-ONE {:?} dead {dead} write {}+{}: {o:?}",
        code_of_env().kind,
        write.start,
        write.len()
    );
    assert!(o.cuts > 0);
}

/// Files under `b` whose bytes differ from (or are missing in) `a`, relative names.
fn changed_files(a: &std::path::Path, b: &std::path::Path) -> Vec<String> {
    fn walk(root: &std::path::Path, at: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(at).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    walk(b, b, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| std::fs::read(a.join(f)).ok() != Some(std::fs::read(b.join(f)).unwrap()))
        .map(|f| f.display().to_string())
        .collect()
}

/// Files of the laid store whose damage at rest the metadata probe tries: the journal, the
/// state and superblock, and each OSS's own metadata files.
fn metadata_files(laid: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for name in ["journal", "state", "superblock"] {
        if laid.join(name).exists() {
            out.push(std::path::PathBuf::from(name));
        }
    }
    let mut oss: Vec<_> = std::fs::read_dir(laid)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    oss.sort();
    for d in oss {
        let mut files: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        out.extend(
            files
                .into_iter()
                .map(|p| p.strip_prefix(laid).unwrap().to_path_buf()),
        );
    }
    out
}

/// Metadata damaged AT REST after a crash beside one failed OSS: the R32 scene's write
/// (`S32R_WRITE`, default 4000+200) with `S32R_DEAD` (default 2) failed, crashed at image
/// `S32R_IMAGE` (default the one before the last: the write in flight, nothing dropped),
/// then per case ONE bit flipped (bit = offset % 8, every `S32R_STEP`-th byte, default 7)
/// or the file cut at that length (`S32R_TRUNC=1`) in one metadata file (`S32R_FILE`
/// names one, else all), then open (the dead OSS down, its disk gone) and read every block.
/// A refused open or a named LOST is fine; WRONG BYTES or a panic is a finding. Prints the
/// counts per file.
#[test]
#[ignore = "probe: S32R_CODE=raid6:4 S32R_DEAD=2 S32R_STEP=7 S32R_TRUNC=1 S32R_FILE=journal"]
fn probe_metadata_damage_after_a_degraded_crash() {
    let code = code_of_env();
    let dead = dead_of_env().unwrap_or(2);
    let write = cut_write_of_env("S32R_WRITE");
    let DegradedCutWrite {
        top,
        dir,
        base,
        new,
        flight,
        images,
        ..
    } = degraded_cut_write(code, dead, write.clone());
    let at_image = count_of_env("S32R_IMAGE", images.len() - 2);
    let image = &images[at_image];
    let mut acked = base.clone();
    if at_image == images.len() - 1 {
        acked[write.clone()].copy_from_slice(&new);
    }
    let pristine = top.path().join("pristine");
    PowerCutPoint {
        image_index: at_image,
        image,
        journal_cut_bytes: journal_bytes(&image.dir),
        dropped: vec![false; image.oss_durable.len()],
    }
    .lay(&pristine);
    lose_disk(&pristine, dead);
    let step = count_of_env("S32R_STEP", 7);
    let trunc = env_on("S32R_TRUNC");
    let only = std::env::var("S32R_FILE").ok();
    // Each case is laid where the store was made (its superblock names its OSS directories
    // there) and opened by the store's own open, as `exaraid` opens it: the test helpers'
    // own label checks would panic first.
    let laid = dir.clone();
    std::fs::remove_dir_all(&laid).unwrap();
    let open = |at: &std::path::Path| {
        let options = exaraid_store::OpenOptions {
            fsync: false,
            fail_down_osses_before_recovery: vec![dead],
            ..exaraid_store::OpenOptions::default()
        };
        exaraid_store::Store::open_with(at, options)
    };
    let (mut total_wrong, mut total_panic) = (0, 0);
    for file in metadata_files(&pristine) {
        if only.as_ref().is_some_and(|o| file.to_string_lossy() != *o) {
            continue;
        }
        let len = std::fs::metadata(pristine.join(&file)).unwrap().len() as usize;
        let (mut cases, mut refused, mut lost, mut clean, mut wrong, mut panics) =
            (0, 0, 0, 0, 0, 0);
        let mut first_bad = String::new();
        // `S32R_BOUNDARIES=1` (with `S32R_TRUNC=1`, the journal): only cuts at record
        // boundaries (a journal that lost whole records, its tail intact), each printed.
        let ats: Vec<usize> = if trunc && env_on("S32R_BOUNDARIES") && file.as_os_str() == "journal"
        {
            record_boundaries(&pristine.join("journal"), 0)
                .into_iter()
                .map(|b| b as usize)
                .collect()
        } else {
            (0..len).step_by(step.max(1)).collect()
        };
        for at in ats {
            cases += 1;
            copy_tree(&pristine, &laid);
            let p = laid.join(&file);
            let mut b = std::fs::read(&p).unwrap();
            let what = if trunc {
                b.truncate(at);
                format!("{} cut to {at} bytes", file.display())
            } else {
                b[at] ^= 1 << (at % 8);
                format!("{} bit {} of byte {at} flipped", file.display(), at % 8)
            };
            std::fs::write(&p, &b).unwrap();
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match open(&laid) {
                    Err(e) => Ok(Err(e.to_string())),
                    Ok(store) => Ok(Ok(check_reads(&store, &acked, &flight))),
                }));
            match outcome {
                Err(_) => {
                    panics += 1;
                    if first_bad.is_empty() {
                        first_bad = format!("PANIC: {what}");
                    }
                }
                Ok(Err::<Result<_, String>, ()>(_)) => unreachable!(),
                Ok(Ok(Err(_e))) => refused += 1,
                // A read refused with another error (the file gone with its `Create`
                // record, say) is a clear error, not wrong bytes.
                Ok(Ok(Ok(Err(e)))) if !e.starts_with("WRONG") => refused += 1,
                Ok(Ok(Ok(Err(e)))) => {
                    if env_on("S32R_ALL") {
                        eprintln!("WRONG {what}: {e}");
                    }
                    wrong += 1;
                    if first_bad.is_empty() || first_bad.starts_with("PANIC") {
                        first_bad = format!("WRONG: {what}: {e}");
                    }
                }
                Ok(Ok(Ok(Ok((l, _))))) if !l.is_empty() => lost += 1,
                Ok(Ok(Ok(Ok(_)))) => clean += 1,
            }
            std::fs::remove_dir_all(&laid).unwrap();
        }
        total_wrong += wrong;
        total_panic += panics;
        eprintln!(
            "S32R-META {:?} dead {dead} image {at_image} {} {}: {cases} cases: refused {refused} lost {lost} read-all {clean} WRONG {wrong} PANIC {panics} {first_bad}",
            code.kind,
            if trunc { "trunc" } else { "flip" },
            file.display()
        );
    }
    eprintln!("S32R-META total wrong {total_wrong} panics {total_panic}");
}
