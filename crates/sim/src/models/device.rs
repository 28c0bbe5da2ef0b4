//! Storage device service-time models: a 7200 rpm HDD (WD Black 750 GB class), a SATA SSD
//! (Intel SSD 320 class) and a measured table loaded from CSV (see `calibration`).
//!
//! Every constant below names its public source; docs/models.md lists them again.
//! The models are statistical (random rotational position, random seek distance when no
//! request is queued at a nearby position) and driven by the seeded RNG of the run, so a
//! seed fixes every service time.
//!
//! Interference between concurrent requests is modelled, not fitted:
//! - HDD: the device holds up to `NCQ_DEPTH` requests and serves the one nearest to the head
//!   first (shortest seek first, the effect of native command queueing); a request that
//!   starts exactly where the previous one ended is sequential (no seek, no rotation).
//!   Many interleaved clients therefore break sequential streams into random accesses, and a
//!   deep queue shortens seeks.
//! - SSD: `SSD_PARALLEL_UNITS` requests are in service at once (the controller's channels);
//!   small random requests are bound by the random IOPS figure, large ones by bandwidth, and
//!   reads queue behind writes on the same units.

use super::calibration::MeasuredTable;
use exaraid_des::TimeNs;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Read or write at the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoKind {
    Read,
    Write,
}

/// One request as the device sees it: a byte address on the device and a length.
#[derive(Clone, Copy, Debug)]
pub struct DeviceRequest {
    pub kind: IoKind,
    pub address_bytes: u64,
    pub size_bytes: u64,
}

/// Which model a device uses.
#[derive(Clone, Debug)]
pub enum DeviceKind {
    Hdd(HddParams),
    Ssd(SsdParams),
    /// A latency table measured with fio on a real device (calibration CSV).
    Measured(std::sync::Arc<MeasuredTable>),
}

impl DeviceKind {
    /// How many requests the device serves at the same time.
    pub fn parallel_units(&self) -> usize {
        match self {
            DeviceKind::Hdd(_) => 1,
            DeviceKind::Ssd(p) => p.parallel_units,
            DeviceKind::Measured(_) => 1,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            DeviceKind::Hdd(_) => "hdd",
            DeviceKind::Ssd(_) => "ssd",
            DeviceKind::Measured(_) => "measured",
        }
    }
}

// ---------------------------------------------------------------------------------------
// HDD: WD Black 750 GB class, 7200 rpm.

/// 7200 revolutions per minute: one revolution takes 60 / 7200 s = 8.333 ms; the average
/// rotational latency is half of that, 4.17 ms. Source: the drive's nominal spindle speed
/// (WD Black product line, "7200 RPM"); WD lists "Average latency 4.20 ms" for the WD Black
/// family (e.g. https://storagereview.com/it/review/wd-black-4tb-review-wd4001faex, spec list).
pub const HDD_RPM: f64 = 7200.0;

/// Sustained host-to/from-drive transfer rate of the WD Black 750 GB (WD7502AAEX):
/// 126 MB/s (WD Black specification sheet, "Performance: Data transfer rate, host to/from
/// drive (sustained)"). Decimal megabytes.
pub const HDD_SUSTAINED_BYTES_PER_S: f64 = 126.0e6;

/// Average seek time and single-track seek time of a WD 7200 rpm drive. WD's desktop
/// (WD Black) sheets do not publish seek times, so we take the values WD publishes for its
/// 7200 rpm 3.5-inch OEM drives: average seek read 7.4 ms / write 8.2 ms, single-track
/// seek read 0.23 ms / write 0.32 ms (Western Digital Ultrastar DC HC310 OEM specification,
/// section 4.5.1, Tables 5 and 6; https://manualshive.com/en/manual/western-digital/ultrastar-dc-hc310/961649?page=23).
pub const HDD_AVG_SEEK_READ_S: f64 = 7.4e-3;
pub const HDD_AVG_SEEK_WRITE_S: f64 = 8.2e-3;
pub const HDD_TRACK_SEEK_READ_S: f64 = 0.23e-3;
pub const HDD_TRACK_SEEK_WRITE_S: f64 = 0.32e-3;

/// Capacity: 750 GB (decimal), the drive the seed names (section 3).
pub const HDD_CAPACITY_BYTES: u64 = 750_000_000_000;

/// SATA native command queueing holds at most 32 commands (SATA revision 2.6, NCQ; also
/// "Queue Depth : 32" reported for WD drives). The device picks among these.
pub const NCQ_DEPTH: usize = 32;

#[derive(Clone, Debug)]
pub struct HddParams {
    pub rpm: f64,
    pub sustained_bytes_per_s: f64,
    pub avg_seek_read_s: f64,
    pub avg_seek_write_s: f64,
    pub track_seek_read_s: f64,
    pub track_seek_write_s: f64,
    pub capacity_bytes: u64,
}

