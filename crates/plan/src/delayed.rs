//! Delayed parity (seed 004 section 2.2): application hints open a window without parity.
//!
//! "When the WCL receives a START_DELAYED hint, redirects all write operations to the
//! caching zone and disables the parity computations for this data. Once the corresponding
//! END_DELAYED hint is received, the WCL computes the parities of all the full stripes
//! affected by the hints, and moves (rewrites) the data to its original location in the OSS.
//! As a result, the PFS can avoid using the Parity OSSs during the creation of the data and,
//! when parities are calculated, it only needs to send them the consolidated writes."
//! "Failure in acquiring the END signal can be detected with timeouts."
//!
//! # The model
//!
//! - `StartDelayed { window, file }` opens a window on one file (one per file at a time).
//! - Inside the window, every write to the file goes to the cache zone of the data OSS, at
//!   the element's position in a cache chunk (one column of one stripe, allocated on first
//!   touch): **1 op per element piece, no parity op at all**. Overwrites inside the window
//!   simply overwrite the cache bytes (nothing depends on them yet).
//! - `EndDelayed { window }` returns two plans:
//!   1. the **parity plan** (foreground: the application's master waits for it): for every
//!      stripe the window touched, read its written ranges from the cache zones of the data
//!      OSSs ("we need to transfer the data to the parity node to calculate the parity") --
//!      one read per element and contiguous run, however many writes filled it -- and write
//!      the stripe's parity home, **one write per parity element and run** (the consolidated
//!      parity write: "m-1 vs 1" parity writes per row w.r.t. WCL). A full stripe is encoded
//!      from the cache data alone; a stripe the window wrote only partly is completed from
//!      home by [`crate::update`] (read-modify-write or reconstruct-write, fewer reads wins).
//!   2. the **move plan** (background, after the parity plan): each written run is read
//!      from the cache zone and rewritten at home. The second cache read is what an
//!      executor without a page cache pays; the seed expects such reads "probably cached in
//!      the OSS". Until the move completes (`on_complete`), [`Strategy::lookup`] serves the
//!      window's bytes from the cache zone.
//! - Ops of a window of `n` element-sized writes filling `n / k` full stripes of a k+m code:
//!   `n` cache writes; at END `n` cache reads + `m * n / k` parity writes; then the move:
//!   `n` cache reads + `n` home data writes.
//! - **Timeout.** A window with no START, write or END for `window_timeout_ns` is closed by
//!   `on_tick(now_ns)` exactly as END would, but both plans are background (nobody waits).
//!   A late END for it gets `PlanError::WindowTimedOut`.
//! - **Unprotected data.** From the first write until the parity plan completes, the window's
//!   bytes have one copy and no parity: [`Strategy::unprotected`] lists them by OSS, so an
//!   executor can say exactly which ranges an OSS failure lost.
//! - Writes to files without an open window take the STD-RAID path ([`crate::rmw`]).
//!   Delayed parity is about windows; for writes outside them the seed gives no rule, and
//!   STD-RAID keeps every byte at home and protected.

use crate::cache::CacheAllocator;
use crate::interval::IntervalSet;
use crate::layout::{ElementRange, Layout};
use crate::plan::{Bytes, IoPlan, Op, Piece, PlanBuilder, PlanCause, PlanKind, Zone};
use crate::rmw::Rmw;
use crate::strategy::*;
use crate::update::{plan_home_parity, NewData};
use crate::{FileId, PlanId, WindowId};
use exaraid_codes::{Cell, Pos};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// The block a move home's edge read covers: an executor keeps a crc per 4 KiB block of
/// an element (the store's `CHECKSUM_BLOCK_BYTES`, which it asserts equal), so writing a
/// run that starts or ends inside such a block rewrites the whole block. Before its
/// writes the move reads each home block it writes only in part, once: the store keeps
/// the block's bytes before and after the move for recovery (its `MoveHomeCrcs` record
/// and the edge-block copies of a move beside a failed OSS: a torn edge block holds
/// acknowledged bytes the moved ones do not cover). Part of the plan, so every executor
/// counts and costs it (task s50c: the store made these reads outside the plan).
pub const MOVE_EDGE_BLOCK_BYTES: u64 = 4096;

/// The first byte of each `MOVE_EDGE_BLOCK_BYTES` block of element bytes `[a, z)` (of an
/// element of `element_bytes`) that the range covers only in part: none, one or two (one
/// where both ends cut one block). An element's last block may be short: a run to the
/// element's end covers it.
pub fn move_edge_blocks(a: u64, z: u64, element_bytes: u64) -> Vec<u64> {
    assert!(
        a < z && z <= element_bytes,
        "a written run within its element"
    );
    let block = MOVE_EDGE_BLOCK_BYTES;
    let mut out = Vec::with_capacity(2);
    if !a.is_multiple_of(block) {
        out.push(a / block * block);
    }
    if !z.is_multiple_of(block) && z != element_bytes {
        let last = (z - 1) / block * block;
        if out.last() != Some(&last) {
            out.push(last);
        }
    }
    out
}

/// One stripe's bytes written inside a window.
#[derive(Clone, Debug)]
struct WindowStripe {
    /// Cache chunk per code column (allocated when the column is first written).
    chunk_addr_bytes: Vec<Option<u64>>,
    /// Bytes written, per data element.
    written: Vec<IntervalSet>,
    /// Each write's range `(plan, data element, start, end)`: what `written` is made of,
    /// so that recovery can take back the writes a crash cut (`forget_writes`). At most
    /// one entry per piece the window admits (`WINDOW_RANGES_MAX`).
    writes: Vec<(PlanId, usize, u64, u64)>,
}

