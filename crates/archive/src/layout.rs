//! Where blocks land on tapes under each policy (seed section 4).
//!
//! Two faces of the same rules: explicit block-by-block layouts for small cases (what the
//! seed's Figures 1-3 draw; the tests pin them), and closed forms the simulator uses so a
//! 100 TB file with 1 MB blocks costs O(1), not 10^8 steps. A property test checks that the
//! closed forms agree with the explicit layouts.

use exaraid_codes::CodeSpec;
use serde::Serialize;

/// A resiliency scheme X+Y: Y erasure-code blocks for every X data blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Scheme {
    pub x: usize,
    pub y: usize,
}

impl Scheme {
    /// The code that computes the Y EC blocks: RAID-5 parity for Y = 1, Reed-Solomon X+Y
    /// for Y >= 2, none for 1+0. An EC block is as large as a data block (an MDS code's
    /// element), which is all the tape tier needs to know about its bytes.
    pub fn code(&self) -> Option<CodeSpec> {
        match self.y {
            0 => None,
            1 => Some(CodeSpec::raid5(self.x)),
            y => Some(CodeSpec::rs(self.x, y)),
        }
    }

    pub fn width(&self) -> usize {
        self.x + self.y
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}+{}", self.x, self.y)
    }
}

/// Seed Table 1: resiliency schemes used in the experiments and their probabilities.
pub const TABLE1: [(Scheme, f64); 8] = [
    (Scheme { x: 1, y: 0 }, 0.025),
    (Scheme { x: 2, y: 1 }, 0.025),
    (Scheme { x: 3, y: 1 }, 0.05),
    (Scheme { x: 3, y: 2 }, 0.1),
    (Scheme { x: 4, y: 1 }, 0.1),
    (Scheme { x: 4, y: 2 }, 0.3),
    (Scheme { x: 6, y: 2 }, 0.2),
    (Scheme { x: 8, y: 2 }, 0.2),
];

/// One block as the seed's figures name it: D_i (data, 1-based) or P_j (EC, 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    D(u64),
    P(u64),
}

/// RAIT (seed 4.1, Figure 1): stripe s puts X data blocks and Y EC blocks on the X+Y tapes,
/// data first then EC, the whole stripe shifted by one tape per stripe. `first_stripe` is
/// the rotation carried over from earlier requests of the same process ("processed with
/// consecutive unit shifts as if we had a single large request").
/// Returns, for each tape (lane), its blocks in tape order.
pub fn rait_layout(scheme: Scheme, data_blocks: u64, first_stripe: u64) -> Vec<Vec<Block>> {
    let n = scheme.width();
    let stripes = data_blocks.div_ceil(scheme.x as u64);
    let mut lanes = vec![Vec::new(); n];
    for s in 0..stripes {
        for (lane, blocks) in lanes.iter_mut().enumerate() {
            let element = rait_element(scheme, first_stripe + s, lane);
            if element < scheme.x {
                let d = s * scheme.x as u64 + element as u64;
                if d < data_blocks {
                    blocks.push(Block::D(d + 1));
                }
            } else {
                blocks.push(Block::P(
                    s * scheme.y as u64 + (element - scheme.x) as u64 + 1,
                ));
            }
        }
    }
    lanes
}

/// Which element of its stripe (0..X data, X..X+Y EC) tape `lane` holds in stripe `s`.
pub fn rait_element(scheme: Scheme, stripe: u64, lane: usize) -> usize {
    let n = scheme.width() as u64;
    ((lane as u64 + n - stripe % n) % n) as usize
}

/// How many EC blocks tape `lane` receives in stripes `first..first+count` (closed form).
pub fn rait_ec_blocks_on_lane(scheme: Scheme, lane: usize, first: u64, count: u64) -> u64 {
    let n = scheme.width() as u64;
    let full = count / n;
    let mut ec = full * scheme.y as u64;
    for s in first + full * n..first + count {
        if rait_element(scheme, s, lane) >= scheme.x {
            ec += 1;
        }
    }
    ec
}