impl Default for HddParams {
    fn default() -> Self {
        HddParams {
            rpm: HDD_RPM,
            sustained_bytes_per_s: HDD_SUSTAINED_BYTES_PER_S,
            avg_seek_read_s: HDD_AVG_SEEK_READ_S,
            avg_seek_write_s: HDD_AVG_SEEK_WRITE_S,
            track_seek_read_s: HDD_TRACK_SEEK_READ_S,
            track_seek_write_s: HDD_TRACK_SEEK_WRITE_S,
            capacity_bytes: HDD_CAPACITY_BYTES,
        }
    }
}

impl HddParams {
    pub fn revolution_s(&self) -> f64 {
        60.0 / self.rpm
    }

    /// Seek time for a head movement of `distance_fraction` of the full stroke (0..=1).
    ///
    /// The seek curve of Ruemmler and Wilkes ("An introduction to disk drive modeling",
    /// IEEE Computer 1994): seek time grows with the square root of the distance for short
    /// seeks. We use t(d) = t_track + k * sqrt(d), with k chosen so that the mean over
    /// uniformly random start and end positions (E[sqrt(|U1-U2|)] = 8/15) equals the
    /// published average seek time. No constant is fitted to a result.
    pub fn seek_s(&self, kind: IoKind, distance_fraction: f64) -> f64 {
        debug_assert!((0.0..=1.0).contains(&distance_fraction));
        if distance_fraction == 0.0 {
            return 0.0;
        }
        let (avg, track) = match kind {
            IoKind::Read => (self.avg_seek_read_s, self.track_seek_read_s),
            IoKind::Write => (self.avg_seek_write_s, self.track_seek_write_s),
        };
        let k = (avg - track) / (8.0 / 15.0);
        track + k * distance_fraction.sqrt()
    }

    pub fn transfer_s(&self, size_bytes: u64) -> f64 {
        size_bytes as f64 / self.sustained_bytes_per_s
    }
}

// ---------------------------------------------------------------------------------------
// SSD: Intel SSD 320 class (SATA 3 Gb/s, MLC).

/// Intel Solid-State Drive 320 Series Product Specification, order number 325152-001US
/// (March 2011), page 1 "Bandwidth Performance (Iometer Queue Depth 32)" and "Read and
/// Write IOPS": sustained sequential read up to 270 MB/s, sequential write up to 220 MB/s,
/// random 4 KB reads up to 39,500 IOPS, random 4 KB writes up to 23,000 IOPS; latency
/// (average sequential) read 75 us, write 90 us. (https://docslib.org/doc/4873323/intel-solid-state-drive-320-series-product-specification)
/// These are the family's "up to" values; the spec notes that values vary by capacity.
pub const SSD_SEQ_READ_BYTES_PER_S: f64 = 270.0e6;
pub const SSD_SEQ_WRITE_BYTES_PER_S: f64 = 220.0e6;
pub const SSD_RANDOM_4K_READ_IOPS: f64 = 39_500.0;
pub const SSD_RANDOM_4K_WRITE_IOPS: f64 = 23_000.0;
pub const SSD_SEQ_READ_LATENCY_S: f64 = 75.0e-6;
pub const SSD_SEQ_WRITE_LATENCY_S: f64 = 90.0e-6;
/// The Intel 320 controller has 10 NAND channels (guru3d Intel 320 review, "The 10-channel
/// controller", https://guru3d.com/review/intel-320-ssd-review/page-2): requests in service at once.
pub const SSD_PARALLEL_UNITS: usize = 10;
/// 160 GB, the capacity the seed names (section 3).
pub const SSD_CAPACITY_BYTES: u64 = 160_000_000_000;

#[derive(Clone, Debug)]
pub struct SsdParams {
    pub seq_read_bytes_per_s: f64,
    pub seq_write_bytes_per_s: f64,
    pub random_4k_read_iops: f64,
    pub random_4k_write_iops: f64,
    pub seq_read_latency_s: f64,
    pub seq_write_latency_s: f64,
    pub parallel_units: usize,
    pub capacity_bytes: u64,
}

impl Default for SsdParams {
    fn default() -> Self {
        SsdParams {
            seq_read_bytes_per_s: SSD_SEQ_READ_BYTES_PER_S,
            seq_write_bytes_per_s: SSD_SEQ_WRITE_BYTES_PER_S,
            random_4k_read_iops: SSD_RANDOM_4K_READ_IOPS,
            random_4k_write_iops: SSD_RANDOM_4K_WRITE_IOPS,
            seq_read_latency_s: SSD_SEQ_READ_LATENCY_S,
            seq_write_latency_s: SSD_SEQ_WRITE_LATENCY_S,
            parallel_units: SSD_PARALLEL_UNITS,
            capacity_bytes: SSD_CAPACITY_BYTES,
        }
    }
}

