//! Review s12r R12-1 (not CI): an API write that returned Ok (acknowledged), then the process
//! dies (abort: no close, like kill -9). Copy to crates/store/examples/r12_ack_then_die.rs and
//! build: cargo build --release -p exaraid-store --example r12_ack_then_die
//! Usage: r12_ack_then_die DIR NAME OFFSET < bytes   (prints "acked" to stderr, then aborts)
use std::io::Read;
use std::path::Path;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut data = Vec::new();
    std::io::stdin().read_to_end(&mut data).unwrap();
    let store = exaraid_store::Store::open(Path::new(&a[1])).unwrap();
    store.write(&a[2], a[3].parse().unwrap(), &data).unwrap();
    eprintln!("acked");
    std::process::abort();
}
