//! Specifications of the tape tier on small hand-checked cases: which drives a policy uses,
//! what lands on its tapes, and what MAIN-SCHEDULER and LOAD-BALANCER decide on scripted
//! arrivals. The block-level layouts of the seed's Figures 1-3 are pinned in layout.rs.

use exaraid_archive::experiment::{write_csv, ExperimentToml, CSV_HEADER};
use exaraid_archive::hardware::Platform;
use exaraid_archive::sim::{Decision, LbTrigger, Policy, Request, Sim, SimConfig};

/// Table 1 indices used below.
const S1_0: usize = 0;
const S4_1: usize = 4;
const S4_2: usize = 5;

fn config(policy: Policy) -> SimConfig {
    let mut cfg = SimConfig::new(policy, 1e9, 1e9, 1.0, 10.0, 7);
    cfg.rait_block_bytes = 1e7;
    cfg.parallel_block_bytes = 1e7;
    // Scripted runs end when every request is done; the drain bound only guards a bug.
    cfg.drain_max_s = 1e7;
    cfg
}

fn write(
    sim: &Sim,
    at_s: f64,
    file: u64,
    size_bytes: f64,
    scheme: usize,
    c_d: f64,
    c_p: f64,
) -> Request {
    let mut r = sim.scripted(at_s, false, file, size_bytes, scheme);
    r.c_d = c_d;
    r.c_p = c_p;
    r
}

const NEW: u64 = 1 << 50;

#[test]
fn parallel_4_plus_1_uses_five_drives_of_one_mover_and_puts_the_ec_on_its_own_tape() {
    // 24 blocks of B (Figure 2): each data tape gets 6 consecutive blocks, the EC tape 6 EC
    // blocks; with C_D = 2 and C_P = 1 the EC tape holds twice the bytes of a data tape.
    let cfg = config(Policy::Parallel);
    let b = cfg.parallel_block_bytes;
    let sim = Sim::new(cfg, Platform::blue_waters());
    let script = vec![write(&sim, 0.0, NEW, 24.0 * b, S4_1, 2.0, 1.0)];
    let (m, sim) = sim.with_script(script).run();
    assert_eq!(m.completed, 1);
    let drives = sim.process_drives(0);
    assert_eq!(drives.len(), 5);
    let mover = sim.mover_of_drive(drives[0]);
    assert!(
        drives.iter().all(|&d| sim.mover_of_drive(d) == mover),
        "one mover hosts the process"
    );
    let lanes = sim.process_lanes(0);
    for lane in &lanes[..4] {
        assert!(
            (lane.1 - 6.0 * b / 2.0).abs() < 1.0,
            "data tape holds 6 blocks at C_D = 2: {lanes:?}"
        );
    }
    assert!(
        (lanes[4].1 - 6.0 * b).abs() < 1.0,
        "EC tape holds 6 EC blocks at C_P = 1: {lanes:?}"
    );
    assert_eq!(m.tape_mounts, 5, "one scratch tape per drive");
}

#[test]
fn parallel_replaces_only_the_ec_tape_when_it_fills_first() {
    // Figure 2 (b): tape capacity 1 TB, data at C_D = 3 and EC at C_P = 1: the EC tape is
    // full after 1 TB of raw data per lane while the data tapes are a third full.
    let mut cfg = config(Policy::Parallel);
    cfg.size_max_bytes = 10e12;
    let sim = Sim::new(cfg, Platform::blue_waters());
    let script = vec![write(&sim, 0.0, NEW, 4.0 * 1.5e12, S4_1, 3.0, 1.0)];
    let (m, sim) = sim.with_script(script).run();
    let lanes = sim.process_lanes(0);
    for lane in &lanes[..4] {
        assert!((lane.1 - 1.5e12 / 3.0).abs() < 1.0);
    }
    assert!(
        (lanes[4].1 - 0.5e12).abs() < 1.0,
        "the second EC tape holds the overflow: {lanes:?}"
    );
    assert_eq!(
        m.tape_mounts, 6,
        "five first tapes and one replacement EC tape"
    );
}

