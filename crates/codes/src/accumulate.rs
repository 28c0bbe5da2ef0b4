//! Parity accumulated on the side while the data goes elsewhere: the one idea behind the
//! tape tier's VERTICAL policy (the EC of X data tapes built on the mover's disk while the
//! drive streams data, written after the X-th tape) and the store's Delayed Parity (the
//! parity of a window built in memory while the data is written, written after the data).
//!
//! A [`ParityAccumulator`] holds the parity elements of ONE group (one stripe of a code: k
//! data elements, m parity elements). Data elements arrive in any order, whole
//! ([`ParityAccumulator::add`]) or as pieces appended front to back
//! ([`ParityAccumulator::append`]: a tape or a log is written in order); each arrival does
//! `parity ^= coef * data` for exactly the parities the element is in (the code's
//! [`Code::apply_delta`], i.e. its GF(2^8) engine), so the data itself is never kept.
//!
//! **What an incomplete group's parity is.** [`ParityAccumulator::finish`] may be called
//! before every data element arrived: the parity returned is that of the data that did
//! arrive with every missing byte counted as zero. That is what VERTICAL writes at the end
//! of data (fewer than X data tapes, or a last tape only partly full: nothing was written
//! there, so a rebuild reads zeros too). For Delayed Parity over a window that covers a
//! stripe only partly it is the window's *contribution*: exactly the stripe's parity when
//! the rest of the stripe was never written (zeros), and otherwise the parity once the
//! elements already at home are added as further arrivals (parity is linear) -- the
//! store's planner (crates/plan, `delayed`) completes such a stripe from home instead.
//! Only the first [`Finished::extent_bytes`] bytes of each parity element can be non-zero
//! (beyond the longest data element every data byte is zero), which is why VERTICAL's EC
//! areas are as long as the longest data tape of their group.
//!
//! **Two modes, one bookkeeping.** Byte mode ([`ParityAccumulator::new`]) keeps the m
//! parity buffers and is checked against [`Code::encode`] (tests/accumulate.rs). Size mode
//! ([`ParityAccumulator::sizes_only`]) keeps no buffer and only counts: a simulator that
//! moves sizes, not bytes (the archive's VERTICAL) uses the same arrival rules, the same
//! completeness test and the same extent as the byte mode. Sizes are `f64` byte counts:
//! exact for whole bytes below 2^53 (9 PB), and a fluid simulator moves fractional bytes
//! (a request's size divided by its compression ratio).

use crate::{Code, CodeError};

/// Most data elements one group may have (the bitmap's limit): every code exaraid builds
/// fits (rs k <= 254; the widest array code, X-Code at p = 127, has 15,875).
pub const MAX_GROUP_DATA_ELEMENTS: usize = 1 << 16;

/// Most parity elements one group may have in size mode (byte mode takes the code's).
pub const MAX_GROUP_PARITY_ELEMENTS: usize = 255;

/// The parity of one group, as [`ParityAccumulator::finish`] hands it back.
#[derive(Clone, Debug, PartialEq)]
pub struct Finished {
    /// Byte mode: the m parity elements, each `element_bytes` long (bytes past
    /// `extent_bytes` are zero). Size mode: empty.
    pub parity: Vec<Vec<u8>>,
    /// How many parity elements the group has (m), in both modes.
    pub parity_count: usize,
    /// The longest data element that arrived, in bytes: the length of each parity element
    /// that must be written (the rest is zeros).
    pub extent_bytes: f64,
    /// Whether every data element had arrived (closed) when the group was finished.
    pub complete: bool,
    /// Data bytes the parity covers (the sum over data elements).
    pub data_bytes: f64,
}

/// Parity built incrementally as the data elements of one group arrive. See the module
/// documentation for the semantics of an incomplete group.
#[derive(Clone, Debug)]
pub struct ParityAccumulator {
    /// Byte mode: the code whose coefficients combine the data. Size mode: None.
    code: Option<Code>,
    data_count: usize,
    parity_count: usize,
    /// Byte mode: every data and parity element's size. Size mode: None (no cap: a tape's
    /// capacity is the simulator's business).
    element_bytes: Option<usize>,
    /// Bytes arrived so far, per data element (pieces append at this offset).
    fill_bytes: Vec<f64>,
    /// Bit d set: data element d has arrived in full (or was closed early) and takes no
    /// more bytes.
    closed: Vec<u64>,
    closed_count: usize,
    /// Byte mode: the m parity elements being built.
    parity: Vec<Vec<u8>>,
}

