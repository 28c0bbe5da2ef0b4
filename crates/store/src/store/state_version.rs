//! The downgrade path (note7 OPEN 0/6): before the first journal record a binary of session 7
//! or before cannot parse, the state file's header turns to version 2, which such a binary
//! refuses (it reads version 1 only), changing nothing; a checkpoint that leaves no such
//! record turns it back to 1.

use super::*;

fn header(dir: &Path) -> String {
    let bytes = std::fs::read(dir.join(STATE_FILE)).unwrap();
    let nl = bytes.iter().position(|&b| b == b'\n').unwrap();
    String::from_utf8(bytes[..nl].to_vec()).unwrap()
}

/// What a binary of session 7 checks of the state file: the header version must be 1.
fn older_binary_reads(dir: &Path) -> bool {
    header(dir).starts_with("EXARAID state v1 ")
}

/// A store holding file "f" (5000 bytes of 7), checkpointed: header version 1.
fn store_holding_f(dir: &Path) -> Store {
    let mut opts = InitOptions::with_oss_count(dir, 3, CodeSpec::raid5(2));
    opts.element_bytes = 4096;
    let store = Store::init(dir, &opts).unwrap();
    store.put("f", &[7u8; 5000]).unwrap();
    store.checkpoint().unwrap();
    assert!(older_binary_reads(dir), "{}", header(dir));
    store
}

fn assert_header_version(dir: &Path, version: u32) {
    let want = format!("EXARAID state v{version} ");
    assert!(header(dir).starts_with(&want), "{}", header(dir));
}

/// The scene of a record that names `version` and lives in the state until the planner
/// restarts: journaled, the header says `version`; a snapshot that holds it keeps
/// `version` after its journal is truncated; this binary opens it, and the close restarts
/// the planner (nothing cached, no window), which drops it: version 1 again. `held` checks
/// that the state took the record.
fn record_holds_the_header_version_until_the_planner_restarts(
    rec: Rec,
    version: u32,
    held: impl Fn(&State) -> bool,
) {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    {
        let mut core = store.core.lock();
        store.journal(&mut core, rec, true).unwrap();
        assert!(held(&core.state), "the state holds the record");
    }
    assert_header_version(dir.path(), version);
    store.checkpoint().unwrap();
    assert_header_version(dir.path(), version);
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
}

#[test]
fn a_record_older_binaries_cannot_parse_turns_the_state_header_to_version_2_until_a_checkpoint_drops_it(
) {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    // A record every binary reads leaves the header alone: a remove. (A put journals its
    // write's crcs, a newer record, on raid5 too since s25b: checkpointed first.)
    store.put("g", &[8u8; 100]).unwrap();
    store.put("h", &[9u8; 100]).unwrap();
    store.checkpoint().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
    store.remove("h").unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
    {
        let mut core = store.core.lock();
        // Outside a settle it changes nothing (`State::apply`): the record is the point.
        store.journal(&mut core, Rec::SettleSynced, true).unwrap();
    }
    assert!(!older_binary_reads(dir.path()), "{}", header(dir.path()));
    assert!(header(dir.path()).starts_with("EXARAID state v2 "));
    drop(store);
    // This binary opens it (and replays the record); the close's checkpoint empties the
    // journal, and the header is 1 again.
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    assert!(!older_binary_reads(dir.path()));
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("g").unwrap(), vec![8u8; 100]);
    store.close().unwrap();
}

/// A snapshot that itself holds a `Forget` (in the planner inputs, until the planner
/// restarts) is written with header version 2 even after its journal is truncated.
#[test]
fn a_snapshot_holding_a_forget_input_keeps_version_2() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = InitOptions::with_oss_count(dir.path(), 3, CodeSpec::raid5(2));
    opts.element_bytes = 4096;
    let store = Store::init(dir.path(), &opts).unwrap();
    {
        let mut core = store.core.lock();
        store
            .journal(&mut core, Rec::Input(Input::Forget { file: 99 }), true)
            .unwrap();
    }
    store.checkpoint().unwrap();
    assert!(header(dir.path()).starts_with("EXARAID state v2 "));
    // The planner restarts (nothing cached, no window) at a clean close: nothing newer left.
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
}

/// A record session-8 binaries cannot parse (added in session 9) turns the header to version 3,
/// which they refuse (they read 1 and 2); a checkpoint that leaves none turns it back to 1.
/// Review s9d: with version 2 only, a session-8 binary cut such a record off as a torn tail.
#[test]
fn a_record_session_8_binaries_cannot_parse_turns_the_state_header_to_version_3() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    {
        let mut core = store.core.lock();
        // A session-8 record first: version 2.
        store.journal(&mut core, Rec::SettleSynced, true).unwrap();
        assert!(header(dir.path()).starts_with("EXARAID state v2 "));
        // No OSS and no plan: it changes nothing, the record is the point.
        let rec = Rec::SyncsFailed {
            osses: Vec::new(),
            plans: Vec::new(),
        };
        store.journal(&mut core, rec, true).unwrap();
        // And a session-8 record after it does not lower it.
        store.journal(&mut core, Rec::SettleSynced, true).unwrap();
    }
    assert!(
        header(dir.path()).starts_with("EXARAID state v3 "),
        "{}",
        header(dir.path())
    );
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    assert!(header(dir.path()).starts_with("EXARAID state v3 "));
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
}

/// The records session 11 adds for refused writes and window block crcs (review s9s S9-1)
/// turn the header to version 4, which a session-9 binary refuses (it would drop them, and
/// recover a refused write as a cut one, blessing bit rot); a snapshot that holds them keeps
/// version 4; a checkpoint that leaves none turns it back to 1.
#[test]
fn records_of_refused_writes_and_window_block_crcs_turn_the_state_header_to_version_4() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    let v4 = |dir: &Path| header(dir).starts_with("EXARAID state v4 ");
    for rec in [
        // No such plan, no file: they change nothing, the record is the point.
        Rec::WroteNothing {
            plans: vec![1 << 40],
            file_sizes: Vec::new(),
        },
        Rec::WindowBlockCrcs(crate::state::WindowBlockCrcs {
            plan: 1 << 40,
            file: 99,
            pieces: Vec::new(),
            edges: Vec::new(),
            page_cuts: Vec::new(),
        }),
    ] {
        {
            let mut core = store.core.lock();
            store.journal(&mut core, rec, true).unwrap();
        }
        assert!(v4(dir.path()), "{}", header(dir.path()));
        // The snapshot holds it (a plan of this planner epoch): still version 4.
        store.checkpoint().unwrap();
        assert!(v4(dir.path()), "{}", header(dir.path()));
    }
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    // The planner restarts at a clean close: nothing of session 11 left, version 1 again.
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
}

