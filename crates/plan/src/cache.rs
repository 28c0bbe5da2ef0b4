//! Cache-zone space of each OSS, handed out in whole chunks of one stripe column
//! (`rows * element_bytes`): the WCL "communicates with the PFS servers in order to allocate
//! enough space to write full stripes" (seed 004 section 2). New chunks are appended at the
//! end of the OSS's cache zone; a chunk is reused only after the plan that moved its bytes
//! home has completed (`Strategy::on_complete`). Until a chunk is freed nothing else is ever
//! written into it, so the cache zone never overwrites live data of another stripe.

/// Per-OSS allocator of cache chunks.
#[derive(Clone, Debug)]
pub(crate) struct CacheAllocator {
    chunk_bytes: u64,
    /// Next never-used address, per OSS.
    end_bytes: Vec<u64>,
    /// Freed chunks, per OSS (reused last-freed first).
    free: Vec<Vec<u64>>,
    live_chunks: u64,
}

impl CacheAllocator {
    pub fn new(oss_count: usize, chunk_bytes: u64) -> CacheAllocator {
        assert!(chunk_bytes > 0);
        CacheAllocator {
            chunk_bytes,
            end_bytes: vec![0; oss_count],
            free: vec![Vec::new(); oss_count],
            live_chunks: 0,
        }
    }

    pub fn alloc(&mut self, oss: usize) -> u64 {
        self.live_chunks += 1;
        if let Some(addr) = self.free[oss].pop() {
            return addr;
        }
        let addr = self.end_bytes[oss];
        self.end_bytes[oss] = addr
            .checked_add(self.chunk_bytes)
            .expect("cache zone address overflow");
        addr
    }

    pub fn free(&mut self, oss: usize, addr: u64) {
        assert!(
            addr.is_multiple_of(self.chunk_bytes) && addr < self.end_bytes[oss],
            "freeing a chunk never allocated"
        );
        assert!(self.live_chunks > 0);
        self.live_chunks -= 1;
        self.free[oss].push(addr);
    }

    /// Highest cache-zone address ever used on each OSS (space the cache zone needs).
    pub fn high_water_bytes(&self) -> &[u64] {
        &self.end_bytes
    }
}