impl ParityAccumulator {
    /// Byte mode: the parity of one stripe of `code` with `element_bytes` per element.
    pub fn new(code: &Code, element_bytes: usize) -> Result<ParityAccumulator, CodeError> {
        code.check_element_bytes(element_bytes)?;
        let g = code.geometry();
        let (data_count, parity_count) = (g.data_count(), g.parity_count());
        check_group_size(data_count, parity_count)?;
        Ok(ParityAccumulator {
            code: Some(code.clone()),
            data_count,
            parity_count,
            element_bytes: Some(element_bytes),
            fill_bytes: vec![0.0; data_count],
            closed: vec![0; data_count.div_ceil(64)],
            closed_count: 0,
            parity: vec![vec![0u8; element_bytes]; parity_count],
        })
    }

    /// Size mode: the same bookkeeping for `data_count` data and `parity_count` parity
    /// elements, without buffers. `parity_count` may be 0 (a scheme without EC: nothing is
    /// ever pending to write, but arrivals are still tracked).
    pub fn sizes_only(
        data_count: usize,
        parity_count: usize,
    ) -> Result<ParityAccumulator, CodeError> {
        check_group_size(data_count, parity_count)?;
        Ok(ParityAccumulator {
            code: None,
            data_count,
            parity_count,
            element_bytes: None,
            fill_bytes: vec![0.0; data_count],
            closed: vec![0; data_count.div_ceil(64)],
            closed_count: 0,
            parity: Vec::new(),
        })
    }

    pub fn data_count(&self) -> usize {
        self.data_count
    }
    pub fn parity_count(&self) -> usize {
        self.parity_count
    }
    /// Whether this accumulator keeps parity bytes (byte mode) or only counts (size mode).
    pub fn keeps_bytes(&self) -> bool {
        self.code.is_some()
    }

    /// Byte mode: data element `data` arrives whole (`bytes` is exactly one element).
    pub fn add(&mut self, data: usize, bytes: &[u8]) -> Result<(), CodeError> {
        let element_bytes = self.byte_mode("add")?;
        if bytes.len() != element_bytes {
            return Err(CodeError::BadElementSize {
                got: bytes.len(),
                why: format!("a whole data element of this group is exactly {element_bytes} bytes; use append for a piece"),
            });
        }
        self.check_open(data)?;
        if self.fill_bytes[data] > 0.0 {
            return Err(CodeError::BadParameters(format!(
                "data element {data} already has {} bytes in this group: a whole element can only be added once, before any piece",
                self.fill_bytes[data]
            )));
        }
        self.append(data, bytes)
    }

    /// Byte mode: the next piece of data element `data`, appended after what it already
    /// has (pieces of one element arrive front to back, as on a tape or in a log). The
    /// element closes by itself when it is full. `bytes.len()` must be a multiple of 32
    /// (the kernels' lane), so pad the last piece with zeros.
    pub fn append(&mut self, data: usize, bytes: &[u8]) -> Result<(), CodeError> {
        let element_bytes = self.byte_mode("append")?;
        self.check_open(data)?;
        let offset = self.fill_bytes[data] as usize;
        let room = element_bytes - offset;
        if bytes.is_empty()
            || bytes.len() > room
            || !bytes.len().is_multiple_of(crate::ELEMENT_ALIGN_BYTES)
        {
            return Err(CodeError::BadElementSize {
                got: bytes.len(),
                why: format!(
                    "data element {data} has {room} of its {element_bytes} bytes left and pieces are non-empty multiples of {} bytes; pad the last piece with zeros",
                    crate::ELEMENT_ALIGN_BYTES
                ),
            });
        }
        let code = self.code.as_ref().expect("byte mode has a code");
        for &p in &code.geometry().data_parities[data] {
            code.apply_delta(
                p,
                data,
                bytes,
                &mut self.parity[p][offset..offset + bytes.len()],
            )?;
        }
        self.fill_bytes[data] += bytes.len() as f64;
        if self.fill_bytes[data] as usize == element_bytes {
            self.set_closed(data);
        }
        Ok(())
    }