impl SsdParams {
    /// Time one of the `parallel_units` spends on a request.
    ///
    /// The spec's figures are aggregates at queue depth 32 over all units, so one unit
    /// sustains 1/units of each. A random request costs at least one random-IOPS slot per
    /// 4 KiB page touched and at least its bytes at the unit's share of the sequential
    /// bandwidth; a sequential request costs its bytes at that share, and never less than
    /// the spec's sequential latency.
    pub fn unit_service_s(&self, kind: IoKind, size_bytes: u64, sequential: bool) -> f64 {
        let units = self.parallel_units as f64;
        let (bw, iops, latency) = match kind {
            IoKind::Read => (
                self.seq_read_bytes_per_s,
                self.random_4k_read_iops,
                self.seq_read_latency_s,
            ),
            IoKind::Write => (
                self.seq_write_bytes_per_s,
                self.random_4k_write_iops,
                self.seq_write_latency_s,
            ),
        };
        let bandwidth_s = size_bytes as f64 * units / bw;
        if sequential {
            bandwidth_s.max(latency)
        } else {
            let pages = size_bytes.div_ceil(4096).max(1) as f64;
            // A random request pays one random-IOPS slot for its first page; further pages
            // stream at the bandwidth share.
            let first_page_s = units / iops;
            let rest_s = (pages - 1.0) * 4096.0 * units / bw;
            (first_page_s + rest_s).max(bandwidth_s)
        }
    }
}

// ---------------------------------------------------------------------------------------
// A device instance with its queue and head state.

/// A device's queued requests and the state its model needs. `T` is the caller's tag for
/// a request (the executor's step id).
pub struct Device<T> {
    pub kind: DeviceKind,
    /// Requests handed to the device (at most NCQ_DEPTH beyond those in service).
    queue: Vec<(DeviceRequest, T)>,
    /// Units busy now.
    busy_units: usize,
    /// Where the last request ended (sequential detection, HDD head position).
    head_bytes: u64,
    pub busy_ns: u64,
}

impl<T> Device<T> {
    pub fn new(kind: DeviceKind) -> Device<T> {
        Device {
            kind,
            queue: Vec::with_capacity(NCQ_DEPTH),
            busy_units: 0,
            head_bytes: 0,
            busy_ns: 0,
        }
    }

    /// Room for another queued request (the OSS threads hold the rest).
    pub fn has_room(&self) -> bool {
        self.queue.len() + self.busy_units < NCQ_DEPTH + self.kind.parallel_units()
    }

    pub fn enqueue(&mut self, request: DeviceRequest, tag: T) {
        assert!(
            self.has_room(),
            "device queue overflow: callers must check has_room"
        );
        self.queue.push((request, tag));
    }

    /// Start a request if a unit is free: returns its tag and service time.
    pub fn start_next(&mut self, rng: &mut ChaCha8Rng) -> Option<(T, TimeNs)> {
        if self.busy_units >= self.kind.parallel_units() || self.queue.is_empty() {
            return None;
        }
        let capacity = self.capacity_bytes().max(1);
        let index = match &self.kind {
            // Shortest seek first among the queued requests (NCQ reordering); FIFO on ties.
            DeviceKind::Hdd(_) => {
                let head = self.head_bytes;
                let mut best = 0;
                let mut best_d = u64::MAX;
                for (i, (r, _)) in self.queue.iter().enumerate() {
                    let d = r.address_bytes.abs_diff(head);
                    if d < best_d {
                        best_d = d;
                        best = i;
                    }
                }
                best
            }
            _ => 0,
        };
        // Keep FIFO order of the rest (Vec::remove shifts at most NCQ_DEPTH entries).
        let (request, tag) = self.queue.remove(index);
        let sequential = request.address_bytes == self.head_bytes;
        let service_s = match &self.kind {
            DeviceKind::Hdd(p) => {
                let positioning = if sequential {
                    0.0
                } else {
                    let distance =
                        request.address_bytes.abs_diff(self.head_bytes) as f64 / capacity as f64;
                    // Rotational position is uniform: latency uniform in [0, one revolution).
                    p.seek_s(request.kind, distance.min(1.0)) + rng.gen::<f64>() * p.revolution_s()
                };
                positioning + p.transfer_s(request.size_bytes)
            }
            DeviceKind::Ssd(p) => p.unit_service_s(request.kind, request.size_bytes, sequential),
            DeviceKind::Measured(table) => {
                let depth = self.queue.len() + self.busy_units + 1;
                table.sample_s(request.kind, request.size_bytes, sequential, depth, rng)
            }
        };
        self.head_bytes = request.address_bytes + request.size_bytes;
        self.busy_units += 1;
        let service_ns = exaraid_des::ns_from_s(service_s).max(1);
        self.busy_ns += service_ns;
        Some((tag, service_ns))
    }