/// A settle that promises every stripe's `SettleSums` (session 11's `SettleBegin` mark)
/// turns the header to version 4 before its first record, which session-9 binaries refuse
/// (they would drop the mark); the settle's end and checkpoint turn it back to 1.
#[test]
fn a_settle_begin_promising_every_stripes_sums_turns_the_state_header_to_version_4() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    {
        let mut core = store.core.lock();
        assert!(
            store.settle_records_every_stripe(),
            "this build promises it"
        );
        // No stripe: a settle begun that writes nothing; the record is the point.
        let rec = Rec::SettleBegin {
            stripes: Vec::new(),
            records_every_stripe: true,
        };
        store.journal(&mut core, rec, true).unwrap();
        assert!(core.state.settle_records_every_stripe);
    }
    assert!(
        header(dir.path()).starts_with("EXARAID state v4 "),
        "{}",
        header(dir.path())
    );
    drop(store);
    // This binary opens it, finishes the settle (its end drops the mark) and the close's
    // checkpoint turns the header back to 1.
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    assert!(!store.core.lock().state.settle_records_every_stripe);
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
}

/// Session 11's record of a delayed window's END parity crcs (`Rec::EndParityCrcs`, review
/// s9s S9-5) turns the header to version 4, which session-9 binaries refuse (they read 1 to
/// 3: they would cut it off as a torn tail, or drop it from a snapshot unseen); while a
/// snapshot holds such crcs it stays 4; a checkpoint that leaves none turns it back to 1.
#[test]
fn end_parity_crcs_turn_the_state_header_to_version_4_until_a_checkpoint_drops_them() {
    let crcs = crate::state::WriteParityCrcs {
        // No such plan: the record stays in the state until the planner restarts.
        plan: 99,
        file: 0,
        pieces: vec![crate::state::ParityPieceCrcs::of(
            (0, 0, 2),
            0,
            &[1u8; 4096],
        )],
        edge_blocks: Vec::new(),
        page_cuts: Vec::new(),
    };
    record_holds_the_header_version_until_the_planner_restarts(
        Rec::EndParityCrcs(crcs.clone()),
        crate::superblock::STATE_VERSION_SESSION11_RECORDS,
        |state| state.end_parity_crcs == vec![crcs.clone()],
    );
}

/// Session 14's parity row of a WCL write's running parity crcs (`ParityPieceCrcs::row`: an
/// array code holds several parity elements in one column) turns the header to version 7,
/// which session-13 binaries refuse (they would drop the row unseen, and take one row's
/// parity block for another's when they prove a cut write whole); while a snapshot holds
/// such crcs it stays 7; the planner's restart drops them and turns it back to 1. Row 0 (a
/// one-row code) is left out of the record: the same bytes, and version, as before.
#[test]
fn parity_crcs_naming_a_row_turn_the_state_header_to_version_7_until_dropped() {
    let crcs = |row: usize| crate::state::WriteParityCrcs {
        // No such plan: the record stays in the state until the planner restarts.
        plan: 99,
        file: 0,
        pieces: vec![crate::state::ParityPieceCrcs::of(
            (0, row, 2),
            0,
            &[1u8; 4096],
        )],
        edge_blocks: Vec::new(),
        page_cuts: Vec::new(),
    };
    let row_0 = serde_json::to_string(&Rec::WriteParityCrcs(crcs(0))).unwrap();
    assert!(!row_0.contains("row"), "{row_0}");
    assert_eq!(
        Rec::WriteParityCrcs(crcs(0)).reader_version(),
        crate::superblock::STATE_VERSION_SESSION9_RECORDS
    );
    record_holds_the_header_version_until_the_planner_restarts(
        Rec::WriteParityCrcs(crcs(1)),
        crate::superblock::STATE_VERSION_SESSION14_RECORDS,
        |state| state.write_parity_crcs == vec![crcs(1)],
    );
}

/// Session 42's crcs of the running parity bytes a write read under each piece
/// (`ParityPieceCrcs::old_block_crcs`, s42a) need no new reader version: an older binary
/// drops the field unseen and decides the row as it did without it, as the recovery of
/// this binary decides a record without it (`old_crc_of` is `None`: `live_pieces_refute`
/// refutes nothing). A piece without them (zeros under it, or an older binary's record)
/// serializes to the same bytes as before.
#[test]
fn parity_crcs_of_the_block_before_the_write_keep_the_record_version_and_older_records_parse() {
    let (at, new, old) = ((0, 0, 2), [1u8; 500], [2u8; 500]);
    let without = crate::state::ParityPieceCrcs::of(at, 1000, &new);
    let with = crate::state::ParityPieceCrcs::of_with_old(at, 1000, &new, &old);
    assert_eq!(with.old_crc_of(1000, 1500), Some(crc32c::crc32c(&old)));
    assert_eq!(with.crc_of(1000, 1500), without.crc_of(1000, 1500));
    let bytes_before = serde_json::to_string(&without).unwrap();
    assert!(!bytes_before.contains("old_block_crcs"), "{bytes_before}");
    let mut older_record = serde_json::to_value(&with).unwrap();
    older_record
        .as_object_mut()
        .unwrap()
        .remove("old_block_crcs")
        .expect("the field is written where the old bytes are known");
    let parsed: crate::state::ParityPieceCrcs = serde_json::from_value(older_record).unwrap();
    assert_eq!(parsed, without);
    assert_eq!(parsed.old_crc_of(1000, 1500), None);
    let rec = |piece| {
        Rec::WriteParityCrcs(crate::state::WriteParityCrcs {
            plan: 99,
            file: 0,
            pieces: vec![piece],
            edge_blocks: Vec::new(),
            page_cuts: Vec::new(),
        })
    };
    assert_eq!(rec(with).reader_version(), rec(without).reader_version());
}

