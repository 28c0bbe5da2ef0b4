//! `exaraid store bench --json` is read by scripts (run.sh, the results' summaries): a change
//! to how the bench measures must keep every key of its report.

use crate::common;
use common::*;

use std::collections::BTreeSet;

use serde_json::Value;

const SPREAD: &[&str] = &["max", "median", "min"];
const OPS: &[&str] = &[
    "cache_read",
    "cache_write",
    "data_read",
    "data_write",
    "parity_read",
    "parity_write",
];
/// Device reads outside the plans' steps, per OSS (`unplanned_per_oss[]`, session 51).
const UNPLANNED: &[&str] = &[
    "edge_check_read",
    "page_cut_read",
    "window_old_read",
    "witness_piece_read",
];
/// A write path's result (`results[]`, `streaming[]`).
const PATH_RESULT: &[&str] = &[
    "bytes",
    "code",
    "model_bound_all_s",
    "model_bound_foreground_s",
    "ops_match_planner",
    "ops_per_oss",
    "path",
    "planner_ops_per_oss",
    "throughput_mib_s",
    "time",
    "total_s",
    "unplanned_per_oss",
    "write_phase_s",
    "writes_acked_s",
];
const TIME: &[&str] = &[
    "backend_sync_s",
    "backend_syncs",
    "core_lock_wait_s",
    "device_busy_s",
    "device_queue_s",
    "dir_fsyncs",
    "execute_s",
    "extents_s",
    "extents_writes",
    "healthy_calls",
    "home_witness_check_s",
    "home_witness_checked_pieces",
    "home_witness_checked_steps",
    "home_witness_piece_reads",
    "journal_durable_s",
    "journal_fsyncs",
    "journal_mark_fsyncs",
    "plans",
    "stripe_lock_wait_s",
    "zone_fsync_s",
    "zone_fsyncs",
];

/// The report's keys at each path (`[]`: every element of an array), as scripts read them.
const KEYS: &[(&str, &[&str])] = &[
    (".", &["ratios", "repetitions", "runs", "throughput"]),
    (
        ".ratios[]",
        &[
            "code",
            "goal",
            "met_runs",
            "model_bound_all",
            "model_bound_foreground",
            "spread",
            "values",
            "what",
        ],
    ),
    (".ratios[].spread", SPREAD),
    (
        ".throughput[]",
        &["code", "path", "spread_mib_s", "values_mib_s"],
    ),
    (".throughput[].spread_mib_s", SPREAD),
    (
        ".runs[]",
        &[
            "destage_defer_max_bytes",
            "element_bytes",
            "emulate",
            "fsync",
            "ratios",
            "raw",
            "results",
            "streaming",
            "threads",
            "write_bytes",
            "workload",
            "writes_per_thread",
        ],
    ),
    (".runs[].results[]", PATH_RESULT),
    (".runs[].results[].ops_per_oss[]", OPS),
    (".runs[].results[].planner_ops_per_oss[]", OPS),
    (".runs[].results[].time", TIME),
    (".runs[].results[].unplanned_per_oss[]", UNPLANNED),
    (
        ".runs[].raw[]",
        &[
            "bytes",
            "code",
            "model_bound_s",
            "oss",
            "seconds",
            "throughput_mib_s",
            "write_bytes",
        ],
    ),
    (".runs[].streaming[]", PATH_RESULT),
    (".runs[].streaming[].ops_per_oss[]", OPS),
    (".runs[].streaming[].planner_ops_per_oss[]", OPS),
    (".runs[].streaming[].time", TIME),
    (".runs[].streaming[].unplanned_per_oss[]", UNPLANNED),
    (
        ".runs[].ratios[]",
        &[
            "code",
            "goal",
            "met",
            "model_bound_all",
            "model_bound_foreground",
            "value",
            "what",
        ],
    ),
];

/// Every object at `path` below `v` (arrays entered by `[]` steps).
fn at<'a>(v: &'a Value, path: &str) -> Vec<&'a Value> {
    let mut found = vec![v];
    for step in path
        .trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
    {
        let (key, each) = match step.strip_suffix("[]") {
            Some(key) => (key, true),
            None => (step, false),
        };
        found = found
            .into_iter()
            .map(|o| &o[key])
            .flat_map(|o| {
                if each {
                    o.as_array().unwrap().iter().collect()
                } else {
                    vec![o]
                }
            })
            .collect();
    }
    found
}

#[test]
fn quick_bench_json_has_every_key_of_its_report() {
    let tmp = fast_tempdir("bench-json");
    let dir = tmp.path().join("d");
    let out = ok(
        &[
            "store",
            "bench",
            "--quick",
            "--threads",
            "1",
            "--repeat",
            "1",
            "--no-fsync",
            "--json",
            "--dir",
            s(&dir),
        ],
        b"",
    );
    let report: Value = serde_json::from_slice(&out).expect("the report is JSON");
    assert_eq!(
        report["runs"][0]["workload"], "fresh",
        "the default workload"
    );
    for (path, keys) in KEYS {
        let objects = at(&report, path);
        assert!(!objects.is_empty(), "{path}: nothing there");
        for o in objects {
            let got: BTreeSet<&str> = o.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            let want: BTreeSet<&str> = keys.iter().copied().collect();
            assert_eq!(got, want, "{path}: the keys of the report");
        }
    }
    // Both codes' raw runs: the seed's 128 KiB writes and stripe-unit writes.
    let raw = at(&report, ".runs[].raw[]");
    assert_eq!(raw.len(), 4, "{raw:?}");
    for r in raw {
        assert!(
            r["bytes"].as_u64().unwrap() > 0 && r["seconds"].as_f64().unwrap() > 0.0,
            "{r}"
        );
    }
}

