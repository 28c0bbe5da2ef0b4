//! The platform of the seed's experiments and every tape, library and mover constant, each
//! with its public source. docs/models.md lists the same table.
//!
//! Seed: Cappello, Jacquelin, Marchal, Robert, Snir, "Comparing archival policies for Blue
//! Waters", INRIA RR-7583 (2011), section 3.1 (platform) and section 6.1 (instance used in
//! the experiments).

use serde::{Deserialize, Serialize};

pub const BYTES_PER_MB: f64 = 1e6;
pub const BYTES_PER_GB: f64 = 1e9;
pub const BYTES_PER_TB: f64 = 1e12;

/// One tape drive model. Times in seconds, rates in bytes per second.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DriveSpec {
    pub name: String,
    /// Native (uncompressed) streaming rate: bytes moved on tape per second.
    pub native_rate_bytes_per_s: f64,
    /// Upper bound on the host-side rate whatever the compression (the interface).
    pub host_rate_max_bytes_per_s: f64,
    /// From cartridge inserted to ready.
    pub load_to_ready_s: f64,
    /// Unload (unthread and eject) once rewound.
    pub unload_s: f64,
    /// Average time to position from the load point to a record (uniform target), so a
    /// locate over the full tape length is twice this.
    pub locate_avg_from_bot_s: f64,
    /// Average rewind time (uniform position), so a rewind from the far end is twice this.
    pub rewind_avg_s: f64,
    /// The drive's data buffer: a stream that stops (buffer underrun on write, overrun on
    /// read) costs at most the time the buffer covers at the native rate (see `restart_s`).
    pub buffer_bytes: f64,
}

impl DriveSpec {
    /// IBM LTO Ultrium 5 full-height drive (ULT3580-TD5), the 2010-2011 LTO generation.
    pub fn lto5() -> DriveSpec {
        DriveSpec {
            name: "IBM LTO-5 (ULT3580-TD5)".into(),
            // IBM TS4500 documentation, "Performance specifications for LTO tape drives",
            // table, column LTO 5, row "Native data rate": 140 MB/s.
            // https://www.ibm.com/support/knowledgecenter/en/STQRQ9/com.ibm.storage.ts4500.doc/performance_specs_lto_drives.html
            native_rate_bytes_per_s: 140.0 * BYTES_PER_MB,
            // Same table, row "Burst data rate", LTO 5: 800 MB/s over 8 Gb FC.
            host_rate_max_bytes_per_s: 800.0 * BYTES_PER_MB,
            // Same table, row "Nominal load-to-ready time", LTO 5: 12 s.
            load_to_ready_s: 12.0,
            // Same table, row "Nominal unload time", LTO 5: 17 s.
            unload_s: 17.0,
            // Same table, row "Average space record time from load point". Our copy of the
            // table is cut before the LTO 5 cell; the current IBM table
            // (https://www.ibm.com/docs/en/dtl/2.12.3?topic=performance-lto-specifications)
            // gives 45 s for LTO-9, used here as the stand-in (see docs/models.md).
            locate_avg_from_bot_s: 45.0,
            // Same IBM table, row "Average rewind time (REWIND command)", LTO-9: 55 s
            // (stand-in for the missing LTO 5 cell, as above).
            rewind_avg_s: 55.0,
            // Dell LTO-5 Tape Drive User's Guide, ch. 4 "Data Buffer": "256-Mbyte buffer".
            // https://usermanuals.tech/d/dell-lto5-manual/index/6
            buffer_bytes: 256.0 * BYTES_PER_MB,
        }
    }

    /// Host-side rate for data of compression ratio `c` (>= 1): the tape moves at the native
    /// rate, so the host sees `c` times more bytes, up to the interface limit.
    pub fn host_rate_bytes_per_s(&self, compression: f64) -> f64 {
        assert!(compression >= 1.0, "compression ratio {compression} < 1");
        (self.native_rate_bytes_per_s * compression).min(self.host_rate_max_bytes_per_s)
    }

    /// Time to move between two positions (bytes from the load point).
    pub fn locate_s(&self, from_bytes: f64, to_bytes: f64, capacity_bytes: f64) -> f64 {
        2.0 * self.locate_avg_from_bot_s * ((to_bytes - from_bytes).abs() / capacity_bytes).min(1.0)
    }

    pub fn rewind_s(&self, position_bytes: f64, capacity_bytes: f64) -> f64 {
        2.0 * self.rewind_avg_s * (position_bytes / capacity_bytes).min(1.0)
    }

