//! FLASH-like applications (seed section 3): each application is a group of clients that,
//! every iteration, write their own non-overlapping part of one new file (a checkpoint),
//! all with the same write size. With Delayed Parity, the application's first client is the
//! master: it sends START_DELAYED before the iteration and END_DELAYED when every client of
//! the application has written, and all clients wait for the parity before the next
//! iteration.
//!
//! Choices where the seed is silent (also in docs/models.md):
//! - clients per application: 150. The seed's strong-scaling example has 250,000 clients
//!   issue 1.7 K parity updates per iteration under Delayed Parity (one per application and
//!   iteration), i.e. about 250,000 / 1,700 = 147 clients per application; we round to 150.
//! - every application starts its next iteration when its previous one is complete (all
//!   writes acknowledged, and for Delayed Parity the END parity done): a checkpoint is a
//!   collective step. The same barrier applies to every strategy, so the comparison is fair.
//! - no compute time between iterations: the seed's workload is write-only.
//! - a new file per application and iteration (no overwrites, as the seed requires); the
//!   file's first OSS is drawn by the planner's layout from the file id.

/// How one point of an experiment scales its writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scaling {
    /// Every client writes `write_bytes` per iteration whatever the client count.
    Weak { write_bytes: u64 },
    /// The iteration's total is fixed; each client writes total / clients, rounded down to
    /// a multiple of 4 KiB.
    Strong { total_bytes: u64 },
}

impl Scaling {
    pub fn write_bytes(&self, clients: u64) -> u64 {
        assert!(clients > 0);
        match *self {
            Scaling::Weak { write_bytes } => write_bytes,
            Scaling::Strong { total_bytes } => (total_bytes / clients / 4096 * 4096).max(4096),
        }
    }
}

/// The applications of one point.
#[derive(Clone, Debug)]
pub struct Workload {
    pub clients: u64,
    pub clients_per_app: u64,
    pub write_bytes: u64,
}

impl Workload {
    pub fn new(clients: u64, clients_per_app: u64, write_bytes: u64) -> Workload {
        assert!(clients > 0 && clients_per_app > 0 && write_bytes > 0);
        Workload {
            clients,
            clients_per_app,
            write_bytes,
        }
    }

    pub fn apps(&self) -> u64 {
        self.clients.div_ceil(self.clients_per_app)
    }

    /// Clients of application `app` (the last one may be smaller).
    pub fn app_clients(&self, app: u64) -> u64 {
        assert!(app < self.apps());
        (self.clients - app * self.clients_per_app).min(self.clients_per_app)
    }

    /// Global client id of rank `rank` of `app`.
    pub fn client_id(&self, app: u64, rank: u64) -> u64 {
        app * self.clients_per_app + rank
    }

    /// The file an application writes in `iteration`: unique per (app, iteration).
    pub fn file_id(&self, app: u64, iteration: u64) -> u64 {
        // Interleave so ids stay small and distinct: iteration-major over the apps.
        iteration * self.apps() + app
    }

    /// Offset of `rank`'s part in its application's file.
    pub fn offset_bytes(&self, rank: u64) -> u64 {
        rank * self.write_bytes
    }

    pub fn app_bytes(&self, app: u64) -> u64 {
        self.app_clients(app) * self.write_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_scaling_shrinks_writes_from_1_mib_to_8_kib() {
        let s = Scaling::Strong {
            total_bytes: 500_000 * 8192,
        };
        assert_eq!(s.write_bytes(3906), 1 << 20);
        assert_eq!(s.write_bytes(250_000), 16 << 10);
        assert_eq!(s.write_bytes(500_000), 8 << 10);
        assert_eq!(
            Scaling::Weak {
                write_bytes: 128 << 10
            }
            .write_bytes(500_000),
            128 << 10
        );
    }

    #[test]
    fn applications_partition_the_clients_without_overlap() {
        let w = Workload::new(1000, 150, 4096);
        assert_eq!(w.apps(), 7);
        assert_eq!((0..w.apps()).map(|a| w.app_clients(a)).sum::<u64>(), 1000);
        assert_eq!(w.app_clients(6), 100);
        assert_eq!(w.offset_bytes(3), 3 * 4096);
        assert_ne!(w.file_id(1, 0), w.file_id(0, 1));
    }
}
