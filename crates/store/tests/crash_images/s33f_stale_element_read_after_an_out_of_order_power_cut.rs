//! s33f (step 4 of "OPEN after session 32" item (5)): s32a's suspected WRONG BYTES in
//! `stale_beside_cut_write`'s `fits` (session 31's item (1)) REACHED by a power cut that
//! keeps a LATER unsynced call of an OSS beside an EARLIER one dropped (the power-cut
//! model's out-of-order mode, `powercut::OutOfOrder`; the all-or-none model and a kill never
//! lay this disk). Two faults, both within xcode's tolerance of two: a stale element (a
//! lost write of data element 1's OSS, its cache zone put back as before the write) and
//! one power cut.
//!
//! Scene: s32a's (`s32a_stale_element_completable_by_one_version_beside_a_partial_parity.rs`,
//! `common/stale_cut.rs`): xcode p=5, 16 KiB elements, WCL; `f` put over four stripes;
//! elements 0..1 of stripe 0 written (cached); a write over element 1's bytes 100..900 lost
//! by its OSS; then the write from element 3's byte 3000 to element 7's byte 1000 cut by a
//! power cut before its mutating call 23, the journal at its durable length, every
//! unsynced call landed but `S33F_CUT.dropped` (one call of OSS 1 and one of OSS 3, each beside a
//! LATER call of its OSS that landed), found by `EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only`
//! on s32a's test `xcode_write_3_to_7_...` and cut down by
//! `probe_smallest_dropped_set_reading_wrong_bytes`. The same image with each OSS's calls
//! all kept or all dropped (32 cuts) reads right: the order is what matters.
//!
//! Specification (s19f's, `stale_cut.rs`): after the open and a `flush`, every acknowledged
//! block reads its bytes (or, in the cut write's range, the write's) or is named LOST on
//! record; the stale element never reads its stale bytes with success. On 8b60df4 (and
//! 39e5b6e) the read of element 1 succeeds with the lost write's bytes missing: 'f' WRONG
//! byte 16484; since s34a the block row is named LOST.

use crate::common;
use crate::powercut;
use common::*;
use powercut::*;

use exaraid_codes::{CodeKind, CodeSpec};
use exaraid_store::Store;

const ELEMENT_BYTES: usize = 16 * 1024;
/// s42c: the probes' element size (`probe_power_cuts`), `ELEMENT_BYTES` where unset; the
/// pinned cuts keep `ELEMENT_BYTES` (their call and page numbers are of that scene).
const ELEMENT_BYTES_ENV: &str = "EXARAID_S33F_ELEMENT_BYTES";

/// One out-of-order cut of a write over the scene: the array code (p=5), the write's first
/// and last element (from byte 3000 of the first to byte 1000 of the last), the image the
/// cut comes before (its mutating call's index), the OSSs' calls unsynced there per OSS (the
/// scene's plan order), and the unsynced calls the cut loses, each whole.
struct Cut {
    code: CodeKind,
    elements: (usize, usize),
    /// The element whose OSS loses the scene's earlier write (its column's).
    stale_element: usize,
    /// The column whose OSS loses that write where not the stale element's own (a running
    /// parity column holding the element's row parity); None: the element's column.
    stale_col: Option<usize>,
    image: usize,
    unsynced: &'static [&'static [usize]],
    dropped: &'static [usize],
    /// Pages mode (`EXARAID_POWER_CUT_OUT_OF_ORDER=..,pages`): the unsynced cache-zone pages
    /// the cut loses, each (call, page), every other unsynced unit kept; empty: whole calls
    /// (`dropped`).
    dropped_pages: &'static [(usize, usize)],
}

/// s33f's: OSS 1's call 14 (its call 15 kept) and OSS 3's call 21 (its call 22 kept) lost;
/// every other call at the image lands. The sweep's first WRONG cut dropped [10, 11, 12,
/// 13, 14, 17, 18, 21, 20]; `probe_smallest_dropped_set_reading_wrong_bytes` cut it down to
/// these two.
const S33F_CUT: Cut = Cut {
    code: CodeKind::Xcode,
    elements: (3, 7),
    stale_element: 1,
    stale_col: None,
    image: 23,
    unsynced: &[
        &[10, 11, 12],
        &[13, 14, 15],
        &[16, 17],
        &[18, 21, 22],
        &[19, 20],
    ],
    dropped_pages: &[],
    dropped: &[14, 21],
};

/// s35b's (OPEN after session 34 (2)(d), s34a's last WRONG cut, one of many on e4b1aa9):
/// the write from element 5 to element 14 (`EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on
/// s32a's `xcode_write_5_to_14_...`: 65 of 278 cuts read 'f' WRONG byte 16484 on e4b1aa9;
/// this is the first): OSS 0's call 10 (its 11..13 kept), OSS 1's 15 and 17 (14 and 16
/// kept), OSS 2's 19 (18 and 20 kept) lost. A zone page shared by a slot's checksums and
/// the next slot's payload lays new checksums over old payloads: data blocks of the write
/// wholly inside its range (nothing acknowledged there) and a running parity block fail
/// their checksum. s34b's `torn_over_nothing_acked` counts those data blocks known in the
/// old version (no blind column), so s34a's blind-columns rule was not asked; each version
/// still erased more than xcode's tolerance, no world was checked, and the unchecked-world
/// arm took the row on "the decisions below confirm a failing block's decode", which none
/// of those blocks gets: the stale element went home.
const S35B_CUT: Cut = Cut {
    code: CodeKind::Xcode,
    elements: (5, 14),
    stale_element: 1,
    stale_col: None,
    image: 21,
    unsynced: &[
        &[10, 11, 12, 13],
        &[14, 15, 16, 17],
        &[18, 19, 20],
        &[],
        &[],
    ],
    dropped_pages: &[],
    dropped: &[10, 15, 17, 19],
};

