//! Element accesses and the load evaluation on small hand-built geometries, where every
//! expected number can be checked by hand. (Tests on the real array codes are in
//! loads_codes.rs.)

use exaraid_codes::{Cell, Geometry, Term};
use exaraid_plan::element_io::{
    accesses_per_column, read_run, write_elements, write_run, ElementRef, IoKind, RunError,
};
use exaraid_plan::loads::{
    evaluate, evaluate_with, format_trace, generate, parse_trace, CostModel, DiskLoads, LoadsError,
    Op, TraceError, Tuple, Workload, WorkloadShape,
};

/// One row: `k` data columns then one XOR parity column over all of them (RAID-5 shape).
fn raid5_like(k: usize) -> Geometry {
    let mut cells: Vec<Cell> = (0..k).map(Cell::Data).collect();
    cells.push(Cell::Parity(0));
    let terms = vec![(0..k).map(|data| Term { data, coef: 1 }).collect()];
    Geometry::from_parts(1, k + 1, cells, terms, 1)
}

/// One row: `k` data columns, then P and Q each over all data (RAID-6 shape).
fn raid6_like(k: usize) -> Geometry {
    let mut cells: Vec<Cell> = (0..k).map(Cell::Data).collect();
    cells.push(Cell::Parity(0));
    cells.push(Cell::Parity(1));
    let all: Vec<Term> = (0..k).map(|data| Term { data, coef: 1 }).collect();
    Geometry::from_parts(1, k + 2, cells, vec![all.clone(), all], 2)
}

fn read(start: u64, length: u64, times: u64) -> Tuple {
    Tuple {
        op: Op::Read,
        start,
        length,
        times,
    }
}

fn write(start: u64, length: u64, times: u64) -> Tuple {
    Tuple {
        op: Op::Write,
        start,
        length,
        times,
    }
}

#[test]
fn one_element_write_on_raid5_shape_reads_and_writes_data_and_parity_once() {
    let g = raid5_like(3);
    let accesses = write_run(&g, 1, 1).unwrap();
    // The classic small write: read old D1, read old P, write D1, write P.
    let summary: Vec<(ElementRef, IoKind, usize)> = accesses
        .iter()
        .map(|a| (a.element, a.kind, a.pos.col))
        .collect();
    assert_eq!(
        summary,
        vec![
            (ElementRef::Data(1), IoKind::Read, 1),
            (ElementRef::Parity(0), IoKind::Read, 3),
            (ElementRef::Data(1), IoKind::Write, 1),
            (ElementRef::Parity(0), IoKind::Write, 3),
        ]
    );
    assert_eq!(accesses_per_column(g.cols, &accesses), vec![0, 2, 0, 2]);
}

#[test]
fn one_element_write_on_raid6_shape_costs_two_plus_two_per_parity() {
    let g = raid6_like(4);
    let accesses = write_run(&g, 0, 1).unwrap();
    assert_eq!(accesses.len(), 2 + 2 * 2);
    assert_eq!(
        accesses_per_column(g.cols, &accesses),
        vec![2, 0, 0, 0, 2, 2]
    );
}

#[test]
fn a_parity_shared_by_several_written_elements_is_read_and_written_once() {
    let g = raid5_like(3);
    let accesses = write_run(&g, 0, 3).unwrap();
    // 3 data read + 3 data written + parity read once + written once.
    assert_eq!(accesses.len(), 2 * 3 + 2);
    assert_eq!(accesses_per_column(g.cols, &accesses), vec![2, 2, 2, 2]);
    // Reads all come before writes: the dependency order of read-modify-write.
    let first_write = accesses
        .iter()
        .position(|a| a.kind == IoKind::Write)
        .unwrap();
    assert!(accesses[first_write..]
        .iter()
        .all(|a| a.kind == IoKind::Write));
}

#[test]
fn a_run_past_the_stripe_end_continues_in_the_next_stripe_with_its_own_parity() {
    let g = raid5_like(3);
    // Addresses 2, 3: data 2 of stripe 0, then data 0 of stripe 1.
    let accesses = write_run(&g, 2, 2).unwrap();
    let stripes_of_parity: Vec<u64> = accesses
        .iter()
        .filter(|a| a.kind == IoKind::Write && matches!(a.element, ElementRef::Parity(_)))
        .map(|a| a.stripe)
        .collect();
    assert_eq!(
        stripes_of_parity,
        vec![0, 1],
        "each stripe's parity is updated once"
    );
    assert_eq!(accesses.len(), 2 * 2 + 2 * 2);
    assert_eq!(accesses_per_column(g.cols, &accesses), vec![2, 0, 2, 4]);
    // Large addresses land in later stripes, same columns.
    let far = read_run(&g, 3 * 1000 + 1, 1).unwrap();
    assert_eq!(
        (far[0].stripe, far[0].element, far[0].pos.col),
        (1000, ElementRef::Data(1), 1)
    );
}

