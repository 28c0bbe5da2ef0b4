//! Network model: every client and every OSS has one full-duplex link into a non-blocking
//! fabric; messages are Lustre-like RPCs with real header sizes.
//!
//! A link is a FIFO: a message occupies the sender's transmit side for its wire time, then
//! (after the fabric latency) the receiver's receive side for its wire time. Reservations
//! are made when the message is sent, so a link costs no events: one event fires when the
//! message has fully arrived.

use exaraid_des::TimeNs;

/// LNet message header: 72 bytes on the wire. Source: Lustre source tree
/// (lustre/lustre-release), LNet wire-constant checks `lnet_assert_wire_constants()`:
/// `CLASSERT((int)sizeof(struct lnet_hdr) == 72)`.
pub const LNET_HDR_BYTES: u64 = 72;

/// Largest bulk transfer of one BRW RPC: 1 MiB. Source: lustre/include/lustre_net.h,
/// `#define PTLRPC_MAX_BRW_SIZE (1<<LNET_MTU_BITS)` with `LNET_MTU_BITS` 20 (LNET_MTU 1 MiB).
/// A larger transfer is split into several RPCs.
pub const BULK_MAX_BYTES: u64 = 1 << 20;

/// OST request message for a single-object, few-page I/O: 512 bytes. Source: the comment
/// on `OST_MAXREQSIZE` in lustre/include/lustre_net.h ("single object with 16 pages is 512
/// bytes"). We use the same size for the reply (ptlrpc reply with an ost_body), an
/// approximation documented in docs/models.md.
pub const OST_REQUEST_BYTES: u64 = 512;
pub const OST_REPLY_BYTES: u64 = 512;

/// Lustre OSS service threads per OST: 32. Source: Lustre Wiki "Lustre Tuning"
/// (https://wiki.lustre.org/Lustre_Tuning): "For disk-based OSTs, a good starting point is
/// 32 threads per OST"; the 2010 revision gives 32 as the default for a 2 GB, 2-CPU OSS.
pub const OSS_SERVICE_THREADS: usize = 32;

/// 10 Gbit/s Ethernet (IEEE 802.3ae, 10GBASE-R): 10e9 bit/s = 1.25e9 byte/s on the wire,
/// for client and OSS links alike. The seed does not give its network; 10 GbE is the
/// Lustre-over-TCP (socklnd) fabric of its time. An assumption, listed in docs/models.md.
pub const LINK_BYTES_PER_S: f64 = 1.25e9;

/// Ethernet framing (IEEE 802.3): a 1500-byte MTU frame carries 1460 bytes of TCP payload
/// (20 IPv4 + 20 TCP header bytes) and costs 1538 bytes of wire time (preamble+SFD 8,
/// MAC header 14, FCS 4, inter-frame gap 12).
pub const FRAME_PAYLOAD_BYTES: u64 = 1460;
pub const FRAME_WIRE_BYTES: u64 = 1538;

/// One-way fabric latency (NIC + switch + propagation): 5 us. An assumption of the order of
/// 10 GbE cut-through switches and kernel TCP; it is small against device times (ms).
pub const FABRIC_LATENCY_S: f64 = 5.0e-6;

#[derive(Clone, Debug)]
pub struct NetworkParams {
    pub client_link_bytes_per_s: f64,
    pub oss_link_bytes_per_s: f64,
    pub fabric_latency_s: f64,
}

impl Default for NetworkParams {
    fn default() -> Self {
        NetworkParams {
            client_link_bytes_per_s: LINK_BYTES_PER_S,
            oss_link_bytes_per_s: LINK_BYTES_PER_S,
            fabric_latency_s: FABRIC_LATENCY_S,
        }
    }
}

/// Bytes on the wire for a message carrying `payload_bytes` of RPC body (headers included).
pub fn wire_bytes(payload_bytes: u64) -> u64 {
    let frames = payload_bytes.div_ceil(FRAME_PAYLOAD_BYTES).max(1);
    frames * FRAME_WIRE_BYTES
}

/// Body bytes of an RPC that moves `data_bytes` of bulk: the request (or reply) message,
/// plus one LNet header per message and per bulk transfer of at most `BULK_MAX_BYTES`.
pub fn rpc_bytes(message_bytes: u64, data_bytes: u64) -> u64 {
    let bulks = data_bytes.div_ceil(BULK_MAX_BYTES);
    message_bytes + LNET_HDR_BYTES + data_bytes + bulks * LNET_HDR_BYTES
}

/// A link direction as a FIFO: when it is next free.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkSide {
    pub free_at_ns: TimeNs,
}

impl LinkSide {
    /// Occupy the link for `wire_ns` starting no earlier than `ready_ns`; returns when the
    /// last byte has left.
    #[inline]
    pub fn occupy(&mut self, ready_ns: TimeNs, wire_ns: TimeNs) -> TimeNs {
        let start = ready_ns.max(self.free_at_ns);
        self.free_at_ns = start + wire_ns;
        self.free_at_ns
    }
}

/// Wire time of `bytes` on a link of `bytes_per_s`.
#[inline]
pub fn wire_ns(bytes: u64, bytes_per_s: f64) -> TimeNs {
    ((bytes as f64 / bytes_per_s) * 1e9).ceil() as TimeNs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_sizes_carry_lnet_headers_per_bulk() {
        assert_eq!(rpc_bytes(OST_REQUEST_BYTES, 0), 512 + 72);
        assert_eq!(
            rpc_bytes(OST_REQUEST_BYTES, 128 << 10),
            512 + 72 + (128 << 10) + 72
        );
        assert_eq!(
            rpc_bytes(OST_REQUEST_BYTES, 2 << 20),
            512 + 72 + (2 << 20) + 2 * 72
        );
        assert!(wire_bytes(1 << 20) > 1 << 20);
    }

    #[test]
    fn a_link_is_fifo() {
        let mut l = LinkSide::default();
        assert_eq!(l.occupy(0, 10), 10);
        assert_eq!(l.occupy(5, 10), 20);
        assert_eq!(l.occupy(100, 10), 110);
    }
}
