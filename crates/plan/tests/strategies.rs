//! The planner's plans, executed on real bytes by a tiny in-memory executor, keep every
//! stripe's parity consistent and every byte readable: the specification both executors
//! (store and simulator) rely on.
//!
//! The executor runs each plan's steps in order (dependencies always point backwards),
//! computes each `ParityCompute` as `base ^ sum coef * (new ^ old)`, and fills never-written
//! cache bytes with 0xA5 so that a plan reading cache bytes it should treat as zero would
//! corrupt the parity and fail the test.

use exaraid_codes::{gf256, Cell, Code, CodeKind, CodeSpec, Geometry, Pos, Term};
use exaraid_plan::*;
use proptest::prelude::{prop, prop_assert, prop_assert_eq, proptest, ProptestConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Object {
    Home(FileId),
    Cache,
}

/// Every OSS's objects as byte vectors.
#[derive(Default)]
struct Memory {
    objects: HashMap<(usize, Object), Vec<u8>>,
}

impl Memory {
    fn object(&mut self, oss: usize, zone: Zone, file: FileId) -> &mut Vec<u8> {
        let key = match zone {
            Zone::Data | Zone::Parity => (oss, Object::Home(file)),
            Zone::Cache => (oss, Object::Cache),
        };
        self.objects.entry(key).or_default()
    }

    fn read(&mut self, oss: usize, zone: Zone, file: FileId, addr: u64, len: u64) -> Vec<u8> {
        let fill = if zone == Zone::Cache { 0xA5 } else { 0 };
        let obj = self.object(oss, zone, file);
        let end = (addr + len) as usize;
        if obj.len() < end {
            obj.resize(end, fill);
        }
        obj[addr as usize..end].to_vec()
    }

    fn write(&mut self, oss: usize, zone: Zone, file: FileId, addr: u64, bytes: &[u8]) {
        let fill = if zone == Zone::Cache { 0xA5 } else { 0 };
        let obj = self.object(oss, zone, file);
        let end = addr as usize + bytes.len();
        if obj.len() < end {
            obj.resize(end, fill);
        }
        obj[addr as usize..end].copy_from_slice(bytes);
    }
}

fn bytes_of(
    src: Bytes,
    len: u64,
    client: &[u8],
    client_offset: u64,
    reads: &[Option<Vec<u8>>],
    computed: &[Vec<u8>],
) -> Vec<u8> {
    let len = len as usize;
    match src {
        Bytes::Zero => vec![0; len],
        Bytes::Client { file_offset_bytes } => {
            let at = (file_offset_bytes - client_offset) as usize;
            client[at..at + len].to_vec()
        }
        Bytes::Read { step, offset_bytes } => {
            let r = reads[step].as_ref().expect("read before use");
            r[offset_bytes as usize..offset_bytes as usize + len].to_vec()
        }
        Bytes::Computed {
            compute,
            offset_bytes,
        } => computed[compute][offset_bytes as usize..offset_bytes as usize + len].to_vec(),
    }
}

/// Execute one plan. `client` is the write's buffer (empty for plans without client data).
fn execute(mem: &mut Memory, plan: &IoPlan, client: &[u8], client_offset: u64) {
    plan.validate().unwrap();
    let mut reads: Vec<Option<Vec<u8>>> = vec![None; plan.steps.len()];
    let mut computed: Vec<Vec<u8>> = Vec::new();
    // Computes only read steps; evaluate each when first needed (all its reads are done
    // because the writing step depends on them and steps run in order).
    let mut done: Vec<Option<Vec<u8>>> = vec![None; plan.computes.len()];
    for (i, step) in plan.steps.iter().enumerate() {
        match step.op {
            Op::Read => {
                reads[i] = Some(mem.read(
                    step.oss,
                    step.zone,
                    step.file,
                    step.addr_bytes,
                    step.len_bytes,
                ))
            }
            Op::Write => {
                let mut buf = Vec::with_capacity(step.len_bytes as usize);
                for piece in &step.pieces {
                    let src = piece.source.unwrap();
                    if let Bytes::Computed { compute, .. } = src {
                        if done[compute].is_none() {
                            let c = &plan.computes[compute];
                            let mut out = bytes_of(
                                c.base,
                                c.len_bytes,
                                client,
                                client_offset,
                                &reads,
                                &computed,
                            );
                            for t in &c.terms {
                                let new = bytes_of(
                                    t.new,
                                    c.len_bytes,
                                    client,
                                    client_offset,
                                    &reads,
                                    &computed,
                                );
                                let old = bytes_of(
                                    t.old,
                                    c.len_bytes,
                                    client,
                                    client_offset,
                                    &reads,
                                    &computed,
                                );
                                for j in 0..out.len() {
                                    out[j] ^= gf256::mul(t.coef, new[j] ^ old[j]);
                                }
                            }
                            done[compute] = Some(out);
                        }
                        computed = done.iter().map(|d| d.clone().unwrap_or_default()).collect();
                    }
                    buf.extend(bytes_of(
                        src,
                        piece.element.len_bytes,
                        client,
                        client_offset,
                        &reads,
                        &computed,
                    ));
                }
                mem.write(step.oss, step.zone, step.file, step.addr_bytes, &buf);
            }
        }
    }
}

/// Every home stripe of `file` up to `stripes` satisfies its parity equations.
fn check_home_parity(mem: &mut Memory, layout: &Layout, file: FileId, stripes: u64) {
    let g = layout.geometry();
    let e = layout.element_bytes();
    for s in 0..stripes {
        let elem = |mem: &mut Memory, pos: Pos, zone: Zone| {
            mem.read(
                layout.oss_of(file, s, pos.col),
                zone,
                file,
                layout.home_addr(s, pos, 0),
                e,
            )
        };
        for (p, terms) in g.parity_terms.iter().enumerate() {
            let mut want = vec![0u8; e as usize];
            for t in terms {
                let d = elem(mem, g.data_pos[t.data], Zone::Data);
                for j in 0..want.len() {
                    want[j] ^= gf256::mul(t.coef, d[j]);
                }
            }
            let got = elem(mem, g.parity_pos[p], Zone::Parity);
            assert_eq!(got, want, "file {file} stripe {s} parity {p} inconsistent");
        }
    }
}

/// Read through the strategy's lookup.
fn read_file(mem: &mut Memory, s: &dyn exaraid_plan::Strategy, file: FileId, len: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    for ext in s.lookup(file, 0, len).unwrap() {
        assert_eq!(
            ext.file_offset_bytes, at,
            "lookup extents are in file order without gaps"
        );
        out.extend(mem.read(ext.oss, ext.zone, file, ext.addr_bytes, ext.len_bytes));
        at += ext.len_bytes;
    }
    assert_eq!(at, len);
    out
}

fn layouts() -> Vec<Layout> {
    let e = 64;
    let mut v = vec![
        Layout::new(&Code::new(CodeSpec::raid5(3)).unwrap(), e, 4).unwrap(),
        Layout::new(&Code::new(CodeSpec::raid6(4)).unwrap(), e, 8).unwrap(),
        Layout::new(&Code::new(CodeSpec::rs(3, 3)).unwrap(), e, 6).unwrap(),
    ];
    for kind in [CodeKind::Rdp, CodeKind::Dcode, CodeKind::Xcode] {
        if let Ok(code) = Code::new(CodeSpec::array(kind, 5)) {
            v.push(Layout::new(&code, e, 7).unwrap());
        }
    }
    v
}

enum Event {
    Write(ClientWrite, Vec<u8>),
    Hint(Hint),
}

/// Random writes (some overlapping, some spanning stripes), with delayed windows around
/// some of them; plans executed in order and completed at once.
fn run(kind: StrategyKind, layout: Layout, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let file_len = layout.stripe_data_bytes() * 6;
    let files = [0u64, 1];
    let mut shadow: HashMap<FileId, Vec<u8>> = files
        .iter()
        .map(|&f| (f, vec![0u8; file_len as usize]))
        .collect();
    let mut events = Vec::new();
    let mut window = 0;
    for round in 0..6 {
        let delayed = kind == StrategyKind::Delayed && round % 2 == 0;
        if delayed {
            window += 1;
            events.push(Event::Hint(Hint::StartDelayed { window, file: 1 }));
        }
        for _ in 0..12 {
            let file = files[rng.gen_range(0..2)];
            let len = if rng.gen_bool(0.3) {
                layout.element_bytes() * rng.gen_range(1..8)
            } else {
                rng.gen_range(1..150)
            };
            let offset = rng.gen_range(0..file_len - len);
            let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            events.push(Event::Write(
                ClientWrite {
                    client: rng.gen_range(0..4),
                    app: 0,
                    file,
                    offset_bytes: offset,
                    len_bytes: len,
                },
                data,
            ));
        }
        if delayed {
            events.push(Event::Hint(Hint::EndDelayed { window }));
        }
    }
    let mut s = new_strategy(kind, layout.clone(), StrategyConfig::default()).unwrap();
    let mut mem = Memory::default();
    let mut now = 0;
    for ev in events {
        now += 1;
        let plans = match &ev {
            Event::Write(w, data) => {
                shadow.get_mut(&w.file).unwrap()
                    [w.offset_bytes as usize..(w.offset_bytes + w.len_bytes) as usize]
                    .copy_from_slice(data);
                s.on_write(w, now).unwrap()
            }
            Event::Hint(h) => s.on_hint(h, now).unwrap(),
        };
        for p in &plans {
            let (client, off): (&[u8], u64) = match &ev {
                Event::Write(w, data) if matches!(p.cause, PlanCause::Write { .. }) => {
                    (data, w.offset_bytes)
                }
                _ => (&[], 0),
            };
            execute(&mut mem, p, client, off);
            s.on_complete(p.id).unwrap();
        }
        // Home parity is consistent after every event (WCL and delayed touch home only
        // through complete plans).
        if kind != StrategyKind::Raid0 {
            for &f in &files {
                check_home_parity(&mut mem, &layout, f, 6);
            }
        }
        for &f in &files {
            assert_eq!(
                read_file(&mut mem, s.as_ref(), f, file_len),
                shadow[&f],
                "{kind:?} {} file {f}: lookup reads stale bytes",
                layout.code_name()
            );
        }
    }
}

#[test]
fn every_strategy_keeps_parity_consistent_and_reads_return_the_newest_bytes() {
    for layout in layouts() {
        for kind in StrategyKind::ALL {
            for seed in 0..3 {
                run(kind, layout.clone(), seed);
            }
        }
    }
}

#[test]
fn the_reference_geometries_match_the_codes_crate() {
    let r5 = Code::new(CodeSpec::raid5(4)).unwrap();
    let t5 = exaraid_plan::testing::raid5(4);
    assert_eq!(r5.geometry().cells, t5.cells);
    assert_eq!(r5.geometry().parity_terms, t5.parity_terms);
    let r6 = Code::new(CodeSpec::raid6(4)).unwrap();
    let t6 = exaraid_plan::testing::raid6(4);
    assert_eq!(r6.geometry().cells, t6.cells);
    assert_eq!(r6.geometry().parity_terms, t6.parity_terms);
}

#[test]
fn the_seed_setup_512_osss_stripe_unit_1_mib_width_512() {
    // RAID-5 over 512 OSSs (511 + 1) and RAID-6 (510 + 2): a 128 KiB write is the seed's
    // 4 ops (STD-RAID) and 3 ops (WCL, once the parity range exists).
    // GF(2^8) codes stop at 255 columns, so the codes crate cannot build a 512-wide RAID-6;
    // op counts only need the geometry: Q's coefficients repeat here (counting only).
    let mib = 1 << 20;
    let raid6_512 = {
        let k = 510;
        let mut cells: Vec<Cell> = (0..k).map(Cell::Data).collect();
        cells.extend([Cell::Parity(0), Cell::Parity(1)]);
        let p = (0..k).map(|d| Term { data: d, coef: 1 }).collect();
        let q = (0..k)
            .map(|d| Term {
                data: d,
                coef: gf256::pow2(d),
            })
            .collect();
        Geometry::from_parts(1, k + 2, cells, vec![p, q], 2)
    };
    for (geometry, std_ops, wcl_ops) in
        [(exaraid_plan::testing::raid5(511), 4, 3), (raid6_512, 6, 5)]
    {
        let layout = Layout::from_geometry(geometry, "seed", mib, 512).unwrap();
        let mut rmw =
            new_strategy(StrategyKind::Rmw, layout.clone(), StrategyConfig::default()).unwrap();
        let mut wcl =
            new_strategy(StrategyKind::Wcl, layout.clone(), StrategyConfig::default()).unwrap();
        let w = |client: u64, off: u64| ClientWrite {
            client,
            app: 0,
            file: 0,
            offset_bytes: off,
            len_bytes: 128 * 1024,
        };
        assert_eq!(
            rmw.on_write(&w(0, 0), 0).unwrap()[0].op_counts().total(),
            std_ops
        );
        wcl.on_write(&w(0, 0), 0).unwrap();
        assert_eq!(
            wcl.on_write(&w(1, mib), 0).unwrap()[0].op_counts().total(),
            wcl_ops
        );
    }
}

/// Client bytes of each write land in exactly one write step, once.
fn client_coverage(plans: &[IoPlan], w: &ClientWrite) -> Vec<u32> {
    let mut hits = vec![0u32; w.len_bytes as usize];
    for p in plans
        .iter()
        .filter(|p| matches!(p.cause, PlanCause::Write { .. }))
    {
        for s in p.steps.iter().filter(|s| s.op == Op::Write) {
            for piece in &s.pieces {
                if let Some(Bytes::Client { file_offset_bytes }) = piece.source {
                    let at = (file_offset_bytes - w.offset_bytes) as usize;
                    for h in &mut hits[at..at + piece.element.len_bytes as usize] {
                        *h += 1;
                    }
                    assert!(matches!(piece.element.cell, Cell::Data(_)));
                }
            }
        }
    }
    hits
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_of_a_write_lands_in_exactly_one_data_or_cache_step(
        writes in prop::collection::vec((0u64..4096, 1u64..1500), 1..12),
        kind_i in 0usize..4,
    ) {
        let kind = StrategyKind::ALL[kind_i];
        let layout = Layout::new(&Code::new(CodeSpec::raid6(3)).unwrap(), 128, 6).unwrap();
        let mut s = new_strategy(kind, layout, StrategyConfig::default()).unwrap();
        if kind == StrategyKind::Delayed {
            s.on_hint(&Hint::StartDelayed { window: 1, file: 0 }, 0).unwrap();
        }
        for (off, len) in writes {
            let w = ClientWrite { client: 0, app: 0, file: 0, offset_bytes: off, len_bytes: len };
            let plans = s.on_write(&w, 1).unwrap();
            prop_assert!(client_coverage(&plans, &w).iter().all(|&h| h == 1));
            for p in &plans {
                prop_assert_eq!(p.validate(), Ok(()));
            }
        }
    }

    #[test]
    fn per_oss_counts_add_up_to_the_plan_totals_and_std_raid_is_history_free(
        writes in prop::collection::vec((0u64..1 << 16, 1u64..5000), 1..10),
    ) {
        let layout = Layout::new(&Code::new(CodeSpec::raid5(4)).unwrap(), 512, 8).unwrap();
        let mut a = new_strategy(StrategyKind::Rmw, layout.clone(), StrategyConfig::default()).unwrap();
        let mut all = Vec::new();
        for (off, len) in &writes {
            let w = ClientWrite { client: 0, app: 0, file: 3, offset_bytes: *off, len_bytes: *len };
            let plans = a.on_write(&w, 0).unwrap();
            // A fresh STD-RAID planner plans the same write identically: no hidden state.
            let mut fresh = new_strategy(StrategyKind::Rmw, layout.clone(), StrategyConfig::default()).unwrap();
            prop_assert_eq!(fresh.on_write(&w, 0).unwrap()[0].op_counts(), plans[0].op_counts());
            all.extend(plans);
        }
        let per_oss = counts_per_oss(&all, 8);
        let mut summed = OpCounts::default();
        for c in per_oss {
            summed += c;
        }
        prop_assert_eq!(summed, total_counts(&all));
        let by_plan: u64 = all.iter().map(|p| p.op_counts().total()).sum();
        prop_assert_eq!(total_counts(&all).total(), by_plan);
    }
}
