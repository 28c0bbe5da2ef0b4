//! RAID-5: k data columns and one XOR parity column, P = D0 ^ D1 ^ ... ^ D(k-1)
//! (Patterson, Gibson, Katz, "A Case for Redundant Arrays of Inexpensive Disks (RAID)",
//! SIGMOD 1988, level 5). Rotation of the parity across devices is the layout's job.

use crate::geometry::Geometry;

pub(crate) fn build(k: usize) -> Geometry {
    super::horizontal(k, 1, |_, _| 1)
}