#[derive(Clone, Debug)]
struct Window {
    id: WindowId,
    file: FileId,
    last_activity_ns: u64,
    stripes: BTreeMap<u64, WindowStripe>,
    /// Upper bound of the written ranges (pieces written): bounds the END plans.
    pieces_written: u64,
}

/// A window after END (or timeout): protected once `parity_plan` completes, home once
/// `move_plan` completes.
#[derive(Clone, Debug)]
struct ClosedWindow {
    window: Window,
    parity_plan: PlanId,
    move_plan: PlanId,
    parity_done: bool,
}

/// The delayed-parity write path.
pub struct Delayed {
    layout: Layout,
    config: StrategyConfig,
    next_plan: PlanId,
    clock: Clock,
    alloc: CacheAllocator,
    windows: HashMap<WindowId, Window>,
    by_file: HashMap<FileId, WindowId>,
    /// (deadline, window) of every open window.
    deadlines: BTreeSet<(u64, WindowId)>,
    timed_out: HashMap<WindowId, u64>,
    timed_out_order: VecDeque<WindowId>,
    closed: HashMap<WindowId, ClosedWindow>,
    closed_by_file: HashMap<FileId, Vec<WindowId>>,
    plan_window: HashMap<PlanId, WindowId>,
    /// Move plans in flight per (file, stripe): later home accesses must wait for them.
    moves_in_flight: HashMap<(FileId, u64), Vec<PlanId>>,
}

impl Delayed {
    pub fn new(layout: Layout, config: StrategyConfig) -> Result<Delayed, PlanError> {
        if config.window_timeout_ns == 0 {
            return Err(PlanError::BadLayout("window_timeout_ns is 0: every window would time out at once; use e.g. 600e9 (10 min)".into()));
        }
        if config.max_open_windows == 0 || config.max_open_windows > OPEN_WINDOWS_MAX {
            return Err(PlanError::BadLayout(format!(
                "max_open_windows must be in 1..={OPEN_WINDOWS_MAX}"
            )));
        }
        let alloc = CacheAllocator::new(layout.oss_count(), layout.column_bytes());
        Ok(Delayed {
            layout,
            config,
            next_plan: 0,
            clock: Clock::default(),
            alloc,
            windows: HashMap::new(),
            by_file: HashMap::new(),
            deadlines: BTreeSet::new(),
            timed_out: HashMap::new(),
            timed_out_order: VecDeque::new(),
            closed: HashMap::new(),
            closed_by_file: HashMap::new(),
            plan_window: HashMap::new(),
            moves_in_flight: HashMap::new(),
        })
    }

    pub fn open_windows(&self) -> usize {
        self.windows.len()
    }

    /// Highest cache-zone address used on each OSS.
    pub fn cache_high_water_bytes(&self) -> &[u64] {
        self.alloc.high_water_bytes()
    }

    /// The unprotected ranges of one window (open, or ended with its parity not yet done).
    pub fn unprotected_in(&self, window: WindowId) -> Vec<UnprotectedRange> {
        let w = match (self.windows.get(&window), self.closed.get(&window)) {
            (Some(w), _) => w,
            (None, Some(c)) if !c.parity_done => &c.window,
            _ => return Vec::new(),
        };
        let mut out = Vec::new();
        for (&stripe, ws) in &w.stripes {
            for (d, set) in ws.written.iter().enumerate() {
                for (a, z) in set.iter() {
                    let pos = self.layout.geometry().data_pos[d];
                    out.push(UnprotectedRange {
                        window: w.id,
                        file: w.file,
                        stripe,
                        file_offset_bytes: self.layout.file_offset(stripe, d, a),
                        len_bytes: z - a,
                        oss: self.layout.oss_of(w.file, stripe, pos.col),
                    });
                }
            }
        }
        out
    }

    fn plan_id(&mut self) -> PlanId {
        let id = self.next_plan;
        self.next_plan += 1;
        id
    }

    fn touch(&mut self, window: WindowId, now_ns: u64) {
        let w = self.windows.get_mut(&window).expect("open window");
        self.deadlines.remove(&(
            w.last_activity_ns
                .saturating_add(self.config.window_timeout_ns),
            window,
        ));
        w.last_activity_ns = now_ns;
        self.deadlines
            .insert((now_ns.saturating_add(self.config.window_timeout_ns), window));
    }

    fn cache_addr(&self, ws: &WindowStripe, pos: Pos, offset_bytes: u64) -> u64 {
        ws.chunk_addr_bytes[pos.col].expect("chunk allocated")
            + pos.row as u64 * self.layout.element_bytes()
            + offset_bytes
    }