#[test]
fn reads_touch_only_the_data_elements_of_the_run() {
    let g = raid6_like(4);
    let accesses = read_run(&g, 2, 5).unwrap();
    assert_eq!(accesses.len(), 5);
    assert!(accesses
        .iter()
        .all(|a| a.kind == IoKind::Read && matches!(a.element, ElementRef::Data(_))));
    assert_eq!(
        accesses_per_column(g.cols, &accesses),
        vec![1, 1, 2, 1, 0, 0]
    );
}

#[test]
fn bad_runs_are_errors_not_panics() {
    let g = raid5_like(3);
    assert_eq!(read_run(&g, 0, 0), Err(RunError::EmptyRun));
    assert!(matches!(
        write_run(&g, 0, u64::MAX),
        Err(RunError::RunTooLong { .. })
    ));
    assert!(matches!(
        read_run(&g, u64::MAX, 2),
        Err(RunError::AddressOverflow { .. })
    ));
    let err = evaluate(&g, &[write(0, 0, 1)]).unwrap_err();
    assert!(matches!(err, LoadsError::BadRun { index: 0, .. }), "{err}");
    assert_eq!(evaluate(&g, &[]), Err(LoadsError::EmptyWorkload));
}

#[test]
fn lf_is_one_when_every_disk_gets_the_same_accesses() {
    // Full-stripe reads on an all-data grid: every disk is read once per operation.
    let cells: Vec<Cell> = (0..8).map(Cell::Data).collect();
    let g = Geometry::from_parts(2, 4, cells, vec![], 0);
    let loads = evaluate(&g, &[read(0, 8, 7), read(3, 4, 2)]).unwrap();
    // 2 elements per column x 7, then 1 per column x 2.
    assert_eq!(loads.per_disk, vec![16, 16, 16, 16]);
    assert_eq!(loads.lf(), Some(1.0));
    assert_eq!(loads.cost(), 64);
}

#[test]
fn lf_is_infinite_when_a_disk_gets_no_access() {
    // Reads never touch the parity disk of a RAID-5 shape.
    let loads = evaluate(&raid5_like(3), &[read(0, 3, 10)]).unwrap();
    assert_eq!(loads.per_disk, vec![10, 10, 10, 0]);
    assert_eq!(loads.lf(), None);
    assert_eq!(loads.cost(), 30);
}

#[test]
fn times_multiplies_every_access_and_lf_is_lmax_over_lmin() {
    let g = raid5_like(3);
    let loads = evaluate(&g, &[write(0, 1, 5), read(1, 2, 3)]).unwrap();
    // write D0 x5: col0 += 2*5, parity += 2*5; read D1, D2 x3.
    assert_eq!(loads.per_disk, vec![10, 3, 3, 10]);
    assert_eq!(loads.cost(), 26);
    assert_eq!((loads.lmax(), loads.lmin()), (10, 3));
    assert_eq!(loads.lf(), Some(10.0 / 3.0));
    let manual = DiskLoads {
        per_disk: vec![4, 2],
    };
    assert_eq!(manual.lf(), Some(2.0));
}

#[test]
fn the_same_seed_gives_the_same_workload_and_another_seed_another() {
    let shape = WorkloadShape::default();
    let a = generate(Workload::Mixed, 35, 42, shape).unwrap();
    let b = generate(Workload::Mixed, 35, 42, shape).unwrap();
    let c = generate(Workload::Mixed, 35, 43, shape).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    let g = raid6_like(35);
    assert_eq!(evaluate(&g, &a).unwrap(), evaluate(&g, &b).unwrap());
}

#[test]
fn generated_workloads_follow_the_paper_ranges_and_exact_ratios() {
    let shape = WorkloadShape::default();
    for (workload, writes) in [
        (Workload::ReadOnly, 0),
        (Workload::ReadIntensive, 600),
        (Workload::Mixed, 1000),
    ] {
        let tuples = generate(workload, 35, 7, shape).unwrap();
        assert_eq!(tuples.len(), 2000);
        assert_eq!(
            tuples.iter().filter(|t| t.op == Op::Write).count(),
            writes,
            "{workload:?}"
        );
        assert!(tuples.iter().all(|t| t.start < 35
            && (1..=20).contains(&t.length)
            && (1..=1000).contains(&t.times)));
        // The ranges are used in full, not a corner of them.
        assert!(tuples.iter().any(|t| t.length == 20) && tuples.iter().any(|t| t.length == 1));
        assert!(tuples.iter().any(|t| t.start == 34) && tuples.iter().any(|t| t.start == 0));
        assert!(tuples.iter().any(|t| t.times > 950) && tuples.iter().any(|t| t.times < 50));
    }
    assert_eq!(
        generate(Workload::Trace, 35, 7, shape),
        Err(LoadsError::TraceNotGenerated)
    );
    let too_many = WorkloadShape { tuples: 0, ..shape };
    assert!(matches!(
        generate(Workload::Mixed, 35, 7, too_many),
        Err(LoadsError::OutOfRange { .. })
    ));
}