/// PARALLEL (seed 4.2, Figure 2): a file of S blocks is cut into X runs of ceil(S/X) or
/// floor(S/X) consecutive blocks, one per data tape; at step i the X blocks D_i, D_{i+W},
/// ... go to the X data tapes and their Y EC blocks to the Y EC tapes.
/// Returns lanes 0..X (data) then X..X+Y (EC).
pub fn parallel_layout(scheme: Scheme, data_blocks: u64) -> Vec<Vec<Block>> {
    let x = scheme.x as u64;
    let mut lanes = vec![Vec::new(); scheme.width()];
    // Runs: the first S mod X runs get ceil(S/X) blocks, the others floor(S/X).
    let base = data_blocks / x;
    let extra = data_blocks % x;
    let mut start = 0;
    let mut runs = Vec::new();
    for i in 0..x {
        let len = base + u64::from(i < extra);
        runs.push((start, len));
        start += len;
    }
    let steps = data_blocks.div_ceil(x);
    for step in 0..steps {
        for (lane, &(first, len)) in runs.iter().enumerate() {
            if step < len {
                lanes[lane].push(Block::D(first + step + 1));
            }
        }
        for j in 0..scheme.y {
            lanes[scheme.x + j].push(Block::P(step * scheme.y as u64 + j as u64 + 1));
        }
    }
    lanes
}

/// Tape-by-tape result of VERTICAL (seed 4.3, Figure 3) for a stream of data blocks of
/// equal on-tape size: `blocks_per_tape` data blocks fill a tape; after X data tapes (or
/// at the end of data) the Y EC areas, each as long as the longest data tape, are written.
/// Returns the sequence of tapes written by the single drive, each with its blocks.
pub fn vertical_layout(scheme: Scheme, data_blocks: u64, blocks_per_tape: u64) -> Vec<Vec<Block>> {
    assert!(blocks_per_tape > 0);
    let mut tapes: Vec<Vec<Block>> = Vec::new();
    let mut next = 1;
    let mut group_longest = 0;
    let mut group_tapes = 0;
    let mut ec_written = 0;
    let flush = |tapes: &mut Vec<Vec<Block>>, longest: u64, ec_written: &mut u64| {
        // EC area j of the group: `longest` EC blocks (position-aligned with the data).
        for _ in 0..scheme.y {
            let mut tape = Vec::new();
            for _ in 0..longest {
                *ec_written += 1;
                tape.push(Block::P(*ec_written));
                if tape.len() as u64 == blocks_per_tape {
                    tapes.push(std::mem::take(&mut tape));
                }
            }
            if !tape.is_empty() {
                tapes.push(tape);
            }
        }
    };
    while next <= data_blocks {
        let len = blocks_per_tape.min(data_blocks - next + 1);
        tapes.push((next..next + len).map(Block::D).collect());
        next += len;
        group_longest = group_longest.max(len);
        group_tapes += 1;
        if group_tapes == scheme.x || next > data_blocks {
            flush(&mut tapes, group_longest, &mut ec_written);
            group_longest = 0;
            group_tapes = 0;
        }
    }
    tapes
}

/// One tape VERTICAL wrote, with its bytes (the byte-level model of [`vertical_write_bytes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapeBytes {
    /// An EC tape (true) or a data tape (false).
    pub is_ec: bool,
    pub bytes: Vec<u8>,
}

/// Most bytes [`vertical_write_bytes`] accepts: the byte-level model is a check on small
/// blocks (the simulator moves sizes), not a way to write an archive.
pub const MAX_VERTICAL_MODEL_BYTES: usize = 1 << 26;