    /// A write inside a window: data into the cache zone, nothing else.
    fn window_write(&mut self, window: WindowId, write: &ClientWrite) -> Result<IoPlan, PlanError> {
        let pieces = self.layout.split(write.offset_bytes, write.len_bytes)?;
        let open = &self.windows[&window];
        let ranges = open.pieces_written + pieces.len() as u64;
        if ranges > WINDOW_RANGES_MAX {
            return Err(PlanError::WindowTooLarge {
                window,
                ranges,
                max: WINDOW_RANGES_MAX,
            });
        }
        let id = self.plan_id();
        let mut b = PlanBuilder::new();
        let mut w = self.windows.remove(&window).expect("open window");
        w.pieces_written = ranges;
        for (file_off, e) in pieces {
            let Cell::Data(d) = e.cell else {
                unreachable!("split yields data pieces")
            };
            let oss = self.layout.oss_of(write.file, e.stripe, e.pos.col);
            let ws = w.stripes.entry(e.stripe).or_insert_with(|| WindowStripe {
                chunk_addr_bytes: vec![None; self.layout.width()],
                written: vec![IntervalSet::new(); self.layout.data_per_stripe()],
                writes: Vec::new(),
            });
            if ws.chunk_addr_bytes[e.pos.col].is_none() {
                ws.chunk_addr_bytes[e.pos.col] = Some(self.alloc.alloc(oss));
            }
            let addr = self.cache_addr(ws, e.pos, e.offset_bytes);
            b.write(
                oss,
                Zone::Cache,
                write.file,
                addr,
                e,
                Bytes::Client {
                    file_offset_bytes: file_off,
                },
                Vec::new(),
            );
            ws.written[d].insert(e.offset_bytes, e.offset_bytes + e.len_bytes);
            ws.writes
                .push((id, d, e.offset_bytes, e.offset_bytes + e.len_bytes));
        }
        self.windows.insert(window, w);
        Ok(b.finish(
            id,
            PlanKind::Foreground,
            PlanCause::Write {
                client: write.client,
                file: write.file,
            },
            Vec::new(),
        ))
    }

    /// Close a window (END or timeout): the parity plan and the move plan.
    fn close(&mut self, window: WindowId, timed_out: bool) -> Vec<IoPlan> {
        let w = self.windows.remove(&window).expect("open window");
        self.by_file.remove(&w.file);
        self.deadlines.remove(&(
            w.last_activity_ns
                .saturating_add(self.config.window_timeout_ns),
            window,
        ));
        if w.stripes.is_empty() {
            return Vec::new();
        }
        let file = w.file;
        let layout = self.layout.clone();
        let e_range = |stripe: u64, d: usize, a: u64, z: u64| ElementRange {
            stripe,
            pos: layout.geometry().data_pos[d],
            cell: Cell::Data(d),
            offset_bytes: a,
            len_bytes: z - a,
        };
        let mut after_plans: Vec<PlanId> = Vec::new();
        // 1. Parity plan: read the window's data from the cache zones, write parity home.
        let mut b = PlanBuilder::new();
        for (&stripe, ws) in &w.stripes {
            if let Some(moves) = self.moves_in_flight.get(&(file, stripe)) {
                after_plans.extend(moves.iter().copied());
            }
            let mut new = Vec::new();
            for (d, set) in ws.written.iter().enumerate() {
                let pos = layout.geometry().data_pos[d];
                let oss = layout.oss_of(file, stripe, pos.col);
                for (a, z) in set.iter() {
                    let s = b.read(
                        oss,
                        Zone::Cache,
                        file,
                        self.cache_addr(ws, pos, a),
                        e_range(stripe, d, a, z),
                    );
                    new.push(NewData {
                        data: d,
                        offset_bytes: a,
                        len_bytes: z - a,
                        source: Bytes::Read {
                            step: s,
                            offset_bytes: 0,
                        },
                        after: vec![s],
                    });
                }
            }
            plan_home_parity(&mut b, &layout, file, stripe, &new);
        }
        after_plans.sort_unstable();
        after_plans.dedup();
        let parity_id = self.plan_id();
        let (kind, cause) = if timed_out {
            (
                PlanKind::Background,
                PlanCause::WindowTimeout { window, file },
            )
        } else {
            (PlanKind::Foreground, PlanCause::WindowEnd { window, file })
        };
        let parity_plan = b.finish(parity_id, kind, cause, after_plans);

        // 2. Move plan: cache -> home, after the parity plan (which may read old home data).
        let mut b = PlanBuilder::new();
        let eb = layout.element_bytes();
        for (&stripe, ws) in &w.stripes {
            for (d, set) in ws.written.iter().enumerate() {
                let pos = layout.geometry().data_pos[d];
                let oss = layout.oss_of(file, stripe, pos.col);
                // The home blocks the move writes only in part: one read each (see
                // `MOVE_EDGE_BLOCK_BYTES`), once per block however many runs touch it.
                let mut edges: BTreeSet<u64> = BTreeSet::new();
                for (a, z) in set.iter() {
                    edges.extend(move_edge_blocks(a, z, eb));
                }
                for first in edges {
                    let end = (first + MOVE_EDGE_BLOCK_BYTES).min(eb);
                    b.read(
                        oss,
                        Zone::Data,
                        file,
                        layout.home_addr(stripe, pos, first),
                        e_range(stripe, d, first, end),
                    );
                }
                for (a, z) in set.iter() {
                    let e = e_range(stripe, d, a, z);
                    let r = b.read(oss, Zone::Cache, file, self.cache_addr(ws, pos, a), e);
                    b.step(
                        oss,
                        Op::Write,
                        Zone::Data,
                        file,
                        layout.home_addr(stripe, pos, a),
                        vec![Piece {
                            element: e,
                            source: Some(Bytes::Read {
                                step: r,
                                offset_bytes: 0,
                            }),
                        }],
                        vec![r],
                    );
                }
            }
        }
        let move_id = self.plan_id();
        let move_plan = b.finish(
            move_id,
            PlanKind::Background,
            PlanCause::WindowMove { window, file },
            vec![parity_id],
        );

        for &stripe in w.stripes.keys() {
            self.moves_in_flight
                .entry((file, stripe))
                .or_default()
                .push(move_id);
        }
        self.plan_window.insert(parity_id, window);
        self.plan_window.insert(move_id, window);
        self.closed_by_file.entry(file).or_default().push(window);
        self.closed.insert(
            window,
            ClosedWindow {
                window: w,
                parity_plan: parity_id,
                move_plan: move_id,
                parity_done: false,
            },
        );
        vec![parity_plan, move_plan]
    }