/// r38b's MEDIUM-1 (s39a): hcode, the write from element 5 to element 14, cut before
/// mutating call 28 (`EXARAID_S33F_CODE=hcode EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on
/// `probe_power_cuts_stale`: 2 of 210 cuts of write 5..14 read 'f' WRONG byte 16484 on
/// 860666e2; this is the one with fewer calls dropped): OSS 0's call 13 (12 kept), OSS 1's
/// 14 and 15 (16 and 27 kept), OSS 2's 19, OSS 3's 21, OSS 4's 23 lost.
const HCODE_MEDIUM_1_CUT: Cut = Cut {
    code: CodeKind::Hcode,
    elements: (5, 14),
    stale_element: 1,
    stale_col: None,
    image: 28,
    unsynced: &[
        &[12, 13],
        &[14, 15, 16, 27],
        &[17, 18, 19],
        &[20, 21],
        &[22, 23],
        &[24, 25, 26],
    ],
    dropped_pages: &[],
    dropped: &[13, 14, 15, 19, 21, 23],
};

/// Review r39a's (pre-existing): hcode, element 2 stale, the write from element 3 to element
/// 7, cut before mutating call 20 (`EXARAID_S33F_CODE=hcode EXARAID_S33F_STALE_ELEMENT=2
/// EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on `probe_power_cuts_stale`): OSS 0's call 12,
/// OSS 1's 13 (19 kept), OSS 3's 15 (14 kept), OSS 4's 17 (16 kept), OSS 5's 18 lost. Row 0
/// was `Located` in column 2 WITH fixes, by a world fitted with as many columns erased as
/// hcode tolerates: the fix, decoded with the truly stale column unknown, carried the stale
/// element's error into element 1, never stale ('f' WRONG byte 16484 on 467a116b).
const HCODE_R39A_CUT: Cut = Cut {
    code: CodeKind::Hcode,
    elements: (3, 7),
    stale_element: 2,
    stale_col: None,
    image: 20,
    unsynced: &[&[12], &[13, 19], &[], &[14, 15], &[16, 17], &[18]],
    dropped_pages: &[],
    dropped: &[12, 13, 15, 17, 18],
};

/// Review r39a's MEDIUM-1 scene 1 (pre-existing): rdp, element 0 stale, the write from
/// element 3 to element 7, cut before mutating call 22 (`EXARAID_S33F_CODE=rdp
/// EXARAID_S33F_STALE_ELEMENT=0 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on
/// `probe_power_cuts_stale`: the only problem of 306 cuts): OSS 2's call 14, OSS 3's 15 and
/// 16, OSS 4's 17 (20 kept) lost. The stale element itself reads with success, through an
/// arm other than the `Located` one: 'f' WRONG byte 100 (0xee, acknowledged 0xf1) on
/// a809dc5d.
const RDP_R39A_CUT: Cut = Cut {
    code: CodeKind::Rdp,
    elements: (3, 7),
    stale_element: 0,
    stale_col: None,
    image: 22,
    unsynced: &[&[12], &[13], &[14], &[15, 16], &[17, 20], &[18, 19, 21]],
    dropped_pages: &[],
    dropped: &[14, 15, 16, 17],
};

/// Merge review r40a MEDIUM-1 (a trade of session 40's rule (1)): `RDP_R39A_CUT` with running
/// parity COLUMN 4 stale (its OSS loses the write over element 0, so block (0,4), row 0's
/// row parity, misses it) instead of element 0: the one cut of
/// `EXARAID_S33F_CODE=rdp EXARAID_S33F_STALE_COL=4 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only`
/// where rule (1) names a row LOST, on 175ee2cd and after s41a.
const RDP_STALE_COL_4_CUT: Cut = Cut {
    stale_col: Some(4),
    ..RDP_R39A_CUT
};

/// Merge review r40a MEDIUM-2 (pre-existing): `RDP_R39A_CUT`'s scene (rdp, element 0 stale,
/// write 3..7) cut before mutating call 22 in PAGES (`EXARAID_S33F_CODE=rdp
/// EXARAID_S33F_STALE_ELEMENT=0 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,pages` on
/// `probe_power_cuts_stale`: the only problem of 696 cuts, on 64901551 and 175ee2cd): every
/// OSS's unsynced calls land but these cache-zone pages, each (call, page). 'f' WRONG byte
/// 100 (0xee, acknowledged 0xf1).
const RDP_R40A_PAGES_CUT: Cut = Cut {
    code: CodeKind::Rdp,
    elements: (3, 7),
    stale_element: 0,
    stale_col: None,
    image: 22,
    unsynced: &[&[12], &[13], &[14], &[15, 16], &[17, 20], &[18, 19, 21]],
    dropped_pages: &[
        (12, 55),
        (13, 52),
        (13, 54),
        (13, 56),
        (14, 53),
        (14, 54),
        (14, 55),
        (15, 48),
        (15, 49),
        (17, 52),
        (17, 54),
        (20, 52),
        (18, 56),
        (18, 57),
        (18, 58),
        (18, 60),
        (19, 60),
        (19, 61),
        (19, 63),
        (19, 64),
    ],
    dropped: &[],
};

