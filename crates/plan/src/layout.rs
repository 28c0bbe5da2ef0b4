//! Layout: a file's byte range -> stripes -> elements -> OSSs.
//!
//! # The model
//!
//! - A code's [`Geometry`] is a grid of `rows x cols` elements; each element is
//!   `element_bytes` long (the *stripe unit*). The *stripe width* is the number of columns:
//!   one column per OSS. A stripe holds `data_count` data elements.
//! - File bytes fill stripes in order: stripe `s` holds file bytes
//!   `[s * stripe_data_bytes, (s + 1) * stripe_data_bytes)`, and inside a stripe the bytes fill
//!   the data elements in the **code's data order** (`Geometry::data_pos`), one element after
//!   the other.
//! - Like a Lustre file with `stripe_count = width`, a file lives on `width` OSSs out of the
//!   `oss_count` of the system: the OSSs `first, first+1, .., first+width-1 (mod oss_count)`
//!   where `first = (file * width) % oss_count` (files are spread round robin; with
//!   `oss_count == width`, as in the seed's 512/512 setup, every file uses every OSS).
//! - **Parity rotation (left-symmetric).** Code column `c` of stripe `s` is stored on slot
//!   `(c + width - s % width) % width` of the file's OSSs. With the parity in the code's last
//!   column(s) (RAID-5, RAID-6 P+Q, Reed-Solomon) this is the classic left-symmetric RAID
//!   layout: the parity moves one OSS to the left per stripe and the stripe's data continues
//!   right after it. Over any `width` consecutive stripes each of the file's OSSs holds every
//!   column exactly once, so each holds parity equally often.
//! - **Home addresses.** Each OSS keeps one object per file (its *home*: the data and parity
//!   zones). Stripe `s`'s column lives at object offset `s * rows * element_bytes`, row `r` at
//!   `+ r * element_bytes`: one contiguous chunk per stripe and column, as in
//!   `exaraid_codes::StripeBuf`.

use crate::{FileId, PlanError};
use exaraid_codes::{Cell, Code, Geometry, Pos};
use serde::Serialize;

/// Most OSSs a layout accepts (the seed uses 512; this is far above any real system).
pub const OSS_COUNT_MAX: usize = 1 << 20;
/// Largest stripe unit accepted: 1 GiB (the seed uses 1 MiB).
pub const ELEMENT_BYTES_MAX: u64 = 1 << 30;
/// Largest file offset accepted (2^60 bytes): keeps every address computation in u64.
pub const FILE_BYTES_MAX: u64 = 1 << 60;

/// A byte range inside one element of one stripe: what a step addresses, logically.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ElementRange {
    /// Stripe index inside the file.
    pub stripe: u64,
    /// Position in the code's grid (`pos.col` is the code column, not the OSS).
    pub pos: Pos,
    /// Data(i) (index in the code's data order) or Parity(j).
    pub cell: Cell,
    /// First byte inside the element.
    pub offset_bytes: u64,
    pub len_bytes: u64,
}

/// Where a file byte lives at home.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DataAddress {
    pub stripe: u64,
    /// Index in the code's data order.
    pub data: usize,
    pub pos: Pos,
    pub offset_in_element_bytes: u64,
    pub oss: usize,
    /// Offset inside the file's home object on `oss`.
    pub home_addr_bytes: u64,
}

/// The layout of every file of the system (all files share code, stripe unit and OSS count).
#[derive(Clone, Debug)]
pub struct Layout {
    geometry: Geometry,
    code_name: String,
    element_bytes: u64,
    oss_count: usize,
}

impl Layout {
    /// A layout for a built code. `element_bytes` is the stripe unit; `oss_count` the OSSs of
    /// the system (at least the code's column count, the stripe width).
    pub fn new(code: &Code, element_bytes: u64, oss_count: usize) -> Result<Layout, PlanError> {
        Layout::from_geometry(
            code.geometry().clone(),
            &code.spec().to_string(),
            element_bytes,
            oss_count,
        )
    }

    /// RAID-0: `width` data columns, one row, no parity.
    pub fn raid0(width: usize, element_bytes: u64, oss_count: usize) -> Result<Layout, PlanError> {
        if width == 0 {
            return Err(PlanError::BadLayout(
                "stripe width 0: a RAID-0 stripe needs at least one column".into(),
            ));
        }
        let geometry = Geometry::from_parts(
            1,
            width,
            (0..width).map(Cell::Data).collect(),
            Vec::new(),
            0,
        );
        Layout::from_geometry(
            geometry,
            &format!("raid0 width={width}"),
            element_bytes,
            oss_count,
        )
    }