    /// A unit finished its request.
    pub fn finish(&mut self) {
        assert!(self.busy_units > 0, "finish without a request in service");
        self.busy_units -= 1;
    }

    pub fn capacity_bytes(&self) -> u64 {
        match &self.kind {
            DeviceKind::Hdd(p) => p.capacity_bytes,
            DeviceKind::Ssd(p) => p.capacity_bytes,
            DeviceKind::Measured(_) => HDD_CAPACITY_BYTES,
        }
    }

    pub fn queued(&self) -> usize {
        self.queue.len() + self.busy_units
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn mean_service_s(kind: DeviceKind, io: IoKind, size: u64, sequential: bool) -> f64 {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut dev: Device<u32> = Device::new(kind);
        let mut total = 0.0;
        let n = 2000u64;
        let mut addr = 0u64;
        for i in 0..n {
            let address = if sequential {
                addr
            } else {
                rng.gen_range(0..dev.capacity_bytes() / 4096) * 4096
            };
            dev.enqueue(
                DeviceRequest {
                    kind: io,
                    address_bytes: address,
                    size_bytes: size,
                },
                i as u32,
            );
            let (_, ns) = dev.start_next(&mut rng).unwrap();
            dev.finish();
            total += ns as f64 / 1e9;
            addr = address + size;
        }
        total / n as f64
    }

    #[test]
    fn hdd_sequential_is_faster_than_random_and_larger_requests_take_longer() {
        let hdd = || DeviceKind::Hdd(HddParams::default());
        let seq = mean_service_s(hdd(), IoKind::Write, 128 << 10, true);
        let rnd = mean_service_s(hdd(), IoKind::Write, 128 << 10, false);
        assert!(seq * 5.0 < rnd, "sequential {seq} vs random {rnd}");
        let small = mean_service_s(hdd(), IoKind::Read, 4 << 10, false);
        let large = mean_service_s(hdd(), IoKind::Read, 1 << 20, false);
        assert!(small < large);
    }

    #[test]
    fn hdd_random_service_time_follows_from_the_spec_constants() {
        // Random 4 KiB reads: mean = average seek + half a revolution + transfer, computed
        // from the constants, not fitted.
        let p = HddParams::default();
        let expected = p.avg_seek_read_s + p.revolution_s() / 2.0 + p.transfer_s(4096);
        let got = mean_service_s(DeviceKind::Hdd(p), IoKind::Read, 4096, false);
        assert!(
            (got - expected).abs() / expected < 0.05,
            "got {got}, expected {expected}"
        );
        // And the rotational latency is the seed's 4.17 ms.
        assert!((HddParams::default().revolution_s() / 2.0 - 4.1667e-3).abs() < 1e-6);
    }

    #[test]
    fn ssd_aggregate_rates_follow_from_the_spec_constants() {
        let p = SsdParams::default();
        let units = p.parallel_units as f64;
        let iops = units / p.unit_service_s(IoKind::Write, 4096, false);
        assert!((iops - SSD_RANDOM_4K_WRITE_IOPS).abs() < 1.0, "{iops}");
        let bw = units * (1 << 20) as f64 / p.unit_service_s(IoKind::Read, 1 << 20, true);
        assert!((bw - SSD_SEQ_READ_BYTES_PER_S).abs() < 1.0, "{bw}");
        assert!(
            p.unit_service_s(IoKind::Write, 8192, true)
                < p.unit_service_s(IoKind::Write, 8192, false)
        );
        assert!(
            p.unit_service_s(IoKind::Write, 4096, false)
                < p.unit_service_s(IoKind::Write, 1 << 20, false)
        );
    }

    #[test]
    fn a_deep_queue_shortens_hdd_seeks() {
        // Interference model: with 32 queued random requests the device serves the nearest
        // first, so the mean service time drops below the queue-depth-1 mean.
        let p = HddParams::default();
        let qd1 = mean_service_s(DeviceKind::Hdd(p.clone()), IoKind::Write, 64 << 10, false);
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut dev: Device<u32> = Device::new(DeviceKind::Hdd(p));
        let cap = dev.capacity_bytes();
        let mut total = 0.0;
        let n = 2000;
        for i in 0..n {
            while dev.has_room() {
                let a = rng.gen_range(0..cap / 4096) * 4096;
                dev.enqueue(
                    DeviceRequest {
                        kind: IoKind::Write,
                        address_bytes: a,
                        size_bytes: 64 << 10,
                    },
                    i,
                );
            }
            let (_, ns) = dev.start_next(&mut rng).unwrap();
            dev.finish();
            total += ns as f64 / 1e9;
        }
        let qd32 = total / n as f64;
        assert!(qd32 < qd1 * 0.8, "qd32 {qd32} vs qd1 {qd1}");
    }
}
