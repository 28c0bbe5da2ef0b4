//! Home parity update of one stripe: read-modify-write or reconstruct-write.
