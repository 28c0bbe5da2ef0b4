//! `exaraid store bench` (filled in below).