/// Review r42a LOW-3: a binary of before session 42 reading a record that holds
/// `old_block_crcs`. Its record types are the `Before42` ones below (the fields and serde
/// attributes of 28327fda's `Rec::WriteParityCrcs`, `WriteParityCrcs` and
/// `ParityPieceCrcs`; the record's other fields are unchanged since): serde skips a field
/// its struct does not name, so it reads the piece as one without the old crcs and decides
/// the row as it did. Why no version bump is needed hinges on that, and it holds one session
/// on only while this binary's record types keep it: a record of a later binary with one
/// more field must read here too, so a `#[serde(deny_unknown_fields)]` on
/// `ParityPieceCrcs` or `WriteParityCrcs` fails this test (an older binary would then
/// refuse the journal, not skip the field).
#[test]
fn an_older_binary_reads_parity_crcs_holding_the_old_block_crcs_as_without_them() {
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    struct ParityPieceCrcsBefore42 {
        stripe: u64,
        #[serde(default)]
        row: usize,
        col: usize,
        offset_bytes: u64,
        len_bytes: u64,
        block_crcs: Vec<u32>,
    }
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    struct WriteParityCrcsBefore42 {
        plan: u64,
        file: u64,
        pieces: Vec<ParityPieceCrcsBefore42>,
        #[serde(default)]
        edge_blocks: Vec<crate::state::EdgeBlockCrc>,
        #[serde(default)]
        page_cuts: Vec<crate::state::WindowPageCutCrcs>,
    }
    // Only the variant read here: serde's external tag picks it by name.
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    enum RecBefore42 {
        WriteParityCrcs(WriteParityCrcsBefore42),
    }
    let (at, new, old) = ((0, 1, 2), [1u8; 500], [2u8; 500]);
    let crcs = crate::state::WriteParityCrcs {
        plan: 99,
        file: 3,
        pieces: vec![crate::state::ParityPieceCrcs::of_with_old(
            at, 1000, &new, &old,
        )],
        edge_blocks: Vec::new(),
        page_cuts: Vec::new(),
    };
    let json = serde_json::to_string(&Rec::WriteParityCrcs(crcs.clone())).unwrap();
    assert!(json.contains("old_block_crcs"), "{json}");
    let piece = &crcs.pieces[0];
    assert!(
        !piece.old_block_crcs.is_empty(),
        "the scene: old crcs on record"
    );
    let read_by_older: RecBefore42 = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("a binary of before session 42 reads {json}: {e}"));
    assert_eq!(
        read_by_older,
        RecBefore42::WriteParityCrcs(WriteParityCrcsBefore42 {
            plan: 99,
            file: 3,
            pieces: vec![ParityPieceCrcsBefore42 {
                stripe: 0,
                row: 1,
                col: 2,
                offset_bytes: 1000,
                len_bytes: 500,
                block_crcs: piece.block_crcs.clone(),
            }],
            edge_blocks: Vec::new(),
            page_cuts: Vec::new(),
        })
    );

    // One session on: this binary is the older one, and a field it does not know is added
    // to the piece and to the record around it.
    let mut later = serde_json::to_value(Rec::WriteParityCrcs(crcs.clone())).unwrap();
    let record = later["WriteParityCrcs"].as_object_mut().unwrap();
    record.insert("a_later_field".into(), serde_json::json!([7, 8]));
    let pieces = record["pieces"].as_array_mut().unwrap();
    let piece_of_later = pieces[0].as_object_mut().unwrap();
    piece_of_later.insert("a_later_field".into(), serde_json::json!({"x": 1}));
    let read_by_this: Rec = serde_json::from_value(later.clone())
        .unwrap_or_else(|e| panic!("this binary reads a later record {later}: {e}"));
    match read_by_this {
        Rec::WriteParityCrcs(back) => assert_eq!(back, crcs),
        other => panic!("read as another record: {other:?}"),
    }
}

