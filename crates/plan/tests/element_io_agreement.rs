//! STD-RAID's plans agree with engineer "loads"' element-level model (`element_io`) for
//! every code: when the planner chooses read-modify-write, it touches exactly the elements
//! `element_io::write_run` lists, each once per direction; when it chooses reconstruct-write
//! it writes the same elements and reads strictly fewer.

use exaraid_codes::{Cell, Code, CodeKind, CodeSpec};
use exaraid_plan::element_io::{write_run, ElementRef, IoKind};
use exaraid_plan::*;

fn specs() -> Vec<CodeSpec> {
    let mut v = vec![
        CodeSpec::raid5(4),
        CodeSpec::raid6(4),
        CodeSpec::rs(4, 2),
        CodeSpec::raid5(2),
    ];
    for kind in CodeKind::ALL.into_iter().filter(|k| k.is_array()) {
        for p in [5, 7] {
            v.push(CodeSpec::array(kind, p));
        }
    }
    v
}

#[test]
fn std_raid_element_accesses_match_element_io() {
    let e = 16u64;
    let mut rmw_cases = 0;
    let mut rcw_cases = 0;
    for spec in specs() {
        let Ok(code) = Code::new(spec) else { continue };
        let width = code.geometry().cols;
        let layout = Layout::new(&code, e, width).unwrap();
        let n = layout.data_per_stripe() as u64;
        for start in 0..2 * n {
            for len in 1..=6u64 {
                let mut s =
                    new_strategy(StrategyKind::Rmw, layout.clone(), StrategyConfig::default())
                        .unwrap();
                let w = ClientWrite {
                    client: 0,
                    app: 0,
                    file: 0,
                    offset_bytes: start * e,
                    len_bytes: len * e,
                };
                let plan = s.on_write(&w, 0).unwrap().remove(0);
                let mut mine: Vec<(u64, ElementRef, IoKind)> = Vec::new();
                for step in &plan.steps {
                    for piece in &step.pieces {
                        assert_eq!(
                            piece.element.len_bytes, e,
                            "whole elements in, whole elements out"
                        );
                        let el = match piece.element.cell {
                            Cell::Data(d) => ElementRef::Data(d),
                            Cell::Parity(p) => ElementRef::Parity(p),
                            Cell::Empty => panic!("empty cell accessed"),
                        };
                        let kind = if step.op == Op::Read {
                            IoKind::Read
                        } else {
                            IoKind::Write
                        };
                        mine.push((piece.element.stripe, el, kind));
                    }
                }
                let mut theirs: Vec<(u64, ElementRef, IoKind)> =
                    write_run(code.geometry(), start, len)
                        .unwrap()
                        .into_iter()
                        .map(|a| (a.stripe, a.element, a.kind))
                        .collect();
                mine.sort();
                theirs.sort();
                let writes = |v: &[(u64, ElementRef, IoKind)]| {
                    v.iter()
                        .filter(|a| a.2 == IoKind::Write)
                        .copied()
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    writes(&mine),
                    writes(&theirs),
                    "{spec} start {start} len {len}: written elements differ"
                );
                let reconstruct = plan
                    .computes
                    .iter()
                    .any(|c| c.method == ParityMethod::Encode);
                if reconstruct {
                    rcw_cases += 1;
                    let reads = |v: &[(u64, ElementRef, IoKind)]| {
                        v.iter().filter(|a| a.2 == IoKind::Read).count()
                    };
                    assert!(
                        reads(&mine) < reads(&theirs)
                            || plan.op_counts().data_read + plan.op_counts().parity_read
                                < reads(&theirs) as u64,
                        "{spec} start {start} len {len}: reconstruct-write chosen but not cheaper"
                    );
                } else {
                    rmw_cases += 1;
                    assert_eq!(
                        mine, theirs,
                        "{spec} start {start} len {len}: read-modify-write accesses differ"
                    );
                }
            }
        }
    }
    assert!(
        rmw_cases > 100 && rcw_cases > 10,
        "both paths exercised: {rmw_cases} RMW, {rcw_cases} RCW"
    );
}