/// `store bench --workload overwrite --quick` (session 49, s49c): an untimed first pass
/// writes the seed's regions, the timed pass rewrites half of every earlier write. What must
/// hold: its report has the same keys where it has anything (scripts read both workloads),
/// names its workload, reports every write path on both codes (no raw, streaming or goals:
/// those are the seed's workload's), every path's operations equal the planner's for the
/// timed pass, and on rmw and delayed (home writes before the window) the timed writes ran
/// s45c's read-step check past its early return: every overwrite's read step overlapped
/// witness pieces (`home_witness_checked_steps`), its two mid-block edges read again from
/// disk. Why: the overwrite workload exists to measure that check (review r45c MEDIUM); a
/// workload that stopped reaching it would measure nothing and still look fine.
#[test]
fn quick_bench_overwrite_workload_reports_its_op_counts_and_reaches_the_home_witness_check() {
    let tmp = fast_tempdir("bench-overwrite");
    let dir = tmp.path().join("d");
    let args = |json: bool| -> Vec<String> {
        let mut a: Vec<String> = [
            "store",
            "bench",
            "--quick",
            "--workload",
            "overwrite",
            "--threads",
            "2",
            "--writes-per-thread",
            "4",
            "--repeat",
            "1",
            "--no-fsync",
            "--dir",
            s(&dir),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        if json {
            a.push("--json".to_string());
        }
        a
    };
    let argv: Vec<String> = args(true);
    let out = ok(&argv.iter().map(|a| a.as_str()).collect::<Vec<_>>(), b"");
    let report: Value = serde_json::from_slice(&out).expect("the report is JSON");
    let run = &report["runs"][0];
    assert_eq!(run["workload"], "overwrite");
    for (path, keys) in KEYS {
        for o in at(&report, path) {
            let got: BTreeSet<&str> = o.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            let want: BTreeSet<&str> = keys.iter().copied().collect();
            assert_eq!(got, want, "{path}: the keys of the report");
        }
    }
    for empty in ["raw", "streaming", "ratios"] {
        assert_eq!(run[empty].as_array().unwrap().len(), 0, "{empty}: {run}");
    }
    let results = run["results"].as_array().unwrap();
    let names: Vec<String> = (results.iter())
        .map(|r| {
            format!(
                "{} {}",
                r["code"].as_str().unwrap(),
                r["path"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(names.len(), 8, "2 codes x 4 paths: {names:?}");
    // 2 threads x 4 overwrites of 64 KiB (half of each 128 KiB write).
    let overwrites = 2 * 4;
    for r in results {
        let what = format!("{} {}", r["code"], r["path"]);
        assert_eq!(
            r["bytes"].as_u64().unwrap(),
            overwrites * (64 << 10),
            "{what}"
        );
        // Every path, delayed too: the store's operations are the planner's. A delayed
        // window's move home reads each home block it rewrites in part (both edges of every
        // overwrite here) as steps of its plan (task s50c; before, outside it).
        assert_eq!(
            r["ops_per_oss"], r["planner_ops_per_oss"],
            "{what}: store vs planner"
        );
        assert_eq!(r["ops_match_planner"], true, "{what}");
        if r["path"] == "delayed" {
            let data_reads: u64 = (r["planner_ops_per_oss"].as_array().unwrap().iter())
                .map(|o| o["data_read"].as_u64().unwrap())
                .sum();
            assert!(
                data_reads >= 2 * overwrites,
                "{what}: the move's two edge block reads per overwrite are the plan's: {data_reads}"
            );
        }
        let ops: u64 = (r["ops_per_oss"].as_array().unwrap().iter())
            .flat_map(|o| o.as_object().unwrap().values())
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert!(ops >= overwrites, "{what}: the timed pass did I/O: {ops}");
        let checked = r["time"]["home_witness_checked_steps"].as_u64().unwrap();
        let reread = r["time"]["home_witness_piece_reads"].as_u64().unwrap();
        // The reads outside the plans (session 51): s45c's re-reads are among them, one
        // per re-read the probe counts (every re-read of this workload reaches the OSS).
        let unplanned = |k: &str| -> u64 {
            (r["unplanned_per_oss"].as_array().unwrap().iter())
                .map(|o| o[k].as_u64().unwrap())
                .sum()
        };
        assert_eq!(
            unplanned("witness_piece_read"),
            reread,
            "{what}: s45c's re-reads"
        );
        if r["path"] == "rmw" {
            // Each overwrite reads its old home bytes in one step (64 KiB in one element).
            assert_eq!(
                checked, overwrites,
                "{what}: every overwrite's read step checked"
            );
            assert_eq!(
                reread,
                2 * overwrites,
                "{what}: both mid-block edges read again"
            );
        }
        if r["path"] == "wcl" || r["path"] == "raid0" {
            assert_eq!(checked, 0, "{what}: no home witness there");
        }
    }
    // The text report says the same.
    let argv: Vec<String> = args(false);
    let text = String::from_utf8(ok(
        &argv.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
        b"",
    ))
    .unwrap();
    assert!(text.contains("(overwrite workload)"), "{text}");
    assert!(
        text.contains("home witness read-step checks: 8 steps"),
        "{text}"
    );
}