/// Session 49's crcs of a running parity piece's bytes before the write on each side of a
/// page boundary inside its part of a block (`ParityPieceCrcs::old_page_sides`, s49a):
/// taken only across a boundary, told back only for exactly that block and boundary, and
/// the record's reader version unchanged (an older binary drops the field unseen:
/// `an_older_binary_reads_parity_page_side_crcs_as_without_them`). A piece of an older
/// binary's record parses without them and tells none (recovery then knows nothing more
/// of a torn parity block: it decides as before). Cost: at most one entry per block of a
/// piece cut by a boundary, each at most `PAGE_SIDE_JSON_BYTES_MAX` bytes of the journal
/// line, and the field's name once per piece that has any (`OLD_PAGE_SIDES_FIELD_JSON_BYTES`;
/// measured here: printed with `--nocapture`).
#[test]
fn parity_page_side_crcs_split_a_piece_at_its_page_boundary_and_older_records_parse() {
    // The 12000+12000 seed 1 scene's P (review r45d, #170): a piece 3808..4096 of block
    // 0, a page boundary 4072 bytes into that block; and a piece 0..3808 beside it.
    const CUT_AT_BYTES: usize = 4072;
    // One `ParityPageSideCrcs` as JSON with its comma, at its widest (block 1023 of a
    // 4 MiB element, 10-digit crcs): `{"block":1023,"cut_at_bytes":4095,
    // "old_head_crc":4294967295,"old_tail_crc":4294967295},` is 87 bytes.
    const PAGE_SIDE_JSON_BYTES_MAX: usize = 87;
    // `,"old_page_sides":[]`: once per piece that has any.
    const OLD_PAGE_SIDES_FIELD_JSON_BYTES: usize = 20;
    let new: Vec<u8> = (0..288u32).map(|x| x as u8).collect();
    let old: Vec<u8> = (0..288u32).map(|x| (x * 7 + 1) as u8).collect();
    let cut = |b: u64| (b == 0).then_some(CUT_AT_BYTES);
    let at = (0, 0, 4);
    let plain = crate::state::ParityPieceCrcs::of_with_old(at, 3808, &new, &old);
    let across = plain.clone().with_old_page_sides(&old, cut);
    assert_eq!(
        across.old_page_sides,
        vec![crate::state::ParityPageSideCrcs {
            block: 0,
            cut_at_bytes: CUT_AT_BYTES as u32,
            old_head_crc: crc32c::crc32c(&old[..264]),
            old_tail_crc: crc32c::crc32c(&old[264..]),
        }]
    );
    assert_eq!(
        across.old_page_sides_of(0, CUT_AT_BYTES),
        Some([
            ((3808, 4072), crc32c::crc32c(&old[..264])),
            ((4072, 4096), crc32c::crc32c(&old[264..]))
        ])
    );
    assert_eq!(across.old_page_sides_of(0, 4000), None, "another boundary");
    assert_eq!(
        across.old_page_sides_of(1, CUT_AT_BYTES),
        None,
        "another block"
    );
    assert_eq!(plain.old_page_sides_of(0, CUT_AT_BYTES), None);
    // A piece lying wholly on one side: `old_block_crcs` covers it, nothing more.
    let beside = crate::state::ParityPieceCrcs::of_with_old(at, 0, &[5u8; 3808], &[6u8; 3808])
        .with_old_page_sides(&[6u8; 3808], cut);
    assert!(beside.old_page_sides.is_empty());
    assert_eq!(serde_json::to_string(&beside).unwrap(), {
        let without = crate::state::ParityPieceCrcs::of_with_old(at, 0, &[5u8; 3808], &[6u8; 3808]);
        serde_json::to_string(&without).unwrap()
    });

    // Cost per piece cut by a boundary, and the reader version unchanged.
    page_sides_cost_and_reader_version(
        (&across, &plain),
        (OLD_PAGE_SIDES_FIELD_JSON_BYTES, PAGE_SIDE_JSON_BYTES_MAX),
        "old_page_sides",
    );
    let widest = crate::state::ParityPageSideCrcs {
        block: (crate::backend::ELEMENT_BYTES_MAX / crate::backend::CHECKSUM_BLOCK_BYTES - 1)
            as u64,
        cut_at_bytes: 4095,
        old_head_crc: u32::MAX,
        old_tail_crc: u32::MAX,
    };
    assert_eq!(
        serde_json::to_string(&widest).unwrap().len() + ",".len(),
        PAGE_SIDE_JSON_BYTES_MAX
    );

    // An older binary's record: the field absent, the piece parses without sides.
    let mut older_record = serde_json::to_value(&across).unwrap();
    older_record
        .as_object_mut()
        .unwrap()
        .remove("old_page_sides")
        .expect("the field is written where a boundary cuts the piece");
    let parsed: crate::state::ParityPieceCrcs = serde_json::from_value(older_record).unwrap();
    assert_eq!(parsed, plain);
    assert_eq!(parsed.old_page_sides_of(0, CUT_AT_BYTES), None);
}

/// A binary of session 48 (0fa3470a, before s49a) reading a record whose pieces hold
/// `old_page_sides`: its types are the `Before49` ones below (the fields and serde
/// attributes of 0fa3470a's `WriteParityCrcs` and `ParityPieceCrcs`): serde skips the
/// field its struct does not name, so it reads the piece as one without the side crcs and
/// decides the row as it did (it proves a torn parity block's side by nothing, as before).
/// No version bump is needed for that; a `#[serde(deny_unknown_fields)]` on either type
/// fails `an_older_binary_reads_parity_crcs_holding_the_old_block_crcs_as_without_them`.
#[test]
fn an_older_binary_reads_parity_page_side_crcs_as_without_them() {
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    struct ParityPieceCrcsBefore49 {
        stripe: u64,
        #[serde(default)]
        row: usize,
        col: usize,
        offset_bytes: u64,
        len_bytes: u64,
        block_crcs: Vec<u32>,
        #[serde(default)]
        old_block_crcs: Vec<u32>,
    }
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    struct WriteParityCrcsBefore49 {
        plan: u64,
        file: u64,
        pieces: Vec<ParityPieceCrcsBefore49>,
        #[serde(default)]
        edge_blocks: Vec<crate::state::EdgeBlockCrc>,
        #[serde(default)]
        page_cuts: Vec<crate::state::WindowPageCutCrcs>,
    }
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    enum RecBefore49 {
        WriteParityCrcs(WriteParityCrcsBefore49),
    }
    let (new, old) = ([1u8; 288], [2u8; 288]);
    let piece = crate::state::ParityPieceCrcs::of_with_old((0, 1, 5), 3808, &new, &old)
        .with_old_page_sides(&old, |b| (b == 0).then_some(4072));
    assert_eq!(piece.old_page_sides.len(), 1, "the scene: sides on record");
    let crcs = crate::state::WriteParityCrcs {
        plan: 99,
        file: 3,
        pieces: vec![piece.clone()],
        edge_blocks: Vec::new(),
        page_cuts: Vec::new(),
    };
    let json = serde_json::to_string(&Rec::WriteParityCrcs(crcs.clone())).unwrap();
    assert!(json.contains("old_page_sides"), "{json}");
    let read_by_older: RecBefore49 = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("a binary of session 48 reads {json}: {e}"));
    assert_eq!(
        read_by_older,
        RecBefore49::WriteParityCrcs(WriteParityCrcsBefore49 {
            plan: 99,
            file: 3,
            pieces: vec![ParityPieceCrcsBefore49 {
                stripe: 0,
                row: 1,
                col: 5,
                offset_bytes: 3808,
                len_bytes: 288,
                block_crcs: piece.block_crcs.clone(),
                old_block_crcs: piece.old_block_crcs.clone(),
            }],
            edge_blocks: Vec::new(),
            page_cuts: Vec::new(),
        })
    );
    // And this binary reads its own record back whole.
    match serde_json::from_str::<Rec>(&json).unwrap() {
        Rec::WriteParityCrcs(back) => assert_eq!(back, crcs),
        other => panic!("read as another record: {other:?}"),
    }
}