/// Review r39a's MEDIUM-1 scene 2 (pre-existing): xcode, element 0 stale, the write from
/// element 5 to element 14, cut before mutating call 30 (`EXARAID_S33F_CODE=xcode
/// EXARAID_S33F_STALE_ELEMENT=0 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on
/// `probe_power_cuts_stale`: 5 of 442 cuts read wrong, one before call 29 and four before
/// call 30; this is the one with fewest calls dropped): OSS 0's call 11, OSS 1's 16 and 17,
/// OSS 3's 21, 22, 27 and 29 (28 kept) lost. The stale element reads with success: 'f' WRONG
/// byte 100 (0xee, acknowledged 0xf1) on a809dc5d.
const XCODE_R39A_CUT: Cut = Cut {
    code: CodeKind::Xcode,
    elements: (5, 14),
    stale_element: 0,
    stale_col: None,
    image: 30,
    unsynced: &[
        &[10, 11, 12, 13],
        &[14, 15, 16, 17],
        &[18, 19, 20, 26],
        &[21, 22, 27, 28, 29],
        &[23, 24, 25],
    ],
    dropped_pages: &[],
    dropped: &[11, 16, 17, 21, 22, 27, 29],
};

/// Review r39a's MEDIUM-1 scene 2's other cut (s40a): the same scene cut before mutating
/// call 29 (`EXARAID_S33F_CODE=xcode EXARAID_S33F_STALE_ELEMENT=0
/// EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on `probe_power_cuts_stale`: the one cut of
/// write 5..14 still WRONG after s40a, whole calls): OSS 0's calls 11 and 12, OSS 1's 14..17,
/// OSS 2's 19, OSS 3's 22 and 28, OSS 4's 23 and 25 lost. 'f' WRONG byte 100 on 64901551 and
/// after s40a.
const XCODE_R39A_CUT_29: Cut = Cut {
    code: CodeKind::Xcode,
    elements: (5, 14),
    stale_element: 0,
    stale_col: None,
    image: 29,
    unsynced: &[
        &[10, 11, 12, 13],
        &[14, 15, 16, 17],
        &[18, 19, 20, 26],
        &[21, 22, 27, 28],
        &[23, 24, 25],
    ],
    dropped_pages: &[],
    dropped: &[11, 12, 14, 15, 16, 17, 19, 22, 23, 25, 28],
};

/// Review r39a's MEDIUM-1 scene 3 (pre-existing): hdp, element 2 stale, the write from
/// element 3 to element 7, cut before mutating call 20 (`EXARAID_S33F_CODE=hdp
/// EXARAID_S33F_STALE_ELEMENT=2 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on
/// `probe_power_cuts_stale`: 2 of 470 cuts read wrong, this one and one of write 5..14
/// before call 32): OSS 0's calls 14 and 15 (8 kept), OSS 1's 9 and 16 (17 kept), OSS 2's
/// 18, OSS 3's 11 and 13 (12 kept) lost. The stale element reads with success: 'f' WRONG
/// byte 32868 (0x5c, acknowledged 0xf1) on a809dc5d.
const HDP_R39A_CUT: Cut = Cut {
    code: CodeKind::Hdp,
    elements: (3, 7),
    stale_element: 2,
    stale_col: None,
    image: 20,
    unsynced: &[&[8, 14, 15], &[9, 16, 17], &[10, 18, 19], &[11, 12, 13]],
    dropped_pages: &[],
    dropped: &[9, 11, 13, 14, 15, 16, 18],
};

/// Review r39a's MEDIUM-1 scene 4 (s39a's, pre-existing there): hcode, COLUMN 5 stale (its
/// horizontal parity: column 5's OSS loses the write over element 1), the write from
/// element 3 to element 7, cut before mutating call 22 (`EXARAID_S33F_CODE=hcode
/// EXARAID_S33F_STALE_COL=5 EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only` on
/// `probe_power_cuts_stale`): OSS 0's call 12, OSS 1's 13 (20 kept), OSS 3's 15 and 16,
/// OSS 4's 17 and 21 (18 kept), OSS 5's 19 lost. Element 1 is not stale; a decode through
/// the stale parity put its old bytes back: 'f' WRONG byte 16484 (0x90, acknowledged 0xf1)
/// on 467a116b and on 66175e76's parent; named LOST since the lead's mend 66175e76 (every
/// `Located` row needs a column to spare): on a809dc5d the probe's 306 cuts read no
/// problem.
const HCODE_STALE_COL_5_CUT: Cut = Cut {
    code: CodeKind::Hcode,
    elements: (3, 7),
    stale_element: 1,
    stale_col: Some(5),
    image: 22,
    unsynced: &[&[12], &[13, 20], &[14], &[15, 16], &[17, 18, 21], &[19]],
    dropped_pages: &[],
    dropped: &[12, 13, 15, 16, 17, 19, 21],
};

struct Scene {
    top: tempfile::TempDir,
    /// The element the lost write wrote (see `Cut::stale_element`).
    stale_element: usize,
    images: Vec<PowerCutImage>,
    before: Vec<u8>,
    cut_write: std::ops::Range<usize>,
    new: Vec<u8>,
    stripe_bytes: usize,
    element_bytes: usize,
    /// The lost write's element put back as before it (a stale element); else the scene is
    /// the power cut alone, and no block may be LOST.
    stale: bool,
}

/// The scene over `kind` at p=5: a write at bytes 100..900 of `stale_element`, lost by the
/// OSS of its column (or of column `stale_col`: a stale running parity column where it
/// holds the row's parity over that element), then the cut write over `elements`; where
/// `stale` is false the lost write's OSS keeps it: the same calls in the same order (the
/// write is issued either way), one fault fewer.
fn scene_with(
    kind: CodeKind,
    elements: (usize, usize),
    stale_element: usize,
    stale_col: Option<usize>,
    stale: bool,
) -> Scene {
    scene_of_element(
        kind,
        elements,
        stale_element,
        stale_col,
        stale,
        ELEMENT_BYTES,
    )
}

