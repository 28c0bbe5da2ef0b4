//! exaraid-store: see Cargo.toml description.