/// Session 52's crcs of the bytes a running parity piece LAYS on each side of a page
/// boundary inside its part of a block (`ParityPieceCrcs::new_page_sides`, s52c; review
/// r51b HIGH-1), beside s49a's old ones: taken only across a boundary, told back only for
/// exactly that block and boundary, the record's reader version unchanged. A record of a
/// binary before session 52 (the field absent) parses without them and tells none (the
/// roll then knows a piece torn at its boundary by nothing, as before); a binary of
/// session 51 (its `ParityPieceCrcs`, `old_page_sides` and all, without the field) reads a
/// record holding them as without them. Cost: one entry per block of a piece cut by a
/// boundary, each at most `PAGE_SIDE_JSON_BYTES_MAX` bytes, and the field's name once per
/// piece that has any (measured here: printed with `--nocapture`).
#[test]
fn parity_new_page_side_crcs_split_a_piece_at_its_page_boundary_and_older_binaries_read_them() {
    // r51b's P: a piece 0..4096 of block 0 (of 0..8192), the boundary 4072 bytes in.
    const CUT_AT_BYTES: usize = 4072;
    // `{"block":1023,"cut_at_bytes":4095,"new_head_crc":4294967295,
    // "new_tail_crc":4294967295},`: as s49a's old sides, 87 bytes at the widest.
    const PAGE_SIDE_JSON_BYTES_MAX: usize = 87;
    // `,"new_page_sides":[]`: once per piece that has any.
    const NEW_PAGE_SIDES_FIELD_JSON_BYTES: usize = 20;
    let new: Vec<u8> = (0..8192u32).map(|x| (x * 3) as u8).collect();
    let old: Vec<u8> = (0..8192u32).map(|x| (x * 7 + 1) as u8).collect();
    let cut = |b: u64| (b == 0).then_some(CUT_AT_BYTES);
    let at = (0, 0, 4);
    let sides_old = crate::state::ParityPieceCrcs::of_with_old(at, 0, &new, &old)
        .with_old_page_sides(&old, cut);
    let both = sides_old.clone().with_new_page_sides(&new, cut);
    assert_eq!(
        both.new_page_sides,
        vec![crate::state::ParityNewPageSideCrcs {
            block: 0,
            cut_at_bytes: CUT_AT_BYTES as u32,
            new_head_crc: crc32c::crc32c(&new[..4072]),
            new_tail_crc: crc32c::crc32c(&new[4072..4096]),
        }]
    );
    assert_eq!(
        both.new_page_sides_of(0, CUT_AT_BYTES),
        Some([
            ((0, 4072), crc32c::crc32c(&new[..4072])),
            ((4072, 4096), crc32c::crc32c(&new[4072..4096]))
        ])
    );
    // The old sides are the same split (the roll pairs them per side).
    let old_sides = both.old_page_sides_of(0, CUT_AT_BYTES).unwrap();
    let new_sides = both.new_page_sides_of(0, CUT_AT_BYTES).unwrap();
    assert_eq!(
        [old_sides[0].0, old_sides[1].0],
        [new_sides[0].0, new_sides[1].0]
    );
    assert_eq!(both.new_page_sides_of(0, 4000), None, "another boundary");
    assert_eq!(
        both.new_page_sides_of(1, CUT_AT_BYTES),
        None,
        "another block"
    );
    assert_eq!(sides_old.new_page_sides_of(0, CUT_AT_BYTES), None);
    // A piece lying wholly on one side: its whole crc covers it, nothing more written.
    let beside = crate::state::ParityPieceCrcs::of_with_old(at, 0, &new[..3808], &old[..3808]);
    let beside_with = beside.clone().with_new_page_sides(&new[..3808], cut);
    assert!(beside_with.new_page_sides.is_empty());
    assert_eq!(
        serde_json::to_string(&beside_with).unwrap(),
        serde_json::to_string(&beside).unwrap()
    );

    // Cost per piece cut by a boundary, and the reader version unchanged.
    let rec = one_piece_record;
    page_sides_cost_and_reader_version(
        (&both, &sides_old),
        (NEW_PAGE_SIDES_FIELD_JSON_BYTES, PAGE_SIDE_JSON_BYTES_MAX),
        "new_page_sides",
    );
    let widest = crate::state::ParityNewPageSideCrcs {
        block: (crate::backend::ELEMENT_BYTES_MAX / crate::backend::CHECKSUM_BLOCK_BYTES - 1)
            as u64,
        cut_at_bytes: 4095,
        new_head_crc: u32::MAX,
        new_tail_crc: u32::MAX,
    };
    assert_eq!(
        serde_json::to_string(&widest).unwrap().len() + ",".len(),
        PAGE_SIDE_JSON_BYTES_MAX
    );

    // A record of a binary before session 52: the field absent, the piece parses without.
    let mut older_record = serde_json::to_value(rec(both.clone())).unwrap();
    let removed = older_record["WriteParityCrcs"]["pieces"][0]
        .as_object_mut()
        .unwrap()
        .remove("new_page_sides");
    assert!(removed.is_some(), "written where a boundary cuts the piece");
    match serde_json::from_value::<Rec>(older_record).unwrap() {
        Rec::WriteParityCrcs(back) => {
            assert_eq!(back.pieces, vec![sides_old.clone()]);
            assert_eq!(back.pieces[0].new_page_sides_of(0, CUT_AT_BYTES), None);
        }
        other => panic!("read as another record: {other:?}"),
    }

    // A binary of session 51 (6ec697f1's `ParityPieceCrcs`) reads this record as without
    // the new sides: serde skips a field its struct does not name.
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    struct ParityPieceCrcsBefore52 {
        stripe: u64,
        #[serde(default)]
        row: usize,
        col: usize,
        offset_bytes: u64,
        len_bytes: u64,
        block_crcs: Vec<u32>,
        #[serde(default)]
        old_block_crcs: Vec<u32>,
        #[serde(default)]
        old_page_sides: Vec<crate::state::ParityPageSideCrcs>,
    }
    let json = serde_json::to_string(&both).unwrap();
    assert!(json.contains("new_page_sides"), "{json}");
    let read_by_older: ParityPieceCrcsBefore52 = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("a binary of session 51 reads {json}: {e}"));
    assert_eq!(read_by_older.old_page_sides, both.old_page_sides);
    assert_eq!(read_by_older.block_crcs, both.block_crcs);
    // And this binary reads its own record back whole.
    let json = serde_json::to_string(&rec(both.clone())).unwrap();
    match serde_json::from_str::<Rec>(&json).unwrap() {
        Rec::WriteParityCrcs(back) => assert_eq!(back.pieces, vec![both]),
        other => panic!("read as another record: {other:?}"),
    }
}

