//! How fast the planner plans the seed's workload (512 OSSs, stripe width 512, stripe unit
//! 1 MiB, 128 KiB writes): plans per second for each strategy, RAID-5 and RAID-6 shapes.
//! Run: `cargo run --release -p exaraid-plan --example plan_rate`.

use exaraid_codes::{Cell, Geometry, Term};
use exaraid_plan::*;
use std::time::Instant;

fn shape(parities: usize, width: usize) -> Geometry {
    let k = width - parities;
    let mut cells: Vec<Cell> = (0..k).map(Cell::Data).collect();
    let mut terms = Vec::new();
    for p in 0..parities {
        cells.push(Cell::Parity(p));
        terms.push((0..k).map(|d| Term { data: d, coef: 1 }).collect());
    }
    Geometry::from_parts(1, width, cells, terms, parities)
}

fn main() {
    let mib = 1u64 << 20;
    let write_bytes = 128 * 1024;
    let clients = 8192u64;
    let writes_per_client = 8u64;
    for parities in [1usize, 2] {
        for kind in StrategyKind::ALL {
            let layout = if kind == StrategyKind::Raid0 {
                Layout::raid0(512, mib, 512).unwrap()
            } else {
                Layout::from_geometry(shape(parities, 512), "shape", mib, 512).unwrap()
            };
            let mut s = new_strategy(kind, layout, StrategyConfig::default()).unwrap();
            let apps = 64u64;
            let per_app = clients / apps;
            let start = Instant::now();
            let mut plans = 0u64;
            let mut steps = 0u64;
            let mut now = 0;
            for it in 0..writes_per_client {
                for app in 0..apps {
                    if kind == StrategyKind::Delayed {
                        s.on_hint(
                            &Hint::StartDelayed {
                                window: it * apps + app,
                                file: app,
                            },
                            now,
                        )
                        .unwrap();
                    }
                    for c in 0..per_app {
                        now += 1;
                        let offset = (it * per_app + c) * write_bytes;
                        let w = ClientWrite {
                            client: app * per_app + c,
                            app,
                            file: app,
                            offset_bytes: offset,
                            len_bytes: write_bytes,
                        };
                        for p in s.on_write(&w, now).unwrap() {
                            plans += 1;
                            steps += p.steps.len() as u64;
                            s.on_complete(p.id).unwrap();
                        }
                    }
                    if kind == StrategyKind::Delayed {
                        for p in s
                            .on_hint(
                                &Hint::EndDelayed {
                                    window: it * apps + app,
                                },
                                now,
                            )
                            .unwrap()
                        {
                            plans += 1;
                            steps += p.steps.len() as u64;
                            s.on_complete(p.id).unwrap();
                        }
                    }
                }
            }
            let secs = start.elapsed().as_secs_f64();
            let writes = clients * writes_per_client;
            println!(
                "raid{} {:8} {:>8} writes {:>8} plans {:>9} steps {:>8.3} s  {:>10.0} writes/s",
                if parities == 1 { 5 } else { 6 },
                kind.name(),
                writes,
                plans,
                steps,
                secs,
                writes as f64 / secs
            );
        }
    }
}