    fn remember_timeout(&mut self, window: WindowId, now_ns: u64) {
        if self.timed_out_order.len() >= TIMED_OUT_WINDOWS_REMEMBERED_MAX {
            if let Some(old) = self.timed_out_order.pop_front() {
                self.timed_out.remove(&old);
            }
        }
        self.timed_out.insert(window, now_ns);
        self.timed_out_order.push_back(window);
    }
}

impl Strategy for Delayed {
    fn kind(&self) -> StrategyKind {
        StrategyKind::Delayed
    }
    fn layout(&self) -> &Layout {
        &self.layout
    }

    fn on_write(&mut self, write: &ClientWrite, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        check_write(&self.layout, write)?;
        self.clock.advance(now_ns)?;
        if let Some(&window) = self.by_file.get(&write.file) {
            self.touch(window, now_ns);
            return Ok(vec![self.window_write(window, write)?]);
        }
        // Outside any window: STD-RAID, after any move home still in flight on its stripes.
        let mut b = PlanBuilder::new();
        Rmw::plan_write(
            &self.layout,
            &mut b,
            write.file,
            write.offset_bytes,
            write.len_bytes,
        )?;
        b.coalesce();
        let mut after_plans: Vec<PlanId> = Vec::new();
        let first = write.offset_bytes / self.layout.stripe_data_bytes();
        let last = (write.offset_bytes + write.len_bytes - 1) / self.layout.stripe_data_bytes();
        if !self.moves_in_flight.is_empty() {
            for stripe in first..=last {
                if let Some(m) = self.moves_in_flight.get(&(write.file, stripe)) {
                    after_plans.extend(m.iter().copied());
                }
            }
        }
        after_plans.sort_unstable();
        after_plans.dedup();
        let id = self.plan_id();
        Ok(vec![b.finish(
            id,
            PlanKind::Foreground,
            PlanCause::Write {
                client: write.client,
                file: write.file,
            },
            after_plans,
        )])
    }

    fn on_hint(&mut self, hint: &Hint, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        self.clock.advance(now_ns)?;
        match *hint {
            Hint::StartDelayed { window, file } => {
                if let Some(w) = self.windows.get(&window) {
                    return Err(PlanError::WindowIdInUse {
                        window,
                        file: w.file,
                    });
                }
                if let Some(&open) = self.by_file.get(&file) {
                    return Err(PlanError::WindowAlreadyOpenOnFile { window, file, open });
                }
                if self.windows.len() >= self.config.max_open_windows {
                    return Err(PlanError::TooManyWindows {
                        open: self.windows.len(),
                        max: self.config.max_open_windows,
                    });
                }
                self.timed_out.remove(&window);
                self.windows.insert(
                    window,
                    Window {
                        id: window,
                        file,
                        last_activity_ns: now_ns,
                        stripes: BTreeMap::new(),
                        pieces_written: 0,
                    },
                );
                self.by_file.insert(file, window);
                self.deadlines
                    .insert((now_ns.saturating_add(self.config.window_timeout_ns), window));
                Ok(Vec::new())
            }
            Hint::EndDelayed { window } => {
                if !self.windows.contains_key(&window) {
                    return Err(match self.timed_out.get(&window) {
                        Some(&closed_at_ns) => PlanError::WindowTimedOut {
                            window,
                            closed_at_ns,
                        },
                        None => PlanError::UnknownWindow { window },
                    });
                }
                Ok(self.close(window, false))
            }
        }
    }

    fn on_tick(&mut self, now_ns: u64) -> Result<Vec<IoPlan>, PlanError> {
        self.clock.advance(now_ns)?;
        let mut plans = Vec::new();
        while let Some(&(deadline, window)) = self.deadlines.first() {
            if deadline > now_ns {
                break;
            }
            plans.extend(self.close(window, true));
            self.remember_timeout(window, now_ns);
        }
        Ok(plans)
    }

    fn next_deadline_ns(&self) -> Option<u64> {
        self.deadlines.first().map(|&(d, _)| d)
    }

    fn window_open(&self, window: WindowId) -> bool {
        self.windows.contains_key(&window)
    }

    fn window_due(&self, window: WindowId, now_ns: u64) -> bool {
        // The deadline `on_tick` fires at.
        self.windows.get(&window).is_some_and(|w| {
            w.last_activity_ns
                .saturating_add(self.config.window_timeout_ns)
                <= now_ns
        })
    }

    fn on_complete(&mut self, plan: PlanId) -> Result<Vec<IoPlan>, PlanError> {
        if plan >= self.next_plan {
            return Err(PlanError::UnknownPlan { plan });
        }
        let Some(window) = self.plan_window.remove(&plan) else {
            return Ok(Vec::new());
        };
        let c = self
            .closed
            .get_mut(&window)
            .expect("closed window of a known plan");
        if plan == c.parity_plan {
            c.parity_done = true;
            return Ok(Vec::new());
        }
        assert_eq!(plan, c.move_plan);
        let c = self.closed.remove(&window).expect("closed");
        let file = c.window.file;
        if let Some(list) = self.closed_by_file.get_mut(&file) {
            list.retain(|&w| w != window);
            if list.is_empty() {
                self.closed_by_file.remove(&file);
            }
        }
        for (&stripe, ws) in &c.window.stripes {
            if let Some(m) = self.moves_in_flight.get_mut(&(file, stripe)) {
                m.retain(|&p| p != plan);
                if m.is_empty() {
                    self.moves_in_flight.remove(&(file, stripe));
                }
            }
            for (col, addr) in ws.chunk_addr_bytes.iter().enumerate() {
                if let Some(addr) = addr {
                    self.alloc
                        .free(self.layout.oss_of(file, stripe, col), *addr);
                }
            }
        }
        Ok(Vec::new())
    }

