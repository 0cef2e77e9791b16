//! IRN loss recovery (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018,
//! §3.1): selective retransmission for RDMA without PFC.
//!
//! Receiver: keeps out-of-order packets (a bitmap of packet indices beyond the cumulative
//! ACK point), ACKs in-order data cumulatively and answers every out-of-order packet with a
//! NACK carrying both the cumulative ACK and the index of the packet that arrived (a
//! selective ACK). Sender: the first NACK starts a recovery episode that lasts until the
//! cumulative ACK passes the highest byte sent when it began; during it, every packet below
//! the highest selectively acknowledged one that is neither acknowledged nor SACKed is
//! retransmitted once, before new data. A timeout (RTO_low when at most N packets are in
//! flight, RTO_high otherwise) starts a recovery that treats every unacknowledged,
//! un-SACKed packet as lost.

/// A growable bitmap of packet indices.
#[derive(Clone, Debug, Default)]
pub struct PacketBitmap {
    words: Vec<u64>,
}

impl PacketBitmap {
    pub fn heap_bytes(&self) -> u64 {
        (self.words.capacity() * 8) as u64
    }
    pub fn set(&mut self, i: u64) {
        let w = (i / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        self.words[w] |= 1 << (i % 64);
    }
    pub fn get(&self, i: u64) -> bool {
        self.words.get((i / 64) as usize).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// IRN sender state of one flow.
#[derive(Clone, Debug, Default)]
pub struct IrnSender {
    pub sacked: PacketBitmap,
    /// End (exclusive, in bytes) of the highest SACKed packet.
    pub highest_sacked: u64,
    /// In recovery until the cumulative ACK reaches this byte.
    pub recovery_end: Option<u64>,
    /// Next byte offset to examine for retransmission.
    pub retransmit_next: u64,
}

impl IrnSender {
    /// A NACK: cumulative ACK `snd_una` (already applied), SACK of packet `index`.
    pub fn on_nack(&mut self, index: u64, mtu: u64, size: u64, snd_una: u64, snd_nxt: u64) {
        self.sacked.set(index);
        self.highest_sacked = self.highest_sacked.max(((index + 1) * mtu).min(size));
        if self.recovery_end.is_none() {
            self.recovery_end = Some(snd_nxt);
            self.retransmit_next = snd_una;
        }
    }

    /// A cumulative ACK advanced to `snd_una`.
    pub fn on_ack(&mut self, snd_una: u64) {
        if self.recovery_end.is_some_and(|end| snd_una >= end) {
            self.recovery_end = None;
        }
        self.retransmit_next = self.retransmit_next.max(snd_una);
    }

    /// Timeout: everything unacknowledged and un-SACKed up to `snd_nxt` is lost.
    pub fn on_timeout(&mut self, snd_una: u64, snd_nxt: u64) {
        self.recovery_end = Some(snd_nxt);
        self.highest_sacked = self.highest_sacked.max(snd_nxt);
        self.retransmit_next = snd_una;
    }

    /// The next hole to retransmit, if any (advances past SACKed packets).
    pub fn next_hole(&mut self, mtu: u64) -> Option<u64> {
        self.recovery_end?;
        while self.retransmit_next < self.highest_sacked {
            let seq = self.retransmit_next;
            if !self.sacked.get(seq / mtu) {
                return Some(seq);
            }
            self.retransmit_next += mtu;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retransmits_only_the_holes_then_leaves_recovery() {
        let mtu = 1000;
        let mut s = IrnSender::default();
        // Sent 10 packets; packets 2 and 5 lost; packets 3, 4, 6 arrived out of order.
        for i in [3, 4, 6] {
            s.on_nack(i, mtu, 10_000, 2_000, 10_000);
        }
        assert_eq!(s.next_hole(mtu), Some(2_000));
        s.retransmit_next += mtu; // sent
        assert_eq!(s.next_hole(mtu), Some(5_000));
        s.retransmit_next += mtu;
        assert_eq!(s.next_hole(mtu), None, "nothing below the highest SACK is missing");
        s.on_ack(10_000);
        assert_eq!(s.recovery_end, None);
    }
}