#[test]
fn rait_4_plus_1_spreads_ec_over_all_five_tapes() {
    // 20 blocks = 5 stripes = one full rotation: every tape holds 4 data blocks (C_D = 2)
    // and 1 EC block (C_P = 1): 3 B each. Each stripe costs a stream restart plus one
    // block at the EC's (slower) rate, in lockstep.
    let cfg = config(Policy::Rait);
    let b = cfg.rait_block_bytes;
    let platform = Platform::blue_waters();
    let stripe_s = platform.drive.restart_s() + b / platform.drive.host_rate_bytes_per_s(1.0);
    let sim = Sim::new(cfg, platform.clone());
    let script = vec![write(&sim, 0.0, NEW, 20.0 * b, S4_1, 2.0, 1.0)];
    let (m, sim) = sim.with_script(script).run();
    let lanes = sim.process_lanes(0);
    assert_eq!(lanes.len(), 5);
    for lane in &lanes {
        assert!((lane.1 - 3.0 * b).abs() < 1.0, "{lanes:?}");
    }
    // Mount: arm move + load (arms are free, drives empty); then 5 stripes.
    let expected_s = platform.library.arm_move_s + platform.drive.load_to_ready_s + 5.0 * stripe_s;
    assert!(
        (m.avg_response_s - expected_s).abs() < 1e-6,
        "{} vs {expected_s}",
        m.avg_response_s
    );
}

#[test]
fn vertical_uses_one_drive_and_writes_the_ec_after_x_data_tapes() {
    // 1 GB tapes, 4+1, 5 GB uncompressed: four data tapes fill, the EC area (1 GB) goes to
    // its own tape, the fifth GB starts the next group on a new data tape.
    let mut platform = Platform::blue_waters();
    platform.library.tape_capacity_bytes = 1e9;
    let mut cfg = config(Policy::Vertical);
    cfg.rait_block_bytes = 1e7;
    cfg.size_max_bytes = 5e9;
    let sim = Sim::new(cfg, platform.clone());
    let script = vec![write(&sim, 0.0, NEW, 5e9, S4_1, 1.0, 1.0)];
    let (m, sim) = sim.with_script(script).run();
    assert_eq!(
        sim.process_drives(0).len(),
        1,
        "VERTICAL needs one drive whatever X+Y"
    );
    assert_eq!(
        m.tape_mounts, 6,
        "4 data tapes, 1 EC tape, 1 data tape of the next group"
    );
    let lanes = sim.process_lanes(0);
    assert!((lanes[0].1 - 1e9).abs() < 1.0);
    // The request completes when its data is on tape; the EC of the first group was written
    // in between (the drive is busy with it), the second group's EC stays on the disk.
    let d = &platform.drive;
    let one_tape_s = 1e9 / d.native_rate_bytes_per_s;
    let swap_s =
        d.rewind_s(1e9, 1e9) + d.unload_s + 2.0 * platform.library.arm_move_s + d.load_to_ready_s;
    let first_mount_s = platform.library.arm_move_s + d.load_to_ready_s;
    // Five data tapes and one EC tape written; three swaps between data tapes, one to the
    // EC tape, one to the next group's data tape.
    let expected = first_mount_s + 6.0 * one_tape_s + 5.0 * swap_s;
    assert!(
        (m.avg_response_s - expected).abs() < 1e-6,
        "{} vs {expected}",
        m.avg_response_s
    );
}