/// Session 12's page-cut crcs of a delayed window write (`WindowBlockCrcs::page_cuts`, s12t)
/// turn the header to version 5, which session-11 binaries refuse (they would drop the crcs
/// unseen and record a block a kill -9 cut at its page boundary lost); while a snapshot
/// holds them it stays 5; a checkpoint that leaves none turns it back to 1. The same record
/// without them stays version 4 (above).
#[test]
fn window_page_cut_crcs_turn_the_state_header_to_version_5_until_a_checkpoint_drops_them() {
    let crcs = crate::state::WindowBlockCrcs {
        // No such plan, no file: it changes nothing, the record is the point.
        plan: 1 << 40,
        file: 99,
        pieces: Vec::new(),
        edges: Vec::new(),
        page_cuts: vec![crate::state::WindowPageCutCrcs {
            stripe: 0,
            row: 0,
            col: 0,
            block: 0,
            cut_at_bytes: 4092,
            new_head_crc: 1,
            old_tail_crc: 2,
            old_head_crc: None,
            new_tail_crc: None,
        }],
    };
    record_holds_the_header_version_until_the_planner_restarts(
        Rec::WindowBlockCrcs(crcs.clone()),
        crate::superblock::STATE_VERSION_SESSION12_RECORDS,
        |state| state.window_block_crcs == vec![crcs.clone()],
    );
}

/// Session 12's clock skew (`Rec::ClockSkew`, review s11r R11-5) turns the header to version
/// 5, which session-11 binaries refuse (they would cut the record off as a torn tail, or drop
/// the field from a snapshot, and freeze window timeouts again); a snapshot holding the skew
/// keeps version 5, and this binary reads it back.
#[test]
fn a_clock_skew_turns_the_state_header_to_version_5_and_stays_in_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    const SKEW_NS: u64 = 3_600_000_000_000;
    {
        let mut core = store.core.lock();
        let rec = Rec::ClockSkew { skew_ns: SKEW_NS };
        store.journal(&mut core, rec, true).unwrap();
        assert_eq!(core.state.clock_skew_ns, SKEW_NS);
        let wall_ns = unix_now_ns();
        assert!(Store::now_ns(&core) >= wall_ns + SKEW_NS);
    }
    let v5 = crate::superblock::STATE_VERSION_SESSION12_RECORDS;
    assert_header_version(dir.path(), v5);
    store.checkpoint().unwrap();
    assert_header_version(dir.path(), v5);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.core.lock().state.clock_skew_ns, SKEW_NS);
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    store.close().unwrap();
    assert_header_version(dir.path(), v5);
}

/// Session 12's record of a delayed window's move-home partial block crcs
/// (`Rec::MoveHomeCrcs`, task s12u) turns the header to version 5, which session-11 binaries
/// refuse (they read 1 to 4: they would cut it off as a torn tail, or drop it from a snapshot
/// unseen and record lost the home bytes it proves); while a snapshot holds such crcs it
/// stays 5; a checkpoint that leaves none turns it back to 1.
#[test]
fn move_home_crcs_turn_the_state_header_to_version_5_until_a_checkpoint_drops_them() {
    let crcs = crate::state::WindowBlockCrcs {
        // No such plan: the record stays in the state until the planner restarts.
        plan: 99,
        file: 0,
        pieces: vec![crate::state::WindowPieceCrcs {
            stripe: 0,
            row: 0,
            col: 1,
            first_block: 0,
            block_crcs: vec![crc32c::crc32c(&[1u8; 4096])],
        }],
        edges: Vec::new(),
        page_cuts: Vec::new(),
    };
    record_holds_the_header_version_until_the_planner_restarts(
        Rec::MoveHomeCrcs(crcs.clone()),
        crate::superblock::STATE_VERSION_SESSION12_RECORDS,
        |state| state.move_home_crcs == vec![crcs.clone()],
    );
}

/// Session 13's damaged journal tail (`Rec::JournalTailDamaged`, review s12r R12-1) turns
/// the header to version 6, which session-12 binaries refuse (they would cut the record off
/// as a torn tail, or drop the field from a snapshot, and with it the warning that the cut
/// record may have acknowledged a write); while a snapshot holds it the header stays 6; the
/// operator's acceptance (`Rec::JournalTailAccepted`) drops it, and a checkpoint after that
/// turns the header back to 1.
#[test]
fn a_damaged_journal_tail_turns_the_state_header_to_version_6_until_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    let cut = crate::state::JournalTailCut {
        at_byte: 1234,
        cut_bytes: 56,
    };
    {
        let mut core = store.core.lock();
        store
            .journal(&mut core, Rec::JournalTailDamaged(cut), true)
            .unwrap();
        assert_eq!(core.state.journal_tail_damage, vec![cut]);
    }
    let v6 = crate::superblock::STATE_VERSION_SESSION13_RECORDS;
    assert_header_version(dir.path(), v6);
    store.checkpoint().unwrap();
    assert_header_version(dir.path(), v6);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.core.lock().state.journal_tail_damage, vec![cut]);
    assert!(store.journal_tail_cut_warning().is_some());
    assert_eq!(store.accept_journal_damage().unwrap(), 1);
    assert_eq!(store.journal_tail_cut_warning(), None);
    store.checkpoint().unwrap();
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
}

/// The open that cuts a damaged journal tail writes its `JournalTailDamaged` with the cut
/// (`cut_durable::cut_tail_finishing`, not through `Store::journal`): the header says
/// version 6 before the journal holds it, so a session-12 binary refuses the store rather
/// than cut that record off (with the warning) should this process die before its close.
#[test]
fn an_open_that_cuts_a_damaged_tail_marks_the_header_before_its_journal_says_so() {
    let dir = tempfile::tempdir().unwrap();
    store_holding_f(dir.path()).close().unwrap();
    // A whole last record damaged after it was written (a payload without a zero byte
    // under a checksum that does not match it).
    let journal = dir.path().join(JOURNAL_FILE);
    let mut bytes = std::fs::read(&journal).unwrap();
    let payload = br#"{"seq":900,"rec":"X"}"#;
    bytes.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&(crc32c::crc32c(payload) ^ 1).to_le_bytes());
    bytes.extend_from_slice(payload);
    std::fs::write(&journal, &bytes).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.core.lock().state.journal_tail_damage.len(), 1);
    // No close: the process may die here.
    assert_header_version(
        dir.path(),
        crate::superblock::STATE_VERSION_SESSION13_RECORDS,
    );
    drop(store);
}

