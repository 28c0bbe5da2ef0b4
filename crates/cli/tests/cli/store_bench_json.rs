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
            "writes_per_thread",
        ],
    ),
    (".runs[].results[]", PATH_RESULT),
    (".runs[].results[].ops_per_oss[]", OPS),
    (".runs[].results[].planner_ops_per_oss[]", OPS),
    (".runs[].results[].time", TIME),
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