#[test]
fn every_code_sees_the_same_lengths_times_and_ops_whatever_its_stripe_size() {
    let shape = WorkloadShape::default();
    let small = generate(Workload::ReadIntensive, 15, 9, shape).unwrap();
    let large = generate(Workload::ReadIntensive, 143, 9, shape).unwrap();
    let strip = |ts: &[Tuple]| {
        ts.iter()
            .map(|t| (t.op, t.length, t.times))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&small), strip(&large));
}

#[test]
fn a_trace_round_trips_and_skips_blank_and_comment_lines() {
    let text = "op,start,length,times\n# a comment\nread,0,4,5\n\n write , 17 , 20 , 1000 \n";
    let tuples = parse_trace(text).unwrap();
    assert_eq!(tuples, vec![read(0, 4, 5), write(17, 20, 1000)]);
    assert_eq!(parse_trace(&format_trace(&tuples)).unwrap(), tuples);
}

#[test]
fn trace_errors_name_the_line_and_what_is_wrong() {
    let cases: [(&str, TraceError); 8] = [
        ("", TraceError::Empty),
        (
            "op,start,len,times\nread,0,1,1\n",
            TraceError::BadHeader {
                got: "op,start,len,times".into(),
            },
        ),
        ("op,start,length,times\n", TraceError::NoOperations),
        (
            "op,start,length,times\nread,0,1\n",
            TraceError::FieldCount { line: 2, found: 3 },
        ),
        (
            "op,start,length,times\nread,0,1,1\nerase,0,1,1\n",
            TraceError::BadOp {
                line: 3,
                got: "erase".into(),
            },
        ),
        (
            "op,start,length,times\nread,-1,1,1\n",
            TraceError::BadNumber {
                line: 2,
                field: "start",
                got: "-1".into(),
                min: 0,
                max: u64::MAX - 65_536,
            },
        ),
        (
            "op,start,length,times\nread,0,0,1\n",
            TraceError::BadNumber {
                line: 2,
                field: "length",
                got: "0".into(),
                min: 1,
                max: 65_536,
            },
        ),
        (
            "op,start,length,times\n\nwrite,0,3,many\n",
            TraceError::BadNumber {
                line: 3,
                field: "times",
                got: "many".into(),
                min: 1,
                max: 1_000_000_000,
            },
        ),
    ];
    for (text, want) in cases {
        assert_eq!(parse_trace(text), Err(want.clone()), "trace {text:?}");
    }
    let message = parse_trace("op,start,length,times\nread,0,1,1\nread,x,1,1\n")
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("line 3") && message.contains("start") && message.contains("'x'"),
        "{message}"
    );
}

#[test]
fn counting_elements_touched_halves_writes_and_leaves_reads_alone() {
    let g = raid5_like(3);
    let elements =
        |tuples: &[Tuple]| evaluate_with(&g, tuples, CostModel::ElementsTouched).unwrap();
    // A 2-element write touches D0, D1 and P once each.
    assert_eq!(elements(&[write(0, 2, 1)]).per_disk, vec![1, 1, 0, 1]);
    assert_eq!(
        evaluate(&g, &[write(0, 2, 1)]).unwrap().per_disk,
        vec![2, 2, 0, 2]
    );
    assert_eq!(
        elements(&[read(0, 3, 4)]),
        evaluate(&g, &[read(0, 3, 4)]).unwrap()
    );
    let mixed = generate(
        Workload::Mixed,
        3,
        1,
        WorkloadShape {
            tuples: 100,
            ..WorkloadShape::default()
        },
    )
    .unwrap();
    let writes: Vec<Tuple> = mixed
        .iter()
        .copied()
        .filter(|t| t.op == Op::Write)
        .collect();
    let doubled: Vec<u64> = elements(&writes).per_disk.iter().map(|n| 2 * n).collect();
    assert_eq!(evaluate(&g, &writes).unwrap().per_disk, doubled);
}

#[test]
fn any_set_of_elements_can_be_planned_not_only_a_run() {
    let g = raid6_like(4);
    // D0 and D3 of stripe 5, D1 of stripe 6: P and Q of each stripe, once each.
    let accesses = write_elements(&g, &[(5, 0), (5, 3), (6, 1)]);
    assert_eq!(accesses.len(), 2 * 3 + 2 * 4);
    assert_eq!(
        accesses_per_column(g.cols, &accesses),
        vec![2, 2, 0, 2, 4, 4]
    );
    assert_eq!(
        write_run(&g, 4 * 5 + 3, 2).unwrap(),
        write_elements(&g, &[(5, 3), (6, 0)])
    );
}