/// Session 19's record of the blocks a client write was refused on (review s18r R18-4)
/// turns the header to version 8, which binaries of sessions 14 to 18 refuse (they cannot
/// parse it; dropped, their recovery would reseal the rot as before); a snapshot that holds
/// it keeps version 8; the open's settle drops it and the header is 1 again.
#[test]
fn a_refused_blocks_record_turns_the_state_header_to_version_8_until_the_planner_restarts() {
    let rec = crate::state::RefusedBlocks {
        // No such plan, no file: it changes nothing, the record is the point.
        plan: 1 << 40,
        file: 99,
        blocks: vec![crate::state::RefusedBlock {
            stripe: 0,
            row: 0,
            col: 1,
            block: 0,
            delta: Some(vec![3u8; 4096]),
        }],
    };
    assert_eq!(
        Rec::RefusedBlocks(rec.clone()).reader_version(),
        crate::superblock::STATE_VERSION_SESSION19_RECORDS
    );
    record_holds_the_header_version_until_the_planner_restarts(
        Rec::RefusedBlocks(rec.clone()),
        crate::superblock::STATE_VERSION_SESSION19_RECORDS,
        |state| state.refused_blocks == vec![rec.clone()],
    );
}

/// Session 33's record of a repair after a journal tail cut (`Rec::TailCutRepair`, s33e)
/// turns the header to version 10, which binaries of sessions 30 to 32 refuse (they cannot
/// parse it; cut off as a torn tail, their degraded reads would lose the rows it proves); a
/// snapshot that holds it keeps version 10; the open's scrub that finds every stripe's
/// parity matching journals `JournalTailChecked`, which drops it, and the header is 1 again.
#[test]
fn a_tail_cut_repair_record_turns_the_state_header_to_version_10_until_the_cut_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    let rec = crate::state::TailCutRepair {
        // No such file: it changes nothing, the record is the point.
        file: 99,
        stripe: 0,
        rows: vec![crate::state::RepairedRow {
            block: 0,
            data: vec![(0, 0, 1), (0, 1, 2)],
            parity: vec![(0, 2, 3)],
            found_parity: vec![(0, 2, 4)],
            found_decodes: Vec::new(),
        }],
    };
    let v10 = crate::superblock::STATE_VERSION_SESSION33_RECORDS;
    assert_eq!(Rec::TailCutRepair(rec.clone()).reader_version(), v10);
    {
        let mut core = store.core.lock();
        let cut = Rec::JournalTailCut {
            at_byte: 1234,
            cut_bytes: 56,
        };
        store.journal(&mut core, cut, true).unwrap();
        store
            .journal(&mut core, Rec::TailCutRepair(rec.clone()), true)
            .unwrap();
        assert_eq!(core.state.tail_cut_repairs, vec![rec.clone()]);
    }
    assert_header_version(dir.path(), v10);
    store.checkpoint().unwrap();
    assert_header_version(dir.path(), v10);
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert!(store.core.lock().state.tail_cut_repairs.is_empty());
    assert!(store.core.lock().state.journal_tail_cuts.is_empty());
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    store.checkpoint().unwrap();
    store.close().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
}

/// A store a session 30 to 32 binary left (state header version 9, its newest) opens with
/// this binary, reads, and keeps version 9 while nothing of session 33 is on record: the
/// format change of `Rec::TailCutRepair` adds a record and a field, and changes none.
#[test]
fn a_store_with_the_session_30_state_header_version_9_opens_and_stays_version_9() {
    let dir = tempfile::tempdir().unwrap();
    store_holding_f(dir.path()).close().unwrap();
    let v9 = crate::superblock::STATE_VERSION_SESSION30_RECORDS;
    set_header_version(&dir.path().join(STATE_FILE), "state", v9).unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    store.put("g", &[8u8; 3000]).unwrap();
    assert_header_version(dir.path(), v9);
    store.close().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("g").unwrap(), vec![8u8; 3000]);
    store.close().unwrap();
}

/// Session 46's `Rec::HomeWitnessCleared` (s46d, review r45b MEDIUM-1) rides on the open's
/// first epoch bump, before the bump's record: the header turns to version 11 first, which
/// binaries of sessions 33 to 45 refuse (they cannot parse the record; replaying the home
/// witness it cleared, they would record LOST the blocks the OSSs hold right). The record
/// is journaled once (the flag drops), and a checkpoint (the snapshot holds the cleared
/// witness, nothing newer) turns the header back to 1.
#[test]
fn a_home_witness_cleared_record_turns_the_state_header_to_version_11_until_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_holding_f(dir.path());
    let v11 = crate::superblock::STATE_VERSION_SESSION46_RECORDS;
    assert_eq!(Rec::HomeWitnessCleared.reader_version(), v11);
    {
        let mut core = store.core.lock();
        // As the way-out open leaves it: the bump due, the clear not yet on disk.
        assert!(core.epoch_due, "a checkpoint makes the next bump due");
        core.home_witness_clear_unjournaled = true;
        core.state.home_witness.clear();
        core.state.home_witness_pending.clear();
        let appended = core.journal.next_seq();
        store
            .journal(
                &mut core,
                Rec::OssGenerations {
                    generations: vec![],
                },
                true,
            )
            .unwrap();
        assert!(!core.home_witness_clear_unjournaled);
        // The clear, the bump, the record asked for.
        assert_eq!(core.journal.next_seq(), appended + 3);
    }
    assert_header_version(dir.path(), v11);
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.get("f").unwrap(), vec![7u8; 5000]);
    store.checkpoint().unwrap();
    assert!(older_binary_reads(dir.path()), "{}", header(dir.path()));
    store.close().unwrap();
}