    /// A layout from any geometry (the codes crate builds them; tests may build their own).
    pub fn from_geometry(
        geometry: Geometry,
        code_name: &str,
        element_bytes: u64,
        oss_count: usize,
    ) -> Result<Layout, PlanError> {
        let width = geometry.cols;
        if geometry.data_count() == 0 {
            return Err(PlanError::BadLayout(format!(
                "code {code_name} has no data elements"
            )));
        }
        if element_bytes == 0 || element_bytes > ELEMENT_BYTES_MAX {
            return Err(PlanError::BadLayout(format!(
                "stripe unit {element_bytes} bytes is outside 1..={ELEMENT_BYTES_MAX}: use e.g. 1048576 (1 MiB)"
            )));
        }
        if oss_count < width || oss_count > OSS_COUNT_MAX {
            return Err(PlanError::BadLayout(format!(
                "{oss_count} OSSs cannot hold stripes {width} columns wide ({code_name}): need {width}..={OSS_COUNT_MAX} OSSs"
            )));
        }
        Ok(Layout {
            geometry,
            code_name: code_name.to_string(),
            element_bytes,
            oss_count,
        })
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }
    pub fn code_name(&self) -> &str {
        &self.code_name
    }
    /// The stripe unit.
    pub fn element_bytes(&self) -> u64 {
        self.element_bytes
    }
    pub fn oss_count(&self) -> usize {
        self.oss_count
    }
    /// Stripe width = the code's column count = OSSs per file.
    pub fn width(&self) -> usize {
        self.geometry.cols
    }
    pub fn rows(&self) -> usize {
        self.geometry.rows
    }
    pub fn data_per_stripe(&self) -> usize {
        self.geometry.data_count()
    }
    pub fn parity_per_stripe(&self) -> usize {
        self.geometry.parity_count()
    }
    /// File bytes per stripe.
    pub fn stripe_data_bytes(&self) -> u64 {
        self.data_per_stripe() as u64 * self.element_bytes
    }
    /// Bytes one stripe occupies on one OSS (one column).
    pub fn column_bytes(&self) -> u64 {
        self.rows() as u64 * self.element_bytes
    }

    /// The first of the file's `width` OSSs.
    pub fn file_first_oss(&self, file: FileId) -> usize {
        ((file as u128 * self.width() as u128) % self.oss_count as u128) as usize
    }

    /// The slot (0..width) among the file's OSSs that holds code column `col` of `stripe`:
    /// left-symmetric rotation.
    pub fn slot(&self, stripe: u64, col: usize) -> usize {
        let width = self.width();
        assert!(
            col < width,
            "column {col} outside a stripe of width {width}"
        );
        let shift = (stripe % width as u64) as usize;
        (col + width - shift) % width
    }

    /// The OSS that stores code column `col` of `stripe` of `file`.
    pub fn oss_of(&self, file: FileId, stripe: u64, col: usize) -> usize {
        (self.file_first_oss(file) + self.slot(stripe, col)) % self.oss_count
    }

    /// The OSSs of the stripe's parity elements' columns, by parity index.
    pub fn parity_oss(&self, file: FileId, stripe: u64) -> Vec<usize> {
        self.geometry
            .parity_pos
            .iter()
            .map(|p| self.oss_of(file, stripe, p.col))
            .collect()
    }

    /// Offset of a byte of an element inside the file's home object on its OSS.
    pub fn home_addr(&self, stripe: u64, pos: Pos, offset_in_element_bytes: u64) -> u64 {
        assert!(offset_in_element_bytes < self.element_bytes);
        stripe * self.column_bytes() + pos.row as u64 * self.element_bytes + offset_in_element_bytes
    }

    /// Where file byte `offset` lives at home.
    pub fn locate(&self, file: FileId, offset_bytes: u64) -> DataAddress {
        assert!(
            offset_bytes < FILE_BYTES_MAX,
            "offset {offset_bytes} beyond the file size limit"
        );
        let stripe = offset_bytes / self.stripe_data_bytes();
        let in_stripe = offset_bytes % self.stripe_data_bytes();
        let data = (in_stripe / self.element_bytes) as usize;
        let offset_in_element_bytes = in_stripe % self.element_bytes;
        let pos = self.geometry.data_pos[data];
        DataAddress {
            stripe,
            data,
            pos,
            offset_in_element_bytes,
            oss: self.oss_of(file, stripe, pos.col),
            home_addr_bytes: self.home_addr(stripe, pos, offset_in_element_bytes),
        }
    }

    /// The file offset of a byte of a data element: the inverse of [`Layout::locate`].
    pub fn file_offset(&self, stripe: u64, data: usize, offset_in_element_bytes: u64) -> u64 {
        assert!(data < self.data_per_stripe() && offset_in_element_bytes < self.element_bytes);
        stripe * self.stripe_data_bytes()
            + data as u64 * self.element_bytes
            + offset_in_element_bytes
    }

    /// The file offset of the first byte of a data element range (None for parity).
    pub fn file_offset_of(&self, range: &ElementRange) -> Option<u64> {
        match range.cell {
            Cell::Data(d) => Some(self.file_offset(range.stripe, d, range.offset_bytes)),
            _ => None,
        }
    }

    /// Check a file range against the limits.
    pub fn check_range(&self, offset_bytes: u64, len_bytes: u64) -> Result<(), PlanError> {
        if len_bytes == 0 {
            return Err(PlanError::EmptyWrite);
        }
        match offset_bytes.checked_add(len_bytes) {
            Some(end) if end <= FILE_BYTES_MAX => Ok(()),
            _ => Err(PlanError::BeyondFileLimit {
                offset_bytes,
                len_bytes,
                max_bytes: FILE_BYTES_MAX,
            }),
        }
    }