/// `scene_with` at `element` bytes per element: the lost write (element bytes 100..900)
/// and the cut write's ends (byte 3000 of its first element, 1000 of its last) stay at the
/// same element offsets, so each still meets the elements' first checksum block.
fn scene_of_element(
    kind: CodeKind,
    elements: (usize, usize),
    stale_element: usize,
    stale_col: Option<usize>,
    stale: bool,
    element: usize,
) -> Scene {
    images_in_plan_order();
    let code = CodeSpec::array(kind, 5);
    let (top, dir, layout) = init_wcl_without_timeout_with_element(code, element);
    let stripe_bytes = layout.stripe_data_bytes() as usize;
    let cut = PowerCut::new(&dir);
    let store = open_power_cut(&dir, &cut).unwrap();
    let mut before = pattern(1, 4 * stripe_bytes);
    store.put("f", &before).unwrap();
    let stale_col = stale_col.unwrap_or(layout.geometry().data_pos[stale_element].col);
    let stale_oss = layout.oss_of(0, 0, stale_col);
    let mut write = |store: &exaraid_store::Store, at: usize, seed: u64, len: usize| {
        let bytes = pattern(seed, len);
        store.write("f", at as u64, &bytes).unwrap();
        before[at..at + len].copy_from_slice(&bytes);
    };
    write(&store, 0, 3, 2 * element);
    let zone_file = object_file(
        &dir,
        stale_oss,
        &format!("{}.cache", exaraid_store::store::CACHE_OBJECT),
    );
    let snapshot = std::fs::read(&zone_file).unwrap();
    write(&store, stale_element * element + 100, 5, 800);
    if stale {
        std::fs::write(&zone_file, &snapshot).unwrap();
    }
    cut.cut_journal_since_previous_call();
    let cut_write = elements.0 * element + 3000..elements.1 * element + 1000;
    let new = pattern(4, cut_write.len());
    cut.arm();
    store.write("f", cut_write.start as u64, &new).unwrap();
    cut.last_image();
    drop(store);
    Scene {
        top,
        stale_element,
        images: cut.images(),
        before,
        cut_write,
        new,
        stripe_bytes,
        element_bytes: element,
        stale,
    }
}

/// Open the store laid at `laid`, flush it, and read every block of `f`: each reads its
/// acknowledged bytes (either version inside the cut write) or is LOST on record (panics
/// otherwise); the store and the offsets of the LOST blocks.
fn open_flush_and_read(s: &Scene, laid: &std::path::Path, what: &str) -> (Store, Vec<usize>) {
    open_laid_flush_and_read(laid, &[], &s.before, s.cut_write.clone(), &s.new, what)
}

/// `open_flush_and_read`, and no block outside the stale cache stripe LOST, the stale
/// element never read with success (panics otherwise): the offsets of the LOST blocks.
fn read_beside_the_stale_element(s: &Scene, laid: &std::path::Path, what: &str) -> Vec<usize> {
    let (store, lost) = open_flush_and_read(s, laid, what);
    let outside: Vec<usize> = (lost.iter().copied())
        .filter(|&at| at >= s.stripe_bytes)
        .collect();
    assert!(
        outside.is_empty(),
        "{what}: blocks at {outside:?} outside the stale cache stripe LOST"
    );
    let stale_at = s.stale_element * s.element_bytes;
    if let Ok(got) = store.read("f", stale_at as u64, s.element_bytes as u64) {
        assert!(
            got == s.before[stale_at..stale_at + s.element_bytes],
            "{what}: the stale element read with success"
        );
    }
    lost
}

/// The cut before call `image` with the unsynced calls `dropped` lost: its problem, if any
/// (a panic's message: a wrong byte, a loss not on record, the stale element read).
fn problem_at(s: &Scene, calls: &CallChanges, image: usize, dropped: &[usize]) -> Option<String> {
    let unsynced = calls.unsynced(&s.images, image);
    let kept: Vec<usize> = (unsynced.iter().flatten().copied())
        .filter(|j| !dropped.contains(j))
        .collect();
    let units = calls.units_of_calls(&s.images, image, &kept);
    problem_with_units(
        s,
        calls,
        image,
        &units,
        format!("dropped calls {dropped:?}"),
        &[],
        &[],
    )
}

/// `problem_at` in pages mode: the cut before call `image` with the unsynced cache-zone
/// pages `dropped_pages` ((call, page)) lost, every other unsynced unit kept. Each of them
/// must be an unsynced unit there (panics otherwise): a renumbered scene fails here, loudly,
/// rather than laying another cut.
fn problem_at_pages(
    s: &Scene,
    calls: &CallChanges,
    image: usize,
    dropped_pages: &[(usize, usize)],
    (alone_may_lose, stale_must_lose): (&[usize], &[usize]),
) -> Option<String> {
    let zone = format!("objects/{}.cache", exaraid_store::store::CACHE_OBJECT);
    let units: Vec<UnsyncedUnit> = calls.units(&s.images, image).concat();
    let dropped: Vec<UnsyncedUnit> = (dropped_pages.iter())
        .map(|&(call, page)| (call, zone.clone(), Part::Page(page)))
        .collect();
    for unit in &dropped {
        assert!(
            units.contains(unit),
            "{unit:?} is an unsynced unit at image {image} (the pinned cut)"
        );
    }
    let kept: Vec<UnsyncedUnit> = (units.into_iter())
        .filter(|u| !dropped.contains(u))
        .collect();
    let what = format!("dropped pages {dropped_pages:?}");
    problem_with_units(
        s,
        calls,
        image,
        &kept,
        what,
        alone_may_lose,
        stale_must_lose,
    )
}

