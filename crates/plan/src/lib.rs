//! exaraid-plan: see Cargo.toml description.