    /// Split a file byte range into per-element pieces, in file order. Each piece is one
    /// contiguous range of one data element: `(file_offset, ElementRange)`.
    pub fn split(
        &self,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> Result<Vec<(u64, ElementRange)>, PlanError> {
        self.check_range(offset_bytes, len_bytes)?;
        let mut out = Vec::new();
        let mut at = offset_bytes;
        let end = offset_bytes + len_bytes;
        while at < end {
            let stripe = at / self.stripe_data_bytes();
            let in_stripe = at % self.stripe_data_bytes();
            let data = (in_stripe / self.element_bytes) as usize;
            let off = in_stripe % self.element_bytes;
            let len = (self.element_bytes - off).min(end - at);
            out.push((
                at,
                ElementRange {
                    stripe,
                    pos: self.geometry.data_pos[data],
                    cell: Cell::Data(data),
                    offset_bytes: off,
                    len_bytes: len,
                },
            ));
            at += len;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{raid5, raid6};
    use proptest::prelude::*;

    #[test]
    fn parity_rotates_left_symmetric_and_every_oss_holds_parity_equally_often() {
        // RAID-5 4+1 on 5 OSSs: parity on OSS 4, 3, 2, 1, 0, 4, ...
        let layout = Layout::from_geometry(raid5(4), "raid5", 4096, 5).unwrap();
        let parity: Vec<usize> = (0..6).map(|s| layout.parity_oss(0, s)[0]).collect();
        assert_eq!(parity, vec![4, 3, 2, 1, 0, 4]);
        // Left-symmetric: data element 0 of stripe 1 sits right after the parity (OSS 4).
        assert_eq!(layout.oss_of(0, 1, 0), 4);
        assert_eq!(layout.oss_of(0, 1, 1), 0);
        // RAID-6 4+2 on 8 OSSs: over one cycle of 6 stripes each of the file's 6 OSSs holds
        // P once and Q once, and the two OSSs outside the file hold nothing.
        let layout = Layout::from_geometry(raid6(4), "raid6", 4096, 8).unwrap();
        for file in 0..4u64 {
            let mut p_count = [0; 8];
            let mut q_count = [0; 8];
            for stripe in 0..6 {
                let par = layout.parity_oss(file, stripe);
                p_count[par[0]] += 1;
                q_count[par[1]] += 1;
            }
            let first = layout.file_first_oss(file);
            for oss in 0..8 {
                let in_file = (oss + 8 - first) % 8 < 6;
                assert_eq!(p_count[oss], in_file as i32, "file {file} OSS {oss}");
                assert_eq!(q_count[oss], in_file as i32, "file {file} OSS {oss}");
            }
        }
    }

    #[test]
    fn a_stripe_uses_distinct_osss() {
        let layout = Layout::from_geometry(raid6(4), "raid6", 4096, 8).unwrap();
        for file in 0..5 {
            for stripe in 0..13 {
                let mut oss: Vec<usize> = (0..6).map(|c| layout.oss_of(file, stripe, c)).collect();
                oss.sort();
                oss.dedup();
                assert_eq!(oss.len(), 6);
            }
        }
    }

    #[test]
    fn too_few_osss_or_a_zero_stripe_unit_is_a_clear_error() {
        let err = Layout::from_geometry(raid6(4), "raid6", 4096, 5).unwrap_err();
        assert!(err.to_string().contains("need 6"), "{err}");
        let err = Layout::from_geometry(raid5(4), "raid5", 0, 5).unwrap_err();
        assert!(err.to_string().contains("stripe unit"), "{err}");
    }

    proptest! {
        #[test]
        fn locate_and_file_offset_round_trip(offset in 0u64..(1 << 40), k in 1usize..9, element_kib in 1u64..64) {
            let layout = Layout::from_geometry(raid5(k), "raid5", element_kib * 1024, k + 3).unwrap();
            let a = layout.locate(7, offset);
            prop_assert_eq!(layout.file_offset(a.stripe, a.data, a.offset_in_element_bytes), offset);
            prop_assert_eq!(a.oss, layout.oss_of(7, a.stripe, a.pos.col));
        }

        #[test]
        fn split_covers_the_range_exactly(offset in 0u64..(1 << 30), len in 1u64..(1 << 22)) {
            let layout = Layout::from_geometry(raid6(5), "raid6", 64 * 1024, 7).unwrap();
            let pieces = layout.split(offset, len).unwrap();
            let mut at = offset;
            for (file_off, piece) in pieces {
                prop_assert_eq!(file_off, at);
                let Cell::Data(d) = piece.cell else { panic!("split returned a parity piece") };
                prop_assert_eq!(layout.file_offset(piece.stripe, d, piece.offset_bytes), file_off);
                prop_assert!(piece.offset_bytes + piece.len_bytes <= layout.element_bytes());
                at += piece.len_bytes;
            }
            prop_assert_eq!(at, offset + len);
        }
    }
}