#[test]
fn main_scheduler_fills_a_process_up_to_maxlightload_then_creates_another() {
    let mut cfg = config(Policy::Vertical);
    cfg.scheduler.max_light_load = 2;
    let sim = Sim::new(cfg, Platform::blue_waters());
    let script: Vec<Request> = (0..4)
        .map(|i| write(&sim, 0.0, NEW + i, 1e9, S4_2, 2.0, 1.0))
        .collect();
    let (_, sim) = sim.with_script(script).run();
    let d = sim.decisions.clone().unwrap();
    assert!(matches!(d[0].1, Decision::Created { process: 0, .. }));
    assert_eq!(
        d[1].1,
        Decision::MappedLight { process: 0 },
        "load 1 <= MAXLIGHTLOAD"
    );
    assert_eq!(
        d[2].1,
        Decision::MappedLight { process: 0 },
        "load 2 <= MAXLIGHTLOAD"
    );
    assert!(
        matches!(d[3].1, Decision::Created { process: 1, .. }),
        "load 3 > MAXLIGHTLOAD: new process"
    );
}

fn tiny_platform(drives: usize) -> Platform {
    let mut p = Platform::blue_waters();
    p.movers.movers = 1;
    p.movers.drives_per_mover = drives;
    p
}

#[test]
fn main_scheduler_maps_on_a_busy_process_when_no_drive_is_left_and_delays_an_orphan_type() {
    let mut cfg = config(Policy::Vertical);
    cfg.scheduler.max_light_load = 0;
    let sim = Sim::new(cfg, tiny_platform(2));
    let script = vec![
        write(&sim, 0.0, NEW, 1e9, S4_2, 2.0, 1.0),
        write(&sim, 0.0, NEW + 1, 1e9, S4_2, 2.0, 1.0),
        write(&sim, 0.0, NEW + 2, 1e9, S4_2, 2.0, 1.0),
        write(&sim, 0.0, NEW + 3, 1e9, S1_0, 2.0, 1.0),
    ];
    let (m, sim) = sim.with_script(script).run();
    let d = sim.decisions.clone().unwrap();
    assert!(matches!(d[0].1, Decision::Created { process: 0, .. }));
    assert!(
        matches!(d[1].1, Decision::Created { process: 1, .. }),
        "p0 has load 1 > 0"
    );
    assert_eq!(
        d[2].1,
        Decision::MappedHeavy { process: 0 },
        "no idle drive: least loaded of its type"
    );
    assert_eq!(
        d[3].1,
        Decision::Delayed,
        "1+0 has no process and no drive is idle"
    );
    // LOAD-BALANCER later resets, creates a 1+0 process and remaps it.
    assert!(
        d[4..]
            .iter()
            .any(|(r, dec)| *r == 3 && matches!(dec, Decision::Remapped { .. })),
        "{d:?}"
    );
    assert_eq!(m.completed, 4);
    assert!(m.lb_runs >= 1);
}

#[test]
fn a_second_request_on_a_file_in_use_waits_for_the_load_balancer() {
    let mut cfg = config(Policy::Vertical);
    cfg.scheduler.min_lb_interval_s = 3_600.0;
    cfg.scheduler.max_waiting_time_s = 60.0;
    let sim = Sim::new(cfg, Platform::blue_waters());
    let script = vec![
        write(&sim, 0.0, NEW, 1e9, S4_2, 2.0, 1.0),
        write(&sim, 1.0, NEW, 1e9, S4_2, 2.0, 1.0),
    ];
    let (m, sim) = sim.with_script(script).run();
    let d = sim.decisions.clone().unwrap();
    assert_eq!(d[1], (1, Decision::Delayed));
    assert_eq!(
        sim.lb_log.first().map(|l| l.1),
        Some(LbTrigger::WaitingTime)
    );
    assert_eq!(
        sim.lb_log[0].0,
        3_600 * 1_000_000_000,
        "first LOAD-BALANCER tick after MINLBINTERVAL"
    );
    assert_eq!(m.completed, 2);
    // Response of the delayed one: from t = 1 s to after the tick at 3600 s.
    assert!(m.avg_response_s > (3_600.0 - 1.0) / 2.0);
}