    /// Size mode: `size_bytes` more bytes of data element `data` (its parity contribution
    /// as it will lie on the medium; fractional sizes are allowed).
    pub fn append_size(&mut self, data: usize, size_bytes: f64) -> Result<(), CodeError> {
        if self.code.is_some() {
            return Err(CodeError::BadParameters(
                "append_size is for a size-only accumulator; this one keeps bytes: use add or append".to_string(),
            ));
        }
        self.check_open(data)?;
        if !(size_bytes.is_finite() && size_bytes >= 0.0) {
            return Err(CodeError::BadParameters(format!(
                "a piece of {size_bytes} bytes makes no sense: sizes are finite and >= 0"
            )));
        }
        self.fill_bytes[data] += size_bytes;
        Ok(())
    }

    /// Data element `data` ends here: it takes no more bytes and counts as arrived; its
    /// missing tail is zeros (VERTICAL: a data tape is full, or the data ended).
    pub fn close(&mut self, data: usize) -> Result<(), CodeError> {
        self.check_open(data)?;
        self.set_closed(data);
        Ok(())
    }

    /// Whether data element `data` has arrived (full or closed).
    pub fn has_arrived(&self, data: usize) -> bool {
        data < self.data_count && self.closed[data / 64] & (1 << (data % 64)) != 0
    }
    /// How many data elements have arrived.
    pub fn arrived_count(&self) -> usize {
        self.closed_count
    }
    /// Every data element has arrived: the parity is final.
    pub fn is_complete(&self) -> bool {
        self.closed_count == self.data_count
    }
    /// Bytes of data element `data` so far.
    pub fn fill_bytes(&self, data: usize) -> f64 {
        self.fill_bytes[data]
    }
    /// Data bytes whose parity is held here and not yet written (the sum over elements).
    pub fn pending_bytes(&self) -> f64 {
        self.fill_bytes.iter().sum()
    }
    /// The longest data element so far: the bytes of each parity element worth writing.
    pub fn extent_bytes(&self) -> f64 {
        self.fill_bytes.iter().copied().fold(0.0, f64::max)
    }

    /// Hand back the group's parity (see the module documentation for an incomplete group)
    /// and start an empty group of the same shape.
    pub fn finish(&mut self) -> Finished {
        let finished = Finished {
            parity: self
                .parity
                .iter_mut()
                .map(|p| std::mem::replace(p, vec![0u8; p.len()]))
                .collect(),
            parity_count: self.parity_count,
            extent_bytes: self.extent_bytes(),
            complete: self.is_complete(),
            data_bytes: self.pending_bytes(),
        };
        self.fill_bytes.iter_mut().for_each(|b| *b = 0.0);
        self.closed.iter_mut().for_each(|w| *w = 0);
        self.closed_count = 0;
        finished
    }

    fn byte_mode(&self, what: &str) -> Result<usize, CodeError> {
        self.element_bytes.ok_or_else(|| {
            CodeError::BadParameters(format!("{what} needs bytes but this accumulator counts sizes only; use append_size, or build it with ParityAccumulator::new"))
        })
    }

    fn check_open(&self, data: usize) -> Result<(), CodeError> {
        if data >= self.data_count {
            return Err(CodeError::BadDataIndex {
                index: data,
                count: self.data_count,
            });
        }
        if self.has_arrived(data) {
            return Err(CodeError::BadParameters(format!(
                "data element {data} has already arrived in this group: its parity is counted once; finish the group before sending it again"
            )));
        }
        Ok(())
    }

    fn set_closed(&mut self, data: usize) {
        assert!(!self.has_arrived(data), "an element closes once");
        self.closed[data / 64] |= 1 << (data % 64);
        self.closed_count += 1;
        assert!(self.closed_count <= self.data_count);
    }
}

fn check_group_size(data_count: usize, parity_count: usize) -> Result<(), CodeError> {
    if data_count == 0 || data_count > MAX_GROUP_DATA_ELEMENTS {
        return Err(CodeError::BadParameters(format!(
            "a group has 1..={MAX_GROUP_DATA_ELEMENTS} data elements, not {data_count}"
        )));
    }
    if parity_count > MAX_GROUP_PARITY_ELEMENTS {
        return Err(CodeError::BadParameters(format!(
            "a group has at most {MAX_GROUP_PARITY_ELEMENTS} parity elements, not {parity_count}"
        )));
    }
    Ok(())
}