/// The cut before call `image` keeping the unsynced units `units`: its problem, if any; a
/// power cut alone may lose (on record) only the blocks at `alone_may_lose`; beside the
/// stale element the blocks at `stale_must_lose` must be LOST (a scene that drifted away
/// from the row it pins reads it right and fails here, not passes).
fn problem_with_units(
    s: &Scene,
    calls: &CallChanges,
    image: usize,
    units: &[UnsyncedUnit],
    what: String,
    alone_may_lose: &[usize],
    stale_must_lose: &[usize],
) -> Option<String> {
    let laid_image = lay_out_of_order_image(&s.images, calls, image, units);
    let laid = s.top.path().join("laid");
    PowerCutPoint {
        image_index: image,
        image: &laid_image,
        journal_cut_bytes: laid_image.journal_durable_bytes,
        dropped: vec![false; laid_image.oss_durable.len()],
    }
    .lay(&laid);
    let check = || {
        let lost = read_beside_the_stale_element(s, &laid, &what);
        assert!(
            s.stale || lost.iter().all(|at| alone_may_lose.contains(at)),
            "{what}: the power cut alone LOST blocks at {lost:?}"
        );
        assert!(
            !s.stale || stale_must_lose.iter().all(|at| lost.contains(at)),
            "{what}: blocks at {stale_must_lose:?} beside the stale element not all LOST \
             (LOST: {lost:?}): the scene no longer reaches the row it pins"
        );
    };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check));
    std::fs::remove_dir_all(&laid).unwrap();
    std::fs::remove_dir_all(&laid_image.dir).unwrap();
    caught
        .err()
        .map(|panic| crate::common::panic_message(&*panic))
}

fn scene_and_calls(cut: &Cut) -> (Scene, CallChanges) {
    scene_and_calls_with(cut, true)
}

fn scene_and_calls_with(cut: &Cut, stale: bool) -> (Scene, CallChanges) {
    let s = scene_with(
        cut.code,
        cut.elements,
        cut.stale_element,
        cut.stale_col,
        stale,
    );
    let calls = CallChanges::of(&s.images);
    let unsynced = calls.unsynced(&s.images, cut.image);
    assert_eq!(
        unsynced,
        cut.unsynced.iter().map(|c| c.to_vec()).collect::<Vec<_>>(),
        "the scene's unsynced calls at image {} (plan order)",
        cut.image
    );
    (s, calls)
}

/// s34a: the arm was not `fits` (no world was listed): the two running parity blocks the cut
/// left failing their checksum, (3,1) and (3,3), made columns 1 and 3 blind (xcode's
/// tolerance), and `stale_beside_cut_write` returned `Agrees` on the claim that a failing
/// block's decode is confirmed by its stored checksum, which holds for no running parity
/// block. Now the row must be proven by a world, else it is lost on record (block row 0 of
/// the cache stripe is named LOST here). Fails on 39e5b6e ('f' WRONG byte 16484).
#[test]
fn xcode_stale_element_never_reads_its_stale_bytes_after_an_out_of_order_power_cut() {
    assert_stale_cut_reads_no_wrong_byte(&S33F_CUT);
}

/// The same cut with every unsynced call of each OSS kept or dropped as one (the
/// all-or-none model), at the same image: no problem, so the order is what matters.
#[test]
fn xcode_stale_element_beside_the_same_cut_with_each_oss_all_or_none_reads_right() {
    let (s, calls) = scene_and_calls(&S33F_CUT);
    let unsynced = S33F_CUT.unsynced;
    for mask in 0..1usize << unsynced.len() {
        let dropped: Vec<usize> = (0..unsynced.len())
            .filter(|o| mask >> o & 1 == 1)
            .flat_map(|o| unsynced[o].iter().copied())
            .collect();
        let found = problem_at(&s, &calls, S33F_CUT.image, &dropped);
        assert!(found.is_none(), "{}", found.unwrap());
    }
}

/// Greedy: drop one call of s33f's cut from the set at a time while the cut still reads
/// wrong; prints the smallest set found. Since s34a the cut reads right (LOST on record), so
/// this probe's first assertion fails: kept for the next such cut.
#[test]
#[ignore = "probe: the smallest set of dropped calls that still reads wrong"]
fn probe_smallest_dropped_set_reading_wrong_bytes() {
    let (s, calls) = scene_and_calls(&S33F_CUT);
    let image = S33F_CUT.image;
    let mut dropped = S33F_CUT.dropped.to_vec();
    assert!(
        problem_at(&s, &calls, image, &dropped).is_some(),
        "the sweep's cut reads wrong"
    );
    let mut k = 0;
    while k < dropped.len() {
        let mut fewer = dropped.clone();
        fewer.remove(k);
        match problem_at(&s, &calls, image, &fewer) {
            Some(p) if p.contains("WRONG") || p.contains("stale element read") => dropped = fewer,
            _ => k += 1,
        }
    }
    eprintln!(
        "smallest dropped set: {dropped:?}: {}",
        problem_at(&s, &calls, image, &dropped).unwrap()
    );
}

/// s35b's cut (`S35B_CUT`). Fails on e4b1aa9 ('f' WRONG byte 16484); the row was named LOST
/// by s35b's rule 2, reverted in session 36 (a crash alone lost whole rows), WRONG again on
/// 1469c6d; named LOST since s38b: running parity (3,4), told old and verified, on element
/// 1's chain with all its terms verified, is known in the old version though other data
/// blocks of the row are torn (`some_unchecked_world_completable`), and its equation
/// refutes the stale element.
#[test]
fn xcode_stale_element_beside_blocks_torn_over_nothing_acknowledged_is_never_read() {
    assert_stale_cut_reads_no_wrong_byte(&S35B_CUT);
}

/// r38b's MEDIUM-1 (`HCODE_MEDIUM_1_CUT`). Fails on 860666e2 ('f' WRONG byte 16484).
#[test]
fn hcode_stale_element_beside_a_row_located_with_no_fix_is_never_read() {
    assert_stale_cut_reads_no_wrong_byte(&HCODE_MEDIUM_1_CUT);
}