#[test]
fn load_balancer_fires_on_maxreqcount_and_ejects_the_tapes_of_cancelled_processes() {
    let mut cfg = config(Policy::Vertical);
    cfg.scheduler.min_lb_interval_s = 3_600.0;
    cfg.scheduler.max_waiting_time_s = 1e9;
    cfg.scheduler.max_req_count = 2;
    cfg.scheduler.max_imbalance = 1e9;
    let sim = Sim::new(cfg, tiny_platform(1));
    // One drive: the 4+2 process takes it; three 1+0 requests have no process: delayed.
    let mut script = vec![write(&sim, 0.0, NEW, 1e9, S4_2, 2.0, 1.0)];
    for i in 1..4 {
        script.push(write(&sim, 0.0, NEW + i, 1e9, S1_0, 2.0, 1.0));
    }
    let (m, sim) = sim.with_script(script).run();
    assert_eq!(
        sim.lb_log[0].1,
        LbTrigger::RequestCount,
        "3 waiting > MAXREQCOUNT = 2"
    );
    assert_eq!(m.completed, 4);
    assert_eq!(
        sim.processes_alive(),
        1,
        "the idle 4+2 process was cancelled, one 1+0 process remains"
    );
    assert!(
        m.tape_mounts >= 2,
        "the 4+2 tape was ejected and a new one mounted for 1+0"
    );
}

#[test]
fn load_balancer_fires_on_imbalance() {
    let mut cfg = config(Policy::Vertical);
    cfg.scheduler.min_lb_interval_s = 60.0;
    cfg.scheduler.max_waiting_time_s = 1e9;
    cfg.scheduler.max_req_count = 1_000;
    cfg.scheduler.max_imbalance = 3.0;
    cfg.scheduler.max_light_load = 100;
    let sim = Sim::new(cfg, tiny_platform(2));
    // Eight 100 GB writes of 4+2 pile on one process (load 8), one 1+0 write has its own
    // (load 1): imbalance 7 > 3.
    let mut script: Vec<Request> = (0..8)
        .map(|i| write(&sim, 0.0, NEW + i, 100e9, S4_2, 2.0, 1.0))
        .collect();
    script.push(write(&sim, 0.0, NEW + 100, 1e9, S1_0, 2.0, 1.0));
    let (m, sim) = sim.with_script(script).run();
    assert_eq!(sim.lb_log[0].1, LbTrigger::Imbalance);
    assert_eq!(m.completed, 9);
}

#[test]
fn hetero_stores_small_files_with_vertical_and_large_with_parallel() {
    assert_eq!(Policy::Hetero.concrete(0.5e9, 1e9), Policy::Vertical);
    assert_eq!(Policy::Hetero.concrete(1e9, 1e9), Policy::Parallel);
    let cfg = config(Policy::Hetero);
    let sim = Sim::new(cfg, Platform::blue_waters());
    let script = vec![
        write(&sim, 0.0, NEW, 1e8, S4_2, 2.0, 1.0),
        write(&sim, 0.0, NEW + 1, 1e10, S4_2, 2.0, 1.0),
    ];
    let (_, sim) = sim.with_script(script).run();
    assert_eq!(sim.process_drives(0).len(), 1, "VERTICAL for 100 MB");
    assert_eq!(sim.process_drives(1).len(), 6, "PARALLEL 4+2 for 10 GB");
}

const SMALL_EXPERIMENT: &str = r#"
name = "archive-test"
title = "test"
sweep = "arrival_rate"
policies = ["rait", "vertical"]
size_class = "small"
size_min = "10MB"
size_max = "1GB"
arrival_rates_per_hour = [50.0, 200.0]
rait_block = "16MB"
seeds = [1, 2]
duration_days = 1
quick_duration_days = 0.25
"#;

