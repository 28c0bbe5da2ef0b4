//! The D-Code paper's I/O-load evaluation (section IV): LF and I/O cost.