/// Review r39a's cut (`HCODE_R39A_CUT`). Fails on 467a116b ('f' WRONG byte 16484).
#[test]
fn hcode_stale_element_beside_a_row_located_with_fixes_but_no_column_to_spare_is_never_read() {
    assert_stale_cut_reads_no_wrong_byte(&HCODE_R39A_CUT);
}

/// `HCODE_R39A_CUT` as a power cut ALONE: every block reads right, none LOST.
#[test]
fn hcode_r39a_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&HCODE_R39A_CUT);
}

/// Review r39a's scene 1 (`RDP_R39A_CUT`). Fails on a809dc5d and 64901551 ('f' WRONG byte
/// 100): no world was checked, the world completable, and no offset of block row 0 calm
/// (the write met every column there). Since s40a the row LOST on record: element 0's row
/// chain (elements 0..3 and its row parity), met by the write only at element 3's bytes
/// 3000..4096, disagrees at bytes 100..900 (`chain_calm_offsets_disagree`).
#[test]
fn rdp_stale_element_0_after_an_out_of_order_power_cut_is_never_read() {
    assert_stale_cut_reads_no_wrong_byte(&RDP_R39A_CUT);
}

/// `RDP_R39A_CUT` as a power cut ALONE: every block reads right, none LOST.
#[test]
fn rdp_r39a_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&RDP_R39A_CUT);
}

/// `RDP_STALE_COL_4_CUT` reads every acknowledged block, none LOST (a stale running parity
/// column with every data element right). Fails on 175ee2cd and after s41a: blocks 0 and
/// 16384 LOST on record (rule (1): row 0's row parity chain disagrees at bytes 100..899).
#[test]
#[ignore = "OPEN r40a MEDIUM-1, a trade kept (LOST on record, never WRONG): rdp, parity column 4 stale, write 3..7 cut before call 22 (dropped 14..17): row 0 LOST by rule (1). Traced (s41a): the chain (0,4) = D0+D1+D2+D3 disagrees at 100..899, all five blocks verified; the same disk with element 0 stale instead (RDP_R39A_CUT) disagrees on the same chain at the same offsets, and element 0's only other chain (its diagonal, (0,5)) meets the write's row-1 blocks at every offset (no calm offset; s40a: each version erases four columns there): nothing tells which block of the chain is stale, so skipping the parity block reads RDP_R39A_CUT WRONG again"]
fn rdp_stale_parity_column_4_beside_the_r39a_cut_loses_nothing() {
    let (s, calls) = scene_and_calls_with(&RDP_STALE_COL_4_CUT, true);
    let unsynced = calls.unsynced(&s.images, RDP_STALE_COL_4_CUT.image);
    let kept: Vec<usize> = (unsynced.iter().flatten().copied())
        .filter(|j| !RDP_STALE_COL_4_CUT.dropped.contains(j))
        .collect();
    let units = calls.units_of_calls(&s.images, RDP_STALE_COL_4_CUT.image, &kept);
    let laid_image = lay_out_of_order_image(&s.images, &calls, RDP_STALE_COL_4_CUT.image, &units);
    let laid = s.top.path().join("laid");
    PowerCutPoint {
        image_index: RDP_STALE_COL_4_CUT.image,
        image: &laid_image,
        journal_cut_bytes: laid_image.journal_durable_bytes,
        dropped: vec![false; laid_image.oss_durable.len()],
    }
    .lay(&laid);
    let lost = read_beside_the_stale_element(&s, &laid, "stale column 4");
    assert!(lost.is_empty(), "blocks at {lost:?} LOST");
}

/// Merge review r40a MEDIUM-2 (`RDP_R40A_PAGES_CUT`). Fails on 175ee2cd ('f' WRONG byte
/// 100). Since s41a block row 0 (bytes 0 and 16384) is LOST on record, and must be: review
/// r41a LOW-1, a drifted scene would read the row right and test nothing.
#[test]
fn rdp_stale_element_0_after_a_power_cut_out_of_order_in_pages_is_never_read() {
    let cut = &RDP_R40A_PAGES_CUT;
    let (s, calls) = scene_and_calls_with(cut, true);
    let row_0 = [0, 16384];
    let found = problem_at_pages(&s, &calls, cut.image, cut.dropped_pages, (&[], &row_0));
    assert!(found.is_none(), "{}", found.unwrap());
}

/// `RDP_R40A_PAGES_CUT` as a power cut ALONE: every block reads right, none of block row 0
/// (bytes 0 and 16384, where the stale scene's row is named LOST) LOST. Blocks 4096, 8192,
/// 12288, 20480, 24576 and 28672 (block rows 1..3 of elements 0 and 1) are LOST on record
/// on 175ee2cd and after s41a alike (`stale_beside_cut_write` names them `Unlocated` at its
/// blind-row rule, not rule (1)'s arm): pre-existing, allowed here, any other loss fails.
#[test]
fn rdp_r40a_pages_cut_alone_loses_no_block_of_row_0() {
    let cut = &RDP_R40A_PAGES_CUT;
    let (s, calls) = scene_and_calls_with(cut, false);
    let rows_1_to_3 = [4096, 8192, 12288, 20480, 24576, 28672];
    let found = problem_at_pages(
        &s,
        &calls,
        cut.image,
        cut.dropped_pages,
        (&rows_1_to_3, &[]),
    );
    assert!(found.is_none(), "{}", found.unwrap());
}