fn csv_of(exp: &ExperimentToml) -> String {
    let points = exp.points(true);
    let metrics = exaraid_archive::experiment::run_points(&points);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.csv");
    write_csv(&path, &points, &metrics).unwrap();
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn same_seed_gives_an_identical_csv_with_the_exact_header() {
    let exp = ExperimentToml::parse(SMALL_EXPERIMENT).unwrap();
    let a = csv_of(&exp);
    let b = csv_of(&exp);
    assert_eq!(a, b);
    assert_eq!(a.lines().next().unwrap(), CSV_HEADER);
    assert_eq!(
        a.lines().count(),
        1 + 2 * 2,
        "quick: one seed, two rates, two policies"
    );
    let other =
        ExperimentToml::parse(&SMALL_EXPERIMENT.replace("seeds = [1, 2]", "seeds = [9]")).unwrap();
    assert_ne!(
        csv_of(&other),
        a,
        "a different seed gives different numbers"
    );
}

#[test]
fn bad_toml_says_which_key_and_what_is_expected() {
    let unknown = ExperimentToml::parse(&format!("{SMALL_EXPERIMENT}\nblock = 3\n")).unwrap_err();
    assert!(
        format!("{unknown:#}").contains("unknown field `block`"),
        "{unknown:#}"
    );
    let missing =
        ExperimentToml::parse(&SMALL_EXPERIMENT.replace("seeds = [1, 2]\n", "")).unwrap_err();
    assert!(
        format!("{missing:#}").contains("missing field `seeds`"),
        "{missing:#}"
    );
    let bad_size =
        ExperimentToml::parse(&SMALL_EXPERIMENT.replace("\"10MB\"", "\"10 parsecs\"")).unwrap_err();
    assert!(format!("{bad_size:#}").contains("size_min"), "{bad_size:#}");
    let bad_policy =
        ExperimentToml::parse(&SMALL_EXPERIMENT.replace("\"rait\",", "\"raid\",")).unwrap_err();
    assert!(format!("{bad_policy:#}").contains("raid"), "{bad_policy:#}");
    let no_rates = ExperimentToml::parse(
        &SMALL_EXPERIMENT.replace("arrival_rates_per_hour = [50.0, 200.0]", ""),
    )
    .unwrap_err();
    assert!(
        format!("{no_rates:#}").contains("arrival_rates_per_hour"),
        "{no_rates:#}"
    );
}

#[test]
fn main_scheduler_takes_the_drive_of_an_idle_process_of_another_type() {
    // One drive, held by an idle 4+2 process: a 1+0 request counts that drive as idle, the
    // idle process ends (its tape is ejected) and a 1+0 process is created on the drive.
    let sim = Sim::new(config(Policy::Vertical), tiny_platform(1));
    let script = vec![
        write(&sim, 0.0, NEW, 1e9, S4_2, 2.0, 1.0),
        write(&sim, 1_000.0, NEW + 1, 1e9, S1_0, 2.0, 1.0),
    ];
    let (m, sim) = sim.with_script(script).run();
    let d = sim.decisions.clone().unwrap();
    assert!(matches!(d[1].1, Decision::Created { .. }), "{d:?}");
    assert_eq!(m.reclaimed, 1);
    assert_eq!(m.delayed, 0);
    assert_eq!(sim.processes_alive(), 1);
}

#[test]
fn vertical_writes_its_pending_ec_when_its_process_ends() {
    // "End of data": the idle 4+1 VERTICAL process holds the EC of a partial group on the
    // mover's disk; when its drive is taken for another type, it first writes that EC on
    // its own tape, then ejects: 1 data tape + 1 EC tape + the new process's tape.
    let sim = Sim::new(config(Policy::Vertical), tiny_platform(1));
    let script = vec![
        write(&sim, 0.0, NEW, 1e9, S4_1, 2.0, 1.0),
        write(&sim, 1_000.0, NEW + 1, 1e9, S1_0, 2.0, 1.0),
    ];
    let (m, _) = sim.with_script(script).run();
    assert_eq!(m.reclaimed, 1);
    assert_eq!(m.tape_mounts, 3);
    // 1+0 keeps no EC: ending its process writes nothing more.
    let sim = Sim::new(config(Policy::Vertical), tiny_platform(1));
    let script = vec![
        write(&sim, 0.0, NEW, 1e9, S1_0, 2.0, 1.0),
        write(&sim, 1_000.0, NEW + 1, 1e9, S4_1, 2.0, 1.0),
    ];
    let (m, _) = sim.with_script(script).run();
    assert_eq!(m.tape_mounts, 2);
}
