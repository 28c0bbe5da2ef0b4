//! exaraid-sim: see Cargo.toml description.