    /// As for WCL: a cut window write's cache slot may hold zeros or stale bytes of an older
    /// window, so its ranges read from whatever held them before it, unless a write that
    /// was not cut wrote them into the same window (then the slot holds that write's bytes
    /// or the cut one's, both right).
    fn forget_writes(&mut self, cut: &CutWrites) {
        let windows = self
            .windows
            .values_mut()
            .chain(self.closed.values_mut().map(|c| &mut c.window));
        for window in windows {
            let file = window.file;
            for (&stripe, ws) in window.stripes.iter_mut() {
                let forgotten =
                    |plan: &PlanId| cut.get(plan).is_some_and(|s| s.contains(&(file, stripe)));
                if !ws.writes.iter().any(|w| forgotten(&w.0)) {
                    continue;
                }
                for w in ws.written.iter_mut() {
                    *w = IntervalSet::new();
                }
                for &(plan, d, a, z) in &ws.writes {
                    if !forgotten(&plan) {
                        ws.written[d].insert(a, z);
                    }
                }
            }
        }
    }

    fn lookup(
        &self,
        file: FileId,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<Extent>, PlanError> {
        // Newest first: the open window, then closed windows not yet moved, newest first.
        let mut layers: Vec<&Window> = Vec::new();
        if let Some(w) = self.by_file.get(&file) {
            layers.push(&self.windows[w]);
        }
        if let Some(list) = self.closed_by_file.get(&file) {
            layers.extend(list.iter().rev().map(|w| &self.closed[w].window));
        }
        let mut out = Vec::new();
        for ext in home_lookup(&self.layout, file, offset_bytes, len_bytes)? {
            resolve(self, &layers, ext, &mut out);
        }
        Ok(out)
    }

    fn cached_stripes(&self, file: FileId) -> Vec<u64> {
        let mut windows: Vec<&Window> = Vec::new();
        if let Some(w) = self.by_file.get(&file) {
            windows.push(&self.windows[w]);
        }
        if let Some(list) = self.closed_by_file.get(&file) {
            windows.extend(list.iter().map(|w| &self.closed[w].window));
        }
        let stripes: BTreeSet<u64> = windows
            .iter()
            .flat_map(|w| w.stripes.keys().copied())
            .collect();
        stripes.into_iter().collect()
    }

    fn unprotected(&self) -> Vec<UnprotectedRange> {
        let mut ids: Vec<WindowId> = self.windows.keys().copied().collect();
        ids.extend(
            self.closed
                .iter()
                .filter(|(_, c)| !c.parity_done)
                .map(|(&w, _)| w),
        );
        ids.sort_unstable();
        ids.into_iter()
            .flat_map(|w| self.unprotected_in(w))
            .collect()
    }
}

fn resolve(s: &Delayed, layers: &[&Window], ext: Extent, out: &mut Vec<Extent>) {
    let Some((w, rest)) = layers.split_first() else {
        out.push(ext);
        return;
    };
    let e = ext.element;
    let Some(ws) = w.stripes.get(&e.stripe) else {
        resolve(s, rest, ext, out);
        return;
    };
    let Cell::Data(d) = e.cell else {
        unreachable!()
    };
    for (a, z, covered) in ws.written[d].split(e.offset_bytes, e.offset_bytes + e.len_bytes) {
        let sub = Extent {
            file_offset_bytes: ext.file_offset_bytes + (a - e.offset_bytes),
            len_bytes: z - a,
            addr_bytes: ext.addr_bytes + (a - e.offset_bytes),
            element: ElementRange {
                offset_bytes: a,
                len_bytes: z - a,
                ..e
            },
            ..ext
        };
        if covered {
            out.push(Extent {
                zone: Zone::Cache,
                addr_bytes: s.cache_addr(ws, e.pos, a),
                ..sub
            });
        } else {
            resolve(s, rest, sub, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{total_counts, OpCounts, ParityMethod};
    use crate::testing::{raid5, raid6};

    const E: u64 = 64 * 1024;
    const TIMEOUT_NS: u64 = 1_000_000;

    fn delayed(g: exaraid_codes::Geometry) -> Delayed {
        let width = g.cols;
        let config = StrategyConfig {
            window_timeout_ns: TIMEOUT_NS,
            ..StrategyConfig::default()
        };
        Delayed::new(Layout::from_geometry(g, "code", E, width).unwrap(), config).unwrap()
    }

    fn w(client: u64, offset_bytes: u64, len_bytes: u64) -> ClientWrite {
        ClientWrite {
            client,
            app: 1,
            file: 9,
            offset_bytes,
            len_bytes,
        }
    }

    #[test]
    fn a_write_inside_a_window_is_one_cache_write_and_no_parity() {
        for g in [raid5(4), raid6(4)] {
            let mut s = delayed(g);
            s.on_hint(&Hint::StartDelayed { window: 1, file: 9 }, 0)
                .unwrap();
            let plans = s.on_write(&w(0, E + 10, 100), 1).unwrap();
            assert_eq!(plans.len(), 1);
            assert_eq!(
                plans[0].op_counts(),
                OpCounts {
                    cache_data_write: 1,
                    ..OpCounts::default()
                }
            );
            assert!(plans[0].computes.is_empty());
        }
    }

    #[test]
    fn a_raid5_window_of_4_clients_times_n_writes_has_exact_op_totals() {
        // RAID-5 4+1. 4 clients each write N half-element pieces: 4N writes, 2N elements,
        // N/2 full stripes.
        const N: u64 = 6;
        let mut s = delayed(raid5(4));
        s.on_hint(&Hint::StartDelayed { window: 7, file: 9 }, 0)
            .unwrap();
        let mut window_plans = Vec::new();
        for j in 0..N {
            for c in 0..4 {
                window_plans.extend(s.on_write(&w(c, (j * 4 + c) * (E / 2), E / 2), 10).unwrap());
            }
        }
        assert_eq!(
            total_counts(&window_plans),
            OpCounts {
                cache_data_write: 4 * N,
                ..OpCounts::default()
            }
        );
        assert_eq!(
            s.unprotected().iter().map(|r| r.len_bytes).sum::<u64>(),
            4 * N * E / 2
        );
        let end = s.on_hint(&Hint::EndDelayed { window: 7 }, 20).unwrap();
        assert_eq!(end.len(), 2);
        let (parity, moved) = (&end[0], &end[1]);
        assert_eq!(parity.kind, PlanKind::Foreground);
        assert_eq!(moved.kind, PlanKind::Background);
        assert_eq!(moved.after_plans, vec![parity.id]);
        // Parity: one cache read per written element (2N), one parity write per stripe (N/2),
        // no home read (full stripes are encoded from the cache data).
        assert_eq!(
            parity.op_counts(),
            OpCounts {
                cache_data_read: 2 * N,
                parity_write: N / 2,
                ..OpCounts::default()
            }
        );
        assert!(parity
            .computes
            .iter()
            .all(|c| c.method == ParityMethod::Encode));
        // Move home: read each element from the cache, write it home.
        assert_eq!(
            moved.op_counts(),
            OpCounts {
                cache_data_read: 2 * N,
                data_write: 2 * N,
                ..OpCounts::default()
            }
        );
        // The same writes through WCL: one running-parity write per write (4N), against
        // N/2 consolidated parity writes here ("m-1 vs 1" per row).
        let mut wcl = crate::wcl::Wcl::new(s.layout().clone());
        let mut wcl_plans = Vec::new();
        for j in 0..N {
            for c in 0..4 {
                wcl_plans.extend(
                    wcl.on_write(&w(c, (j * 4 + c) * (E / 2), E / 2), 10)
                        .unwrap(),
                );
            }
        }
        let wcl_fg: Vec<IoPlan> = wcl_plans
            .into_iter()
            .filter(|p| p.kind == PlanKind::Foreground)
            .collect();
        assert_eq!(total_counts(&wcl_fg).by_content().parity_write, 4 * N);
        assert_eq!(parity.op_counts().by_content().parity_write, N / 2);
        parity.validate().unwrap();
        moved.validate().unwrap();
    }

    #[test]
    fn a_raid6_full_stripe_window_writes_each_parity_once_per_stripe() {
        let mut s = delayed(raid6(4));
        s.on_hint(&Hint::StartDelayed { window: 1, file: 9 }, 0)
            .unwrap();
        for d in 0..8 {
            s.on_write(&w(d, d * E, E), 1).unwrap();
        }
        let end = s.on_hint(&Hint::EndDelayed { window: 1 }, 2).unwrap();
        assert_eq!(
            end[0].op_counts(),
            OpCounts {
                cache_data_read: 8,
                parity_write: 4,
                ..OpCounts::default()
            }
        );
    }

    #[test]
    fn a_partly_written_stripe_is_completed_from_home_at_end() {
        let mut s = delayed(raid5(4));
        s.on_hint(&Hint::StartDelayed { window: 1, file: 9 }, 0)
            .unwrap();
        s.on_write(&w(0, 0, E), 1).unwrap();
        let end = s.on_hint(&Hint::EndDelayed { window: 1 }, 2).unwrap();
        // Read-modify-write: old data and old parity from home.
        assert_eq!(
            end[0].op_counts(),
            OpCounts {
                cache_data_read: 1,
                data_read: 1,
                parity_read: 1,
                parity_write: 1,
                ..OpCounts::default()
            }
        );
    }

    /// A move home that writes a 4 KiB block of an element only in part reads that home
    /// block first, once (task s50c): the store keeps the block's bytes before and after
    /// the move for recovery, and every executor counts the read because the plan holds
    /// it. Whole blocks need none: the seed's aligned windows keep their op counts.
    #[test]
    fn a_move_home_reads_each_home_block_it_writes_only_in_part_once() {
        let b = MOVE_EDGE_BLOCK_BYTES;
        // (window writes, home edge reads of the move)
        let cases: [(&[(u64, u64)], u64); 6] = [
            (&[(0, E)], 0),                 // a whole element
            (&[(b, 2 * b)], 0),             // whole blocks inside one element
            (&[(b + 100, b)], 2),           // both ends mid-block, two blocks
            (&[(b + 100, 200)], 1),         // both ends in one block
            (&[(100, 100), (300, 100)], 1), // two runs in one block: one read
            (&[(E - 100, 200)], 2),         // across two elements: one edge each
        ];
        for (writes, edge_reads) in cases {
            let mut s = delayed(raid5(4));
            s.on_hint(&Hint::StartDelayed { window: 1, file: 9 }, 0)
                .unwrap();
            for &(o, n) in writes {
                s.on_write(&w(0, o, n), 1).unwrap();
            }
            let end = s.on_hint(&Hint::EndDelayed { window: 1 }, 2).unwrap();
            let moved = &end[1];
            assert!(matches!(moved.cause, PlanCause::WindowMove { .. }));
            let c = moved.op_counts();
            assert_eq!(c.data_read, edge_reads, "{writes:?}");
            for r in moved
                .steps
                .iter()
                .filter(|s| s.op == Op::Read && s.zone == Zone::Data)
            {
                let el = &r.pieces[0].element;
                assert_eq!((el.offset_bytes % b, el.len_bytes), (0, b), "{writes:?}");
                assert!(r.after.is_empty(), "before every write of the move");
            }
        }
    }

    /// Review r50c LOW-3: the move's edge reads where a window's runs are short (inside
    /// one 4 KiB block), cross a stripe boundary, span several stripes, end at an element's
    /// end or at a file's end mid-block. What must hold, per case: one `Zone::Data` read
    /// per home block a run covers only in part, in that block's stripe and element, of
    /// the whole block, before every write (no `after`); none for a block a run covers
    /// whole or for an element end (an element's end is a block boundary: nothing of the
    /// block past it is kept). Why: the store's move home reads exactly these steps
    /// (`read_move_edge_blocks` asserts one whole block each) and uses their bytes for the
    /// edge copies, the heal's check and `MoveHomeCrcs`; a block missing here is a block
    /// recovery cannot prove, one too many an op count the bench would show wrong.
    #[test]
    fn a_move_home_reads_the_edge_blocks_of_short_multi_stripe_and_file_end_runs() {
        let b = MOVE_EDGE_BLOCK_BYTES;
        let k = 4u64;
        let stripe = k * E; // data bytes of one stripe (raid5 4+1)
                            // (window writes (offset, length), the edge blocks read as (stripe, element
                            // offset of the block), in any order)
                            // (offset, length) runs, and (stripe, element offset) blocks.
        type Runs = Vec<(u64, u64)>;
        let cases: [(Runs, Runs); 9] = [
            // Shorter than a block, from a block's start: the block's tail is kept.
            (vec![(0, 100)], vec![(0, 0)]),
            // Shorter than a block, ending at a block's end: its head is kept.
            (vec![(2 * b - 100, 100)], vec![(0, b)]),
            // Shorter than a block, inside it (neither end on a boundary): one read.
            (vec![(b + 1, 1)], vec![(0, b)]),
            // Across a stripe boundary, mid-block at both ends: one read in each stripe.
            (vec![(stripe - 100, 200)], vec![(0, E - b), (1, 0)]),
            // Over three stripes in one run: only its two ends, in the first and last.
            (vec![(E + 100, 2 * stripe)], vec![(0, 0), (2, 0)]),
            // Three short runs in three stripes: one read each.
            (
                vec![(100, 10), (stripe + 100, 10), (2 * stripe + b + 5, 10)],
                vec![(0, 0), (1, 0), (2, b)],
            ),
            // Ending at an element's end (a block boundary): only the first edge.
            (vec![(E - 100, 100)], vec![(0, E - b)]),
            // Ending at the end of a stripe (its last element's end): likewise.
            (vec![(stripe - 100, 100)], vec![(0, E - b)]),
            // A file's first bytes ending mid-block (its end: the rest of the block was
            // never written, zeros, and read so): the last block, once.
            (vec![(0, b + 100)], vec![(0, b)]),
        ];
        for (writes, want) in cases {
            let mut s = delayed(raid5(k as usize));
            s.on_hint(&Hint::StartDelayed { window: 1, file: 9 }, 0)
                .unwrap();
            for &(o, n) in &writes {
                s.on_write(&w(0, o, n), 1).unwrap();
            }
            let end = s.on_hint(&Hint::EndDelayed { window: 1 }, 2).unwrap();
            let moved = end
                .iter()
                .find(|p| matches!(p.cause, PlanCause::WindowMove { .. }))
                .expect("a move home");
            let mut got: Vec<(u64, u64)> = Vec::new();
            for r in (moved.steps.iter()).filter(|s| s.op == Op::Read && s.zone == Zone::Data) {
                assert_eq!(r.pieces.len(), 1, "{writes:?}: one block per read");
                let el = &r.pieces[0].element;
                assert_eq!((el.offset_bytes % b, el.len_bytes), (0, b), "{writes:?}");
                assert!(
                    r.after.is_empty(),
                    "{writes:?}: before every write of the move"
                );
                // The block's element is one the move writes (the read's OSS is its).
                let writes_it = (moved.steps.iter()).any(|w| {
                    w.op == Op::Write
                        && w.zone == Zone::Data
                        && w.oss == r.oss
                        && (w.pieces.iter()).any(|p| {
                            p.element.stripe == el.stripe
                                && p.element.pos == el.pos
                                && p.element.offset_bytes < el.offset_bytes + b
                                && el.offset_bytes < p.element.offset_bytes + p.element.len_bytes
                        })
                });
                assert!(writes_it, "{writes:?}: a read of a block the move writes");
                got.push((el.stripe, el.offset_bytes));
            }
            got.sort_unstable();
            let mut want = want;
            want.sort_unstable();
            assert_eq!(got, want, "{writes:?}: the move's edge reads");
            assert_eq!(moved.op_counts().data_read, want.len() as u64, "{writes:?}");
        }
    }

    #[test]
    fn a_window_is_due_exactly_when_its_tick_would_close_it() {
        let mut s = delayed(raid5(4));
        s.on_hint(&Hint::StartDelayed { window: 5, file: 9 }, 0)
            .unwrap();
        s.on_write(&w(0, 0, 4 * E), 100).unwrap();
        assert!(!s.window_due(5, 100 + TIMEOUT_NS - 1));
        assert!(s.window_due(5, 100 + TIMEOUT_NS));
        assert!(!s.window_due(6, 100 + TIMEOUT_NS), "no such window");
        assert_eq!(s.on_tick(100 + TIMEOUT_NS).unwrap().len(), 2);
        assert!(!s.window_due(5, 200 + TIMEOUT_NS), "closed by its tick");
    }

    #[test]
    fn an_end_that_never_comes_is_caught_by_the_timeout() {
        let mut s = delayed(raid5(4));
        s.on_hint(&Hint::StartDelayed { window: 5, file: 9 }, 0)
            .unwrap();
        s.on_write(&w(0, 0, 4 * E), 100).unwrap();
        assert_eq!(s.next_deadline_ns(), Some(100 + TIMEOUT_NS));
        assert!(s.on_tick(100 + TIMEOUT_NS - 1).unwrap().is_empty());
        let plans = s.on_tick(100 + TIMEOUT_NS).unwrap();
        assert_eq!(plans.len(), 2);
        assert!(plans.iter().all(|p| p.kind == PlanKind::Background));
        assert_eq!(
            plans[0].cause,
            PlanCause::WindowTimeout { window: 5, file: 9 }
        );
        assert_eq!(plans[0].op_counts().parity_write, 1);
        assert_eq!(s.next_deadline_ns(), None);
        let err = s
            .on_hint(&Hint::EndDelayed { window: 5 }, 200 + TIMEOUT_NS)
            .unwrap_err();
        assert_eq!(
            err,
            PlanError::WindowTimedOut {
                window: 5,
                closed_at_ns: 100 + TIMEOUT_NS
            }
        );
        // A later write to the file is STD-RAID again, ordered after the move home.
        let p = s.on_write(&w(0, 0, 100), 300 + TIMEOUT_NS).unwrap();
        assert_eq!(p[0].after_plans, vec![plans[1].id]);
        assert_eq!(p[0].op_counts().cache_data_write, 0);
    }

    #[test]
    fn hint_errors_are_typed_and_say_what_to_do() {
        let mut s = delayed(raid5(4));
        assert_eq!(
            s.on_hint(&Hint::EndDelayed { window: 3 }, 0).unwrap_err(),
            PlanError::UnknownWindow { window: 3 }
        );
        s.on_hint(&Hint::StartDelayed { window: 1, file: 9 }, 0)
            .unwrap();
        let err = s
            .on_hint(&Hint::StartDelayed { window: 2, file: 9 }, 0)
            .unwrap_err();
        assert_eq!(
            err,
            PlanError::WindowAlreadyOpenOnFile {
                window: 2,
                file: 9,
                open: 1
            }
        );
        assert!(
            err.to_string().contains("END_DELAYED for window 1 first"),
            "{err}"
        );
        let err = s
            .on_hint(
                &Hint::StartDelayed {
                    window: 1,
                    file: 10,
                },
                0,
            )
            .unwrap_err();
        assert_eq!(err, PlanError::WindowIdInUse { window: 1, file: 9 });
        let err = s
            .on_write(&w(0, 0, 1), 5)
            .and_then(|_| s.on_tick(4))
            .unwrap_err();
        assert_eq!(
            err,
            PlanError::TimeWentBackwards {
                now_ns: 4,
                last_ns: 5
            }
        );
        let config = StrategyConfig {
            max_open_windows: 1,
            ..StrategyConfig::default()
        };
        let mut s = Delayed::new(
            Layout::from_geometry(raid5(4), "raid5", E, 5).unwrap(),
            config,
        )
        .unwrap();
        s.on_hint(&Hint::StartDelayed { window: 1, file: 1 }, 0)
            .unwrap();
        assert_eq!(
            s.on_hint(&Hint::StartDelayed { window: 2, file: 2 }, 0)
                .unwrap_err(),
            PlanError::TooManyWindows { open: 1, max: 1 }
        );
    }

    #[test]
    fn unprotected_ranges_name_the_oss_holding_the_only_copy_until_parity_is_done() {
        let mut s = delayed(raid5(4));
        s.on_hint(&Hint::StartDelayed { window: 1, file: 9 }, 0)
            .unwrap();
        s.on_write(&w(0, E + 5, 10), 1).unwrap();
        let u = s.unprotected();
        assert_eq!(u.len(), 1);
        assert_eq!(
            (u[0].file_offset_bytes, u[0].len_bytes, u[0].oss),
            (E + 5, 10, s.layout().oss_of(9, 0, 1))
        );
        let end = s.on_hint(&Hint::EndDelayed { window: 1 }, 2).unwrap();
        assert_eq!(
            s.unprotected().len(),
            1,
            "still unprotected until the parity plan completes"
        );
        // Reads find the bytes in the cache until the move completes.
        assert_eq!(s.lookup(9, E + 5, 10).unwrap()[0].zone, Zone::Cache);
        s.on_complete(end[0].id).unwrap();
        assert!(s.unprotected().is_empty());
        assert_eq!(s.lookup(9, E + 5, 10).unwrap()[0].zone, Zone::Cache);
        s.on_complete(end[1].id).unwrap();
        assert_eq!(s.lookup(9, E + 5, 10).unwrap()[0].zone, Zone::Data);
    }
}