    /// Cost of a stopped stream (a back-hitch): bounded by the time the buffer covers at the
    /// native rate (256 MB / 140 MB/s = 1.83 s for LTO-5). Drive makers size the buffer to
    /// ride through a back-hitch ("The buffer can hold streaming data during the occasional
    /// back-hitch", https://www.tape4backup.com/collections/t10000-tapes), which makes this
    /// an upper bound; no public sheet gives the back-hitch time itself.
    pub fn restart_s(&self) -> f64 {
        self.buffer_bytes / self.native_rate_bytes_per_s
    }
}

/// The robot arms of the library.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LibrarySpec {
    /// Seed section 6.1: "one tape library managing 20 robotic arms".
    pub arms: usize,
    /// One cartridge move between a slot and a drive. Oracle ACSLS Administrator's Guide,
    /// appendix L "Library Performance": "In a small SL8500 with approximately 3000 storage
    /// cells, it takes about 10-15 seconds for the robot to move a cartridge to a drive";
    /// midpoint 12.5 s. https://docs.oracle.com/cd/E63255_01/ACSAD/appen_libperf.htm
    /// The same appendix (and the SL8500 User's Guide, "Fast Load") says the robot is free
    /// as soon as the cartridge is in the drive, before the drive is ready.
    pub arm_move_s: f64,
    /// Seed section 3.1: "5000,000 serpentine tapes" is garbled; 0.5 EB at 1 TB per tape is
    /// 500,000 tapes, which exaraid uses for the pre-existing archive.
    pub archive_tapes: u64,
    /// Seed section 3.1: "Each tape stores up to 1 TB of uncompressed data".
    pub tape_capacity_bytes: f64,
}

impl LibrarySpec {
    pub fn blue_waters() -> LibrarySpec {
        LibrarySpec {
            arms: 20,
            arm_move_s: 12.5,
            archive_tapes: 500_000,
            tape_capacity_bytes: BYTES_PER_TB,
        }
    }
}

/// Mover nodes (seed section 3.1 "Mover Nodes").
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MoverSpec {
    /// Seed section 6.1: "500 tape drives ... connected 10-by-10 to 50 mover nodes".
    pub movers: usize,
    pub drives_per_mover: usize,
    /// Seed 3.1: "Each mover node has 24 cores and 96 GB of RAM". RAIT and PARALLEL hold
    /// (X+Y)B per process in memory (seed 4.1, 4.2).
    pub cores: usize,
    pub memory_bytes: f64,
    /// Seed 3.1: "a mover node has access to 10 TB of local disk storage". VERTICAL keeps Y
    /// EC areas of one tape each on it (seed 4.3).
    pub local_disk_bytes: f64,
}

impl MoverSpec {
    pub fn blue_waters() -> MoverSpec {
        MoverSpec {
            movers: 50,
            drives_per_mover: 10,
            cores: 24,
            memory_bytes: 96.0 * BYTES_PER_GB,
            local_disk_bytes: 10.0 * BYTES_PER_TB,
        }
    }
}

/// Everything the simulator needs to know about the hardware.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Platform {
    pub drive: DriveSpec,
    pub library: LibrarySpec,
    pub movers: MoverSpec,
}

impl Platform {
    pub fn blue_waters() -> Platform {
        Platform {
            drive: DriveSpec::lto5(),
            library: LibrarySpec::blue_waters(),
            movers: MoverSpec::blue_waters(),
        }
    }

    pub fn drives(&self) -> usize {
        self.movers.movers * self.movers.drives_per_mover
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blue_waters_platform_matches_the_seed() {
        let p = Platform::blue_waters();
        assert_eq!(p.drives(), 500);
        assert_eq!(p.library.arms, 20);
        assert_eq!(
            p.library.archive_tapes as f64 * p.library.tape_capacity_bytes,
            0.5e18
        );
    }

    #[test]
    fn compression_speeds_the_host_side_up_to_the_interface() {
        let d = DriveSpec::lto5();
        assert_eq!(d.host_rate_bytes_per_s(1.0), 140e6);
        assert_eq!(d.host_rate_bytes_per_s(3.0), 420e6);
        assert_eq!(d.host_rate_bytes_per_s(10.0), 800e6);
        assert!((d.restart_s() - 256.0 / 140.0).abs() < 1e-12);
        assert_eq!(d.locate_s(0.0, 1e12, 1e12), 90.0);
        assert_eq!(d.rewind_s(0.5e12, 1e12), 55.0);
    }
}
