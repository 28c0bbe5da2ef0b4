//! exaraid-store: the real parity-protected store. Files are striped over object storage
//! targets (OSS directories, behind the [`backend::Backend`] trait) and protected by any code
//! of the codes crate; the write paths are executed from the planner's IoPlans.

pub mod backend;
pub mod bench;
pub mod journal;
pub mod state;
pub mod store;
pub mod superblock;
pub mod torture;

pub use store::{
    InitOptions, OpenOptions, ServiceTime, Status, Store, READ_BYTES_MAX, WRITE_CHUNK_BYTES_MAX,
};
pub use superblock::WritePath;

/// Everything that can go wrong in the store. Each message says what was wrong and what to do.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    NotAStore(String),
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    Metadata(String),
    #[error("{0}")]
    Io(String),
    #[error("{0}")]
    NoSpace(String),
    #[error(transparent)]
    Backend(#[from] backend::BackendError),
    #[error("{0}")]
    DataLost(String),
    /// The store is already open, in this process or another (one open at a time): nothing
    /// was done; retrying later is right.
    #[error("{0}")]
    Busy(String),
}

impl StoreError {
    /// The same error, its message followed by `context` (what had been done when it
    /// happened); a backend error becomes `Io` (its message kept).
    pub fn with_context(self, context: &str) -> StoreError {
        let add = |m: String| format!("{m}; {context}");
        match self {
            StoreError::NotAStore(m) => StoreError::NotAStore(add(m)),
            StoreError::BadInput(m) => StoreError::BadInput(add(m)),
            StoreError::Metadata(m) => StoreError::Metadata(add(m)),
            StoreError::Io(m) => StoreError::Io(add(m)),
            StoreError::NoSpace(m) => StoreError::NoSpace(add(m)),
            StoreError::Backend(e) => StoreError::Io(add(e.to_string())),
            StoreError::DataLost(m) => StoreError::DataLost(add(m)),
            StoreError::Busy(m) => StoreError::Busy(add(m)),
        }
    }

    pub(crate) fn from_io(e: std::io::Error, what: &str) -> StoreError {
        match e.raw_os_error() {
            // EFBIG: a file-size limit (`ulimit -f`) says the same: no room for this write.
            Some(libc::ENOSPC) | Some(libc::EDQUOT) | Some(libc::EFBIG) => {
                StoreError::NoSpace(format!("{what}: the disk is full ({e}); free space and retry, nothing acknowledged was lost"))
            }
            _ => StoreError::Io(format!("{what}: {e}")),
        }
    }
}