/// Review r39a's scene 2 (`XCODE_R39A_CUT`). Fails on a809dc5d and 64901551 ('f' WRONG byte
/// 100): no world was checked and the world was completable. Since s40a the row LOST on
/// record: in the new version, (4,2)'s equation (elements 0, 9, 13) has element 13 (told
/// old, so unknown there) alone unknown, and its solution fails the crc the write
/// journaled for element 13's new block (`completable`).
#[test]
fn xcode_stale_element_0_after_an_out_of_order_power_cut_is_never_read() {
    assert_stale_cut_reads_no_wrong_byte(&XCODE_R39A_CUT);
}

/// `XCODE_R39A_CUT` as a power cut ALONE: every block reads right, none LOST.
#[test]
fn xcode_r39a_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&XCODE_R39A_CUT);
}

/// `XCODE_R39A_CUT_29`. Fails on 64901551 and after s40a ('f' WRONG byte 100). Traced (s40a):
/// block row 0 takes the unchecked-world arm (one world, every block told, `fit` [None]);
/// element 0's chains are (3,3) = D0+D6+D12 (told new; D6 told old, D12 torn) and (4,2) =
/// D0+D9+D13 (told new; D9 and D13 torn): two unknown blocks in each in the new version, and
/// in the old one (every data block but D0 and D1 zeros there) their parity blocks are new
/// on disk, old bytes told by nothing. No equation reaches the stale bytes with a known or
/// told value, and the cut alone takes the same arm and reads right
/// (`xcode_r39a_cut_29_alone_loses_nothing`): a rule naming this row LOST loses that crash
/// alone ("OPEN after session 35" (1)(g)'s class).
///
/// Closed in session 43 (s43b), un-ignored: the cache-zone witness (`State::cache_witness`)
/// keeps the crc of element 0's acknowledged bytes (the write its OSS lost): the open finds
/// the stale bytes unlike it and records them LOST, never read as right.
#[test]
fn xcode_stale_element_0_after_an_out_of_order_power_cut_before_call_29_is_never_read() {
    assert_stale_cut_reads_no_wrong_byte(&XCODE_R39A_CUT_29);
}

/// `XCODE_R39A_CUT_29` as a power cut ALONE: every block reads right, none LOST.
#[test]
fn xcode_r39a_cut_29_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&XCODE_R39A_CUT_29);
}

/// Review r39a's scene 3 (`HDP_R39A_CUT`). Fails on a809dc5d ('f' WRONG byte 32868).
///
/// Was ignored OPEN: 'f' WRONG byte 32868 on a809dc5d, s40b and d1404252 (review r39a
/// MEDIUM-1; row 0 blind_unconfirmed, the old version's world fitting by one told crc,
/// the stale column's error decoded into unknown blocks). Closed in session 43 (s43b),
/// un-ignored: the cache-zone witness keeps the crc of element 2's acknowledged bytes, and
/// the open records the stale bytes LOST, never read as right.
#[test]
fn hdp_stale_element_2_after_an_out_of_order_power_cut_is_never_read() {
    assert_stale_cut_reads_no_wrong_byte(&HDP_R39A_CUT);
}

/// `HDP_R39A_CUT` as a power cut ALONE: every block reads right, none LOST. On a809dc5d
/// and 64901551 the cut alone LOSES (on record, no byte wrong) blocks 4096, 8192, 12288,
/// 20480, 24576 and 28672 of the cache stripe (block rows 1..3 of elements 0 and 1): s34a's
/// blind-row rule (`blind_unconfirmed`: torn running parity blocks (1,1) and (1,2) blind
/// columns 1 and 2, hdp's tolerance; no world checked) named them `Unlocated`, though six
/// known positions of those columns (hdp's parity lies inside data columns) check the old
/// version's decode. Since s40b they count as a check where they prove the row against any
/// one stale column (`unknown_cells_with_any_column_determined`).
#[test]
fn hdp_r39a_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&HDP_R39A_CUT);
}

/// Review r39a's scene 4 (`HCODE_STALE_COL_5_CUT`). Fails on 467a116b and 83134864 ('f'
/// WRONG byte 16484); passes since 66175e76 (the row LOST on record), so not ignored: it
/// keeps the scene from reading wrong again.
#[test]
fn hcode_stale_parity_column_5_after_an_out_of_order_power_cut_reads_no_wrong_byte() {
    assert_stale_cut_reads_no_wrong_byte(&HCODE_STALE_COL_5_CUT);
}

/// `HCODE_STALE_COL_5_CUT` as a power cut ALONE: every block reads right, none LOST.
#[test]
fn hcode_stale_col_5_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&HCODE_STALE_COL_5_CUT);
}

/// `HCODE_MEDIUM_1_CUT` as a power cut ALONE: every block reads right, none LOST (the guard
/// of the rule against the stale element there).
#[test]
fn hcode_medium_1_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&HCODE_MEDIUM_1_CUT);
}

/// s38b's guard: `S35B_CUT` as a power cut ALONE (the OSS of element 1 keeps its write,
/// nothing stale): every block reads right, none LOST. A crash alone leaves the stale
/// scene's shape (data blocks torn over nothing acknowledged, running parity told old
/// beside them), and s35b's rule 2 named such rows LOST (s25a's crash_alone tests, session
/// 36's revert): with that rule put back (a failing block nothing confirms: `Unlocated`),
/// this cut alone LOSES block row 0 of the cache stripe.
#[test]
fn xcode_s35b_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&S35B_CUT);
}

/// `S33F_CUT` as a power cut ALONE: blocks 0 and 16384 (block row 0 of the cache stripe's
/// elements 0 and 1) LOST, on 1469c6d as with s38b's rule: s34a's blind-row rule (two
/// running parity blocks failing their checksum, (3,1) and (3,3), blind columns 1 and 3,
/// nothing confirms a decode: `Unlocated`), the loss s34a traded knowingly for s33f's WRONG
/// BYTES ("OPEN after session 34" (1)(a)). Not introduced by s38b; built to keep it named.
#[test]
#[ignore = "OPEN: s34a's blind-row rule names the row LOST after this power cut alone (pre-existing on 1469c6d, 'OPEN after session 34' (1)(a))"]
fn xcode_s33f_cut_alone_loses_nothing() {
    assert_cut_alone_loses_nothing(&S33F_CUT);
}

