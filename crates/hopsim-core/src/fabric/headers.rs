//! Packet extension fields: header fields that only some policies need, kept beside the
//! packet store at each packet's slot number, so the 64-byte slot (and every run that does not
//! use them) stays as it is.
//!
//! The fields are those the phase-2 mechanisms carry in their packets: Pyrrha's congestion
//! root, BFC's upstream queue, Proteus's path id and alternatives, Aquarius's tolerable
//! delay, a rank for SRPT / LAS scheduling and admission (Vertigo, AIFO, Preemptive
//! Deflection), a hop count, and CONGA's piggybacked feedback. The table is empty until a
//! policy switches it on; then a new packet's row is reset when it is created, and an ACK,
//! which takes over its data packet's slot, takes over its row too (a policy that echoes a
//! field in ACKs reads it there).

/// The extension fields of one packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketExt {
    /// Pyrrha: the congestion root (`switch:port`) the packet is matched to.
    pub root: u32,
    /// BFC / Pyrrha: the queue the packet left at the previous hop.
    pub upstream_queue: u32,
    /// Proteus / source routing: the path chosen, and a bitmap of alternatives.
    pub path_id: u16,
    pub alternatives: u16,
    /// Aquarius: how long the packet may still wait, in ns.
    pub tolerable_delay_ns: u32,
    /// SRPT / LAS: remaining or already-sent bytes of the flow.
    pub rank: u64,
    /// Switch hops taken.
    pub hops: u8,
    /// CONGA: feedback piggybacked towards the source (path and congestion metric).
    pub feedback_path: u16,
    pub feedback_metric: u8,
    /// Flow-control marks of the current hop (BFC: counted in its upstream queue's pause
    /// counter; Pyrrha: isolated in an isolation queue here).
    pub fc_mark: u8,
    /// Pyrrha: the hop distance of the congestion root `root` from the current port (the
    /// level of the isolation queue the packet waits in).
    pub iq_level: u8,
    /// Congestion-control header bits (Bolt's FIRST, LAST, INC, DEC).
    pub cc_flags: u8,
}

/// Extension rows indexed by packet-store slot (empty while no policy needs them).
#[derive(Clone, Debug, Default)]
pub struct ExtTable {
    enabled: bool,
    rows: Vec<PacketExt>,
}

impl ExtTable {
    /// A table in use (a policy of the run reads or writes extension fields).
    pub fn enabled() -> ExtTable {
        ExtTable { enabled: true, rows: Vec::new() }
    }

    #[inline]
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Give the new packet in `slot` empty fields.
    #[inline]
    pub fn reset(&mut self, slot: usize) {
        if self.rows.len() <= slot {
            self.rows.resize((slot + 1).next_power_of_two(), PacketExt::default());
        }
        self.rows[slot] = PacketExt::default();
    }

    #[inline]
    pub fn get(&self, slot: usize) -> &PacketExt {
        &self.rows[slot]
    }

    #[inline]
    pub fn get_mut(&mut self, slot: usize) -> &mut PacketExt {
        &mut self.rows[slot]
    }

    /// A packet moved from slot `from` to slot `to` (a copy made to deflect it while its
    /// old slot is released): its fields move with it.
    pub fn copy(&mut self, from: usize, to: usize) {
        let row = self.rows[from];
        self.reset(to);
        self.rows[to] = row;
    }

    /// Bytes allocated.
    pub fn allocated_bytes(&self) -> u64 {
        (self.rows.capacity() * std::mem::size_of::<PacketExt>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_slots_and_are_allocated_only_when_enabled() {
        let off = ExtTable::default();
        assert!(!off.is_enabled());
        assert_eq!(off.allocated_bytes(), 0);
        let mut t = ExtTable::enabled();
        t.reset(5);
        t.get_mut(5).rank = 42;
        t.get_mut(5).root = 7;
        t.copy(5, 9);
        assert_eq!((t.get(9).rank, t.get(9).root), (42, 7));
        t.reset(5);
        assert_eq!(*t.get(5), PacketExt::default(), "a new packet starts empty");
        assert!(std::mem::size_of::<PacketExt>() <= 32, "two rows per cache line");
        t.get_mut(5).fc_mark = 1;
        t.get_mut(5).iq_level = 2;
        assert_eq!((t.get(5).fc_mark, t.get(5).iq_level), (1, 2));
    }
}
