//! Bounds on what one run may ask for, checked before anything is allocated.
//!
//! Everything a run simulates is built up front (topology, routing table, every flow), so
//! a scenario that asks for too much would abort on memory, or run for ever, instead of
//! failing with a message. Each bound is far above the experiments hopsim is built for
//! (the papers' largest: a few thousand hosts, a few million flows) and far below what the
//! arithmetic or a 24 GB machine can hold; an error names the field and the bound.

use crate::time::{Rate, PS_PER_S};

/// Largest time any field or file may give: 2^62 ps (about 53 days of simulated time), so
/// that a time plus a delay never leaves the 64-bit picosecond clock.
pub const MAX_TIME_PS: u64 = 1 << 62;

/// Largest flow: 2^50 bytes (about 1.1 PB).
pub const MAX_FLOW_BYTES: u64 = 1 << 50;

/// Most flows one run may hold (each costs about 500 bytes of simulator state, `hopsim bench`
/// `bytes_per_flow`, plus its generated spec and output record: ~6 GB at the bound).
pub const MAX_FLOWS: u64 = 10_000_000;

/// Most nodes (hosts and switches) of a topology.
pub const MAX_NODES: u64 = 1 << 22;

/// Most full-duplex links of a topology.
pub const MAX_LINKS: u64 = 1 << 24;

/// Most (switch, host) pairs: the ECMP table has one entry per pair.
pub const MAX_ROUTE_ENTRIES: u64 = 1 << 31;

/// Most data packets a run without `duration` may have to deliver: beyond this it would
/// take hours to days of wall time, so the scenario must bound it with `duration`.
pub const MAX_PACKETS_WITHOUT_DURATION: u64 = 10_000_000_000;

/// Most rows a sampled output (`[output.queues]`, `[output.throughput]`,
/// `[output.rate_trace]`, `[output.congestion_trees]`) may be asked for: each row costs
/// some 30 bytes in memory and more in the written table (~3 GB at the bound).
pub const MAX_SAMPLE_ROWS: u64 = 100_000_000;

/// Largest input file (topology, flow or CDF file) read into memory.
pub const MAX_INPUT_FILE_BYTES: u64 = 1 << 31;

/// `value` as a human-readable count (`12,345,678`).
pub fn count(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `MAX_TIME_PS` in words, for messages.
pub fn max_time_text() -> String {
    format!("{} s (the simulation clock's range)", count(MAX_TIME_PS / PS_PER_S))
}

/// Picoseconds to send `bytes` at `rate`, or `None` when that is beyond `MAX_TIME_PS`.
pub fn send_time_ps(bytes: u64, rate: Rate) -> Option<u64> {
    let ps = (bytes as u128 * 8 * PS_PER_S as u128).div_ceil(rate.0.max(1) as u128);
    (ps <= MAX_TIME_PS as u128).then_some(ps as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_with_separators_and_send_times_stop_at_the_clock() {
        assert_eq!(count(0), "0");
        assert_eq!(count(1234), "1,234");
        assert_eq!(count(10_000_000), "10,000,000");
        assert_eq!(send_time_ps(1000, Rate::gbps(100)), Some(80_000));
        assert_eq!(send_time_ps(MAX_FLOW_BYTES, Rate(1_000_000)), None);
    }
}
