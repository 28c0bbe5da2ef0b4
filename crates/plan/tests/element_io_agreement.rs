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
                    // What a reconstruct-write needs: the data it does not write (in
                    // elements, or in requests: one per column of a stripe, as the planner
                    // counts contiguous rows of an array code's column).
                    let g = code.geometry();
                    let written = writes(&mine);
                    let needed: Vec<(u64, usize)> = mine
                        .iter()
                        .filter(|a| a.2 == IoKind::Read)
                        .filter(|a| !written.iter().any(|w| w.0 == a.0 && w.1 == a.1))
                        .filter_map(|a| match a.1 {
                            ElementRef::Data(d) => Some((a.0, g.data_pos[d].col)),
                            ElementRef::Parity(_) => None,
                        })
                        .collect();
                    let columns: std::collections::BTreeSet<(u64, usize)> =
                        needed.iter().copied().collect();
                    assert!(
                        needed.len() < reads(&theirs) || columns.len() < reads(&theirs),
                        "{spec} start {start} len {len}: reconstruct-write chosen but not cheaper"
                    );
                    // A stripe it reads at all is read whole (every data and parity
                    // element), for the executor's check of the columns it encodes from
                    // (review s11r R11-9); a full-stripe write reads nothing.
                    let stripes: std::collections::BTreeSet<u64> = plan
                        .computes
                        .iter()
                        .filter(|c| c.method == ParityMethod::Encode)
                        .map(|c| c.stripe)
                        .collect();
                    for stripe in stripes {
                        let read: std::collections::BTreeSet<ElementRef> = mine
                            .iter()
                            .filter(|a| a.0 == stripe && a.2 == IoKind::Read)
                            .map(|a| a.1)
                            .collect();
                        let whole: std::collections::BTreeSet<ElementRef> = (0..g.data_count())
                            .map(ElementRef::Data)
                            .chain((0..g.parity_pos.len()).map(ElementRef::Parity))
                            .collect();
                        assert!(
                            read.is_empty() || read == whole,
                            "{spec} start {start} len {len} stripe {stripe}: a reconstruct-write reads the whole stripe or nothing: {read:?}"
                        );
                    }
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
