//! exaraid-archive: see Cargo.toml description.