/// `cut` laid over the scene with nothing stale: no block lost, none wrong.
fn assert_cut_alone_loses_nothing(cut: &Cut) {
    assert_cut_has_no_problem(cut, false);
}

/// `cut` laid over the stale scene: no byte wrong, the stale element never read, losses
/// only in the stale cache stripe and on record.
fn assert_stale_cut_reads_no_wrong_byte(cut: &Cut) {
    assert_cut_has_no_problem(cut, true);
}

fn assert_cut_has_no_problem(cut: &Cut, stale: bool) {
    let (s, calls) = scene_and_calls_with(cut, stale);
    let found = match cut.dropped_pages.is_empty() {
        true => problem_at(&s, &calls, cut.image, cut.dropped),
        false => problem_at_pages(&s, &calls, cut.image, cut.dropped_pages, (&[], &[])),
    };
    assert!(found.is_none(), "{}", found.unwrap());
}

/// s38b's probe, the crash-alone twin of s32a's sweep: every power cut
/// `for_each_power_cut` lays (with `EXARAID_POWER_CUT_OUT_OF_ORDER` set, the out-of-order
/// ones too) of this scene's writes 3..7 and 5..14 with NOTHING stale, counted: cuts that
/// LOSE blocks (a crash alone must lose none) and cuts with any other problem (WRONG bytes,
/// a loss not on record). A rule against the stale element is measured by it: its count of
/// losing cuts must not grow. The code is `EXARAID_S33F_CODE` (a `CodeKind` name, p=5;
/// xcode where unset). Run: `EXARAID_POWER_CUT_OUT_OF_ORDER=16,1,only cargo test -p
/// exaraid-store --test crash_images
/// s33f_stale_element_read_after_an_out_of_order_power_cut::probe_power_cuts_alone --
/// --ignored --nocapture`.
#[test]
#[ignore = "probe: counts the losing cuts of the scene's power cuts alone (set EXARAID_POWER_CUT_OUT_OF_ORDER)"]
fn probe_power_cuts_alone() {
    let problems = probe_power_cuts(false);
    assert_eq!(problems, 0, "a power cut alone read wrong");
}

/// The same sweep with element 1 stale (s32a's sweep, on any code, `EXARAID_S33F_CODE`):
/// each cut's problem printed (`PROBLEM`: a WRONG byte, the stale element read, a loss not
/// on record or outside the stale cache stripe) and each cut naming a loss (`LOST-CUT`).
#[test]
#[ignore = "probe: counts the problems and losses of the stale scene's power cuts (set EXARAID_POWER_CUT_OUT_OF_ORDER)"]
fn probe_power_cuts_stale() {
    let problems = probe_power_cuts(true);
    assert_eq!(
        problems, 0,
        "a power cut beside the stale element read wrong"
    );
}

/// Every power cut of writes 3..7 and 5..14 over the scene (`stale` or alone) on the code
/// `EXARAID_S33F_CODE` names: each losing cut and each problem printed; the problems.
fn probe_power_cuts(stale: bool) -> usize {
    let kind = std::env::var("EXARAID_S33F_CODE").map_or(CodeKind::Xcode, |name| {
        CodeKind::from_name(&name).unwrap_or_else(|e| panic!("EXARAID_S33F_CODE={name}: {e}"))
    });
    // `EXARAID_S33F_STALE_ELEMENT` (1 where unset) and `EXARAID_S33F_STALE_COL` (another
    // column's OSS loses the write): read here only, so no test's scene follows them.
    let stale_element = std::env::var("EXARAID_S33F_STALE_ELEMENT").map_or(1, |e| {
        e.parse()
            .expect("EXARAID_S33F_STALE_ELEMENT: an element index")
    });
    let stale_col = std::env::var("EXARAID_S33F_STALE_COL")
        .ok()
        .map(|col| col.parse().expect("EXARAID_S33F_STALE_COL: a column"));
    let element_bytes = std::env::var(ELEMENT_BYTES_ENV).map_or(ELEMENT_BYTES, |e| {
        e.parse()
            .unwrap_or_else(|_| panic!("{ELEMENT_BYTES_ENV}={e}: a byte count"))
    });
    let mut problems = 0;
    for elements in [(3, 7), (5, 14)] {
        let s = scene_of_element(
            kind,
            elements,
            stale_element,
            stale_col,
            stale,
            element_bytes,
        );
        let (mut points, mut losing) = (0, 0);
        for_each_power_cut(&s.images, |point| {
            points += 1;
            let what = point.what();
            let laid = s.top.path().join("laid-alone");
            point.lay(&laid);
            let check = || match stale {
                true => read_beside_the_stale_element(&s, &laid, &what),
                false => open_flush_and_read(&s, &laid, &what).1,
            };
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) {
                Ok(lost) if lost.is_empty() => {}
                Ok(lost) => {
                    losing += 1;
                    eprintln!("LOST-CUT {what}: blocks at {lost:?}");
                }
                Err(panic) => {
                    problems += 1;
                    let message = crate::common::panic_message(&*panic);
                    eprintln!("PROBLEM {what}: {message}");
                }
            }
            std::fs::remove_dir_all(&laid).unwrap();
        });
        eprintln!(
            "{kind:?} element {element_bytes} write {elements:?} stale {stale}: {points} power cuts, {losing} losing, {problems} problems so far"
        );
    }
    problems
}