/// VERTICAL on real bytes (seed 4.3, Figure 3), block by block, as the mover does it: the
/// drive fills data tapes one after the other with `data` cut in blocks of `block_bytes`;
/// each block is also added to the group's EC held on the mover's disk
/// (`codes::accumulate::ParityAccumulator`, one data element per data tape of the group);
/// after the X-th data tape, or at the end of data, the Y EC areas are written, each as
/// long as the longest data tape of the group. Returns the tapes in the order the single
/// drive writes them; the same sequence of tapes as [`vertical_layout`].
///
/// `block_bytes` must be a positive multiple of 32 and `data` whole blocks (pad the last).
pub fn vertical_write_bytes(
    scheme: Scheme,
    data: &[u8],
    block_bytes: usize,
    blocks_per_tape: usize,
) -> anyhow::Result<Vec<TapeBytes>> {
    use anyhow::{bail, Context};
    if block_bytes == 0 || !block_bytes.is_multiple_of(exaraid_codes::ELEMENT_ALIGN_BYTES) {
        bail!("block size {block_bytes} bytes: blocks must be a positive multiple of 32 bytes (the EC kernels' lane)");
    }
    if !data.len().is_multiple_of(block_bytes) {
        bail!("{} data bytes are not whole blocks of {block_bytes} bytes: pad the last block with zeros", data.len());
    }
    if blocks_per_tape == 0
        || data.len() > MAX_VERTICAL_MODEL_BYTES
        || blocks_per_tape * block_bytes > MAX_VERTICAL_MODEL_BYTES
    {
        bail!("the byte-level VERTICAL model takes at most {MAX_VERTICAL_MODEL_BYTES} bytes and tapes of at least one block");
    }
    let tape_bytes = blocks_per_tape * block_bytes;
    let mut ec = match scheme.code() {
        Some(spec) => {
            let code = exaraid_codes::Code::new(spec)
                .with_context(|| format!("the EC code of scheme {scheme}"))?;
            Some(exaraid_codes::accumulate::ParityAccumulator::new(
                &code, tape_bytes,
            )?)
        }
        None => None,
    };
    let mut tapes: Vec<TapeBytes> = Vec::new();
    let mut group_tapes = 0;
    let mut tape: Vec<u8> = Vec::new();
    // Write the group's EC areas (the part of each parity element the data reached).
    let flush = |ec: &mut Option<exaraid_codes::accumulate::ParityAccumulator>,
                 tapes: &mut Vec<TapeBytes>| {
        if let Some(acc) = ec {
            let finished = acc.finish();
            let extent = finished.extent_bytes as usize;
            for parity in finished.parity {
                tapes.push(TapeBytes {
                    is_ec: true,
                    bytes: parity[..extent].to_vec(),
                });
            }
        }
    };
    let blocks = data.chunks_exact(block_bytes);
    let block_count = blocks.len();
    for (i, block) in blocks.enumerate() {
        tape.extend_from_slice(block);
        if let Some(acc) = &mut ec {
            // The tape being filled is data element `group_tapes` of the group.
            acc.append(group_tapes, block)?;
        }
        let last = i + 1 == block_count;
        if tape.len() == tape_bytes || last {
            tapes.push(TapeBytes {
                is_ec: false,
                bytes: std::mem::take(&mut tape),
            });
            if let Some(acc) = &mut ec {
                if !acc.has_arrived(group_tapes) {
                    acc.close(group_tapes)?; // end of data on a partly filled tape
                }
            }
            group_tapes += 1;
            if group_tapes == scheme.x || last {
                flush(&mut ec, &mut tapes);
                group_tapes = 0;
            }
        }
    }
    Ok(tapes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use Block::{D, P};

    const S4_1: Scheme = Scheme { x: 4, y: 1 };

    #[test]
    fn table1_probabilities_sum_to_one() {
        let total: f64 = TABLE1.iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }

    #[test]
    fn ec_code_is_raid5_for_one_parity_and_rs_beyond() {
        assert_eq!(Scheme { x: 1, y: 0 }.code(), None);
        assert_eq!(S4_1.code(), Some(CodeSpec::raid5(4)));
        assert_eq!(Scheme { x: 8, y: 2 }.code(), Some(CodeSpec::rs(8, 2)));
    }

    /// Seed Figure 1 (described in 4.1): with empty tapes the first X blocks go to TD1..TDX
    /// and the EC to TD(X+1); each following stripe is shifted by one tape.
    #[test]
    fn rait_4_plus_1_rotates_ec_one_tape_per_stripe() {
        let lanes = rait_layout(S4_1, 12, 0);
        // Stripe 1 (D5..D8) is shifted by one tape: D5 on tape 2, its EC wraps to tape 1.
        assert_eq!(lanes[0], vec![D(1), P(2), D(12)]);
        assert_eq!(lanes[1], vec![D(2), D(5), P(3)]);
        assert_eq!(lanes[2], vec![D(3), D(6), D(9)]);
        assert_eq!(lanes[3], vec![D(4), D(7), D(10)]);
        assert_eq!(lanes[4], vec![P(1), D(8), D(11)]);
        // Every tape holds one block of every stripe.
        assert!(lanes.iter().all(|l| l.len() == 3));
    }

    /// Seed Figure 2 (described in 4.2): a 4+1 PARALLEL write of 24 blocks. W = 6; the first
    /// step holds D1, D7, D13, D19 in memory and computes P1; each data tape ends up with
    /// six consecutive blocks and the EC tape with P1..P6.
    #[test]
    fn parallel_4_plus_1_of_24_blocks_matches_figure_2() {
        let lanes = parallel_layout(S4_1, 24);
        assert_eq!(lanes[0], (1..=6).map(D).collect::<Vec<_>>());
        assert_eq!(lanes[1], (7..=12).map(D).collect::<Vec<_>>());
        assert_eq!(lanes[2], (13..=18).map(D).collect::<Vec<_>>());
        assert_eq!(lanes[3], (19..=24).map(D).collect::<Vec<_>>());
        assert_eq!(lanes[4], (1..=6).map(P).collect::<Vec<_>>());
        let step1: Vec<Block> = lanes.iter().map(|l| l[0]).collect();
        assert_eq!(step1, vec![D(1), D(7), D(13), D(19), P(1)]);
    }

    #[test]
    fn parallel_uneven_split_gives_ceil_then_floor_runs() {
        let lanes = parallel_layout(S4_1, 10);
        let lens: Vec<usize> = lanes[..4].iter().map(Vec::len).collect();
        assert_eq!(lens, vec![3, 3, 2, 2]);
        assert_eq!(lanes[2], vec![D(7), D(8)]);
        assert_eq!(lanes[4].len(), 3, "one EC block per step");
    }

    /// Seed Figure 3 (described in 4.3): one drive fills data tapes one by one; the EC is
    /// written after the X-th data tape, on its own tape(s).
    #[test]
    fn vertical_4_plus_1_fills_four_data_tapes_then_the_ec_tape() {
        let tapes = vertical_layout(S4_1, 12, 3);
        assert_eq!(tapes.len(), 5);
        assert_eq!(tapes[0], vec![D(1), D(2), D(3)]);
        assert_eq!(tapes[3], vec![D(10), D(11), D(12)]);
        assert_eq!(tapes[4], vec![P(1), P(2), P(3)]);
        // End of data after 2 tapes: EC as long as the longest data tape.
        let tapes = vertical_layout(S4_1, 5, 3);
        assert_eq!(
            tapes,
            vec![
                vec![D(1), D(2), D(3)],
                vec![D(4), D(5)],
                vec![P(1), P(2), P(3)]
            ]
        );
    }

    proptest! {
        #[test]
        fn rait_closed_form_counts_match_the_explicit_layout(x in 1usize..9, y in 0usize..3, stripes in 0u64..40, first in 0u64..30) {
            let scheme = Scheme { x, y };
            let lanes = rait_layout(scheme, stripes * x as u64, first);
            for (lane, blocks) in lanes.iter().enumerate() {
                let ec = blocks.iter().filter(|b| matches!(b, P(_))).count() as u64;
                prop_assert_eq!(ec, rait_ec_blocks_on_lane(scheme, lane, first, stripes));
            }
        }
    }
}
