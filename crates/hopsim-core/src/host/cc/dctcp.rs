//! DCTCP for RDMA: the DCTCP control law (Alizadeh et al., SIGCOMM 2010, §3.1) applied to
//! a sending rate, as the HPCC simulator's DCTCP mode does.
//!
//! Once per window of data (an "RTT": when an ACK covers the first byte sent after the
//! previous update) the marked fraction `F` of that window's ACKs updates
//! `α ← (1 − g)·α + g·F`. On the first echoed mark outside a reduction episode the rate is
//! cut once, `R ← R·(1 − α/2)`, and no further cut happens until the data sent before the
//! cut is acknowledged (DCTCP's CWR state). Each window without a reduction adds
//! `rate_ai` (additive increase).

use super::{Ack, CcBuild, CcFlow, CcParams, CongestionControl};

/// DCTCP parameters.
#[derive(Clone, Debug)]
pub struct DctcpParams {
    /// EWMA gain g (DCTCP paper §3.1: 1/16).
    pub g: f64,
    /// Additive increase per window, bits/s.
    pub rate_ai: u64,
    pub min_rate: u64,
    /// Payload bytes per packet (counts the ACKs of a window).
    pub mtu: u32,
    /// Count the first window as the HPCC ns-3 simulator does: its marks carry into the
    /// second window's fraction, and its size is counted from byte 0.
    pub ns3: bool,
}

/// Per-flow DCTCP state.
#[derive(Clone, Debug)]
pub struct Dctcp {
    pub alpha: f64,
    marked: u32,
    window_packets: u32,
    /// The current window ends when this byte is acknowledged.
    window_end: u64,
    /// In a reduction episode until this byte is acknowledged.
    recovery_end: Option<u64>,
}

impl Dctcp {
    pub fn new() -> Dctcp {
        Dctcp { alpha: 1.0, marked: 0, window_packets: 0, window_end: 0, recovery_end: None }
    }

    /// An ACK acknowledging up to `ack_seq` arrived, `marked` if it echoes ECN. Returns the
    /// new rate when it changes.
    pub fn on_ack(
        &mut self,
        ack_seq: u64,
        marked: bool,
        snd_nxt: u64,
        rate: u64,
        line: u64,
        p: &DctcpParams,
    ) -> Option<u64> {
        self.marked += marked as u32;
        let mut new_window = false;
        if ack_seq > self.window_end {
            new_window = true;
            if self.window_end > 0 {
                let fraction = (self.marked as f64 / self.window_packets.max(1) as f64).min(1.0);
                self.alpha = (1.0 - p.g) * self.alpha + p.g * fraction;
            }
            if p.ns3 && self.window_end == 0 {
                // ns-3's first window: its marks stay counted, its size runs from byte 0.
                self.window_packets = (snd_nxt / p.mtu as u64 + 1) as u32;
            } else {
                self.marked = 0;
                self.window_packets = ((snd_nxt.saturating_sub(ack_seq)) / p.mtu as u64 + 1) as u32;
            }
            self.window_end = snd_nxt;
        }
        if self.recovery_end.is_some_and(|end| ack_seq > end) {
            self.recovery_end = None;
        }
        if marked && self.recovery_end.is_none() {
            self.recovery_end = Some(snd_nxt);
            return Some(((rate as f64 * (1.0 - self.alpha / 2.0)) as u64).max(p.min_rate));
        }
        (new_window && self.recovery_end.is_none() && rate < line).then(|| (rate + p.rate_ai).min(line))
    }
}

impl Default for Dctcp {
    fn default() -> Self {
        Self::new()
    }
}

impl CongestionControl for Dctcp {
    fn new(_: &CcBuild) -> Self {
        Dctcp::new()
    }

    fn on_ack(&mut self, ack: &Ack<'_>, f: &mut CcFlow<'_>, p: &CcParams) {
        if let Some(r) = Dctcp::on_ack(self, ack.seq, ack.ecn_echo, f.snd_nxt, *f.rate, f.line_rate, &p.dctcp)
        {
            *f.rate = r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: u64 = 100_000_000_000;

    fn params() -> DctcpParams {
        DctcpParams { g: 1.0 / 16.0, rate_ai: 1_000_000_000, min_rate: 100_000_000, mtu: 1000, ns3: false }
    }

    #[test]
    fn one_cut_per_window_then_additive_increase() {
        let p = params();
        let mut d = Dctcp::new();
        // First ACK opens a window covering bytes up to 10_000.
        assert_eq!(d.on_ack(1000, false, 10_000, LINE, LINE, &p), None);
        // A mark: cut by alpha/2 = 1/2 (alpha starts at 1).
        assert_eq!(d.on_ack(2000, true, 11_000, LINE, LINE, &p), Some(LINE / 2));
        // More marks before the cut's data is acknowledged: no further cut.
        assert_eq!(d.on_ack(3000, true, 12_000, LINE / 2, LINE, &p), None);
        // The window ends (ack beyond 10_000) and the episode ends (beyond 11_000): marked
        // fraction 2 of 10 → alpha = 15/16 + 1/16 × 0.2.
        let r = d.on_ack(12_000, false, 20_000, LINE / 2, LINE, &p);
        assert!((d.alpha - (15.0 / 16.0 + 0.2 / 16.0)).abs() < 1e-12, "{}", d.alpha);
        assert_eq!(r, Some(LINE / 2 + p.rate_ai), "additive increase on a clean new window");
    }

    /// ns-3's first window (`HandleAckDctcp`): its marks are not reset when it closes, so
    /// they count into the second window's fraction, whose size runs from byte 0.
    #[test]
    fn ns3_first_window_marks_carry_into_the_second() {
        let p = DctcpParams { ns3: true, ..params() };
        let mut d = Dctcp::new();
        assert_eq!(d.on_ack(1000, true, 10_000, LINE, LINE, &p), Some(LINE / 2), "first mark cuts");
        assert_eq!(d.window_packets, 11, "first window counted from byte 0: 10_000 / 1000 + 1");
        assert_eq!(d.marked, 1, "the mark is kept");
        // The window closes: fraction = 1 mark of 11 packets.
        d.on_ack(12_000, false, 20_000, LINE / 2, LINE, &p);
        assert!((d.alpha - (15.0 / 16.0 + (1.0 / 11.0) / 16.0)).abs() < 1e-12, "{}", d.alpha);
        // The hpcc_sim bookkeeping resets the first window's marks instead.
        let mut plain = Dctcp::new();
        plain.on_ack(1000, true, 10_000, LINE, LINE, &params());
        plain.on_ack(12_000, false, 20_000, LINE / 2, LINE, &params());
        assert!((plain.alpha - 15.0 / 16.0).abs() < 1e-12, "{}", plain.alpha);
    }
}
