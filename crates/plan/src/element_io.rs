//! Element accesses of reads and partial-stripe writes on one stripe of any code.