/// Review r47a LOW-3 and session 48 (s48c): what a binary of session 46 reads of the fields
/// sessions 47 and 48 added around the home witness's displaced pieces. Its types are the
/// `Before47` ones below (the fields and serde attributes of c092d8a5's `Input::Write` and
/// `DisplacedHomePieces`; a session-47 binary's entry adds `crcs_promised` only, and reads
/// the same here):
/// - a journaled `Input::Write` promising its home crcs (`home_crcs_follow`, session 47)
///   reads as the same input without the promise (serde skips the field): no version bump
///   needed, and session 46 drops the entry at the next record as it did;
/// - a snapshot entry cut before its promised crcs (`crcs_promised`, session 47; no crcs
///   on record) reads as session 46's entry waiting for its crcs (it decides it as it did),
///   under header version 11, which session 46 reads;
/// - a snapshot entry holding session 48's narrowed crcs (`piece_block_crcs`) would read
///   as one with NO crcs (session 46 knows only `crcs`: it would keep the entry past its
///   write's `Durable` and decide its pieces without the crcs): a misread, so the snapshot
///   says header version 12 (`STATE_VERSION_SESSION48_RECORDS`), which a binary of session
///   46 or 47 (it reads 1 to 11) refuses, changing nothing.
#[test]
fn a_session_46_binary_reads_session_47_fields_as_without_them_and_refuses_session_48_crcs() {
    use crate::state::{DisplacedHomePieces, HomePiece, WriteCrcs};
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    enum InputBefore47 {
        Write {
            file: u64,
            offset_bytes: u64,
            len_bytes: u64,
            now_ns: u64,
            #[serde(default)]
            crcs_follow: bool,
        },
    }
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    enum RecBefore47 {
        Input(InputBefore47),
    }
    #[derive(Debug, PartialEq, Eq, serde::Deserialize)]
    struct DisplacedHomePiecesBefore47 {
        file: u64,
        offset_bytes: u64,
        len_bytes: u64,
        crcs: Option<WriteCrcs>,
        pieces: Vec<(u64, HomePiece)>,
    }
    const SESSION_46_READS_MAX: u32 = crate::superblock::STATE_VERSION_SESSION46_RECORDS;

    let input = Rec::Input(Input::Write {
        file: 3,
        offset_bytes: 5500,
        len_bytes: 100,
        now_ns: 7,
        crcs_follow: false,
        home_crcs_follow: true,
    });
    let json = serde_json::to_string(&input).unwrap();
    assert!(json.contains("home_crcs_follow"), "{json}");
    let read: RecBefore47 = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("a session-46 binary reads {json}: {e}"));
    assert_eq!(
        read,
        RecBefore47::Input(InputBefore47::Write {
            file: 3,
            offset_bytes: 5500,
            len_bytes: 100,
            now_ns: 7,
            crcs_follow: false,
        })
    );
    assert_eq!(input.reader_version(), crate::superblock::FORMAT_VERSION);

    // A home witness piece of block 1, displaced by that input, cut before its crcs.
    let piece = HomePiece {
        end_bytes: 6000,
        crc: 0xabcd,
        seq: 4,
    };
    let mut state = State::default();
    state.home_witness_displaced.push(DisplacedHomePieces {
        file: 3,
        offset_bytes: 5500,
        len_bytes: 100,
        crcs: None,
        crcs_promised: true,
        pieces: vec![(5000, piece)],
    });
    assert!(state.reader_version() <= SESSION_46_READS_MAX);
    let json = serde_json::to_value(&state.home_witness_displaced[0]).unwrap();
    assert_eq!(json["crcs_promised"], serde_json::json!(true), "{json}");
    let read: DisplacedHomePiecesBefore47 = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("a session-46 binary reads {json}: {e}"));
    assert_eq!(
        read,
        DisplacedHomePiecesBefore47 {
            file: 3,
            offset_bytes: 5500,
            len_bytes: 100,
            crcs: None,
            pieces: vec![(5000, piece)],
        }
    );

    // Its crcs on record (a write in flight at a checkpoint): session 48's narrowed form.
    let whole = WriteCrcs::of(vec![9], 3, 5500, &[1u8; 100]);
    let narrowed = crate::state::DisplacedWriteCrcs::narrowed(&whole, &[(5000, piece)]);
    assert_eq!(narrowed.block_crcs, vec![(1, vec![whole.block_crcs[0]])]);
    state.home_witness_displaced[0].crcs = Some(narrowed);
    state.home_witness_displaced[0].crcs_promised = false;
    let json = serde_json::to_value(&state.home_witness_displaced[0]).unwrap();
    let read: DisplacedHomePiecesBefore47 = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(read.crcs, None, "the misread the version prevents: {json}");
    let version = state.reader_version();
    assert_eq!(version, crate::superblock::STATE_VERSION_SESSION48_RECORDS);
    assert!(
        version > SESSION_46_READS_MAX,
        "a session-46/47 binary refuses it"
    );
    // As a checkpoint writes it: the header says so, and this binary reads it back.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(STATE_FILE);
    write_checked_version(&path, "state", version, &state).unwrap();
    assert!(
        header(dir.path()).starts_with("EXARAID state v12 "),
        "{}",
        header(dir.path())
    );
    let (back, read_version) =
        crate::superblock::read_checked_version::<State>(&path, "state").unwrap();
    assert_eq!(read_version, version);
    assert_eq!(back.home_witness_displaced, state.home_witness_displaced);
}

/// The JSON bytes a piece's page-side crcs add (`with` beside `without`, the same piece
/// without them): at most the field's name (`field_json_bytes`) and one side's widest
/// entry (`side_json_bytes_max`); and the reader version of a `WriteParityCrcs` holding either is the same (an
/// older binary reads the record, without the sides).
fn page_sides_cost_and_reader_version(
    (with, without): (
        &crate::state::ParityPieceCrcs,
        &crate::state::ParityPieceCrcs,
    ),
    (field_json_bytes, side_json_bytes_max): (usize, usize),
    label: &str,
) {
    let (with_json, without_json) = (
        serde_json::to_string(with).unwrap(),
        serde_json::to_string(without).unwrap(),
    );
    let added = with_json.len() - without_json.len();
    println!("{label}: {added} bytes more per piece cut by a page boundary ({with_json})");
    assert!(
        added <= field_json_bytes + side_json_bytes_max,
        "{added}: {with_json}"
    );
    assert_eq!(
        one_piece_record(with.clone()).reader_version(),
        one_piece_record(without.clone()).reader_version()
    );
}

/// A `WriteParityCrcs` record of plan 99 holding `piece` alone.
fn one_piece_record(piece: crate::state::ParityPieceCrcs) -> Rec {
    Rec::WriteParityCrcs(crate::state::WriteParityCrcs {
        plan: 99,
        file: 0,
        pieces: vec![piece],
        edge_blocks: Vec::new(),
        page_cuts: Vec::new(),
    })
}
