//! Admission and deflection: what a switch does with an arriving packet that no lossless
//! flow control vouched for — enqueue it, mark it, deflect it to another port, or drop it.
//!
//! Two parts make the policy. The **buffer rule** says whether an egress queue can take
//! the packet: a dynamic threshold on the shared buffer (Choudhury & Hahne) or a static
//! limit per port. The **deflection** policy says what happens to a packet the rule
//! refuses (drop-tail without one; DIBS sends it out of another port), and may act on
//! every packet (DIBS decrements the hop limit). A deflected packet is re-admitted at the
//! port it is sent to, by the same buffer rule, and counted per port and per flow.
//!
//! The whole switch also has its shared buffer ([`SharedBuffer`]): a packet that does not
//! fit in it is dropped before any policy is asked.

mod aifo;
mod dibs;
mod preemptive;
mod simple;
mod snapshot;
mod vertigo;
mod window;

pub use aifo::{Aifo, AifoConfig};
pub use dibs::{Dibs, DibsConfig};
pub use preemptive::{Preemptive, PreemptiveConfig, RelativePriority};
pub use simple::SimpleDeflection;
pub use snapshot::Snapshot;
pub use vertigo::Vertigo;

use crate::engine::{pick_below, RngStream};
use crate::fabric::port::Port;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::time::SimTime;

/// Occupancy of a switch's shared buffer (data packets, and ACKs queued with data).
#[derive(Clone, Debug, Default)]
pub struct SharedBuffer {
    pub used_bytes: u64,
    pub peak_bytes: u64,
}

/// Whether an egress queue may take a lossy packet (`[switch.admission]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferRule {
    /// A queue may hold up to `alpha × free buffer` (Choudhury & Hahne, 1998).
    DynamicThreshold { alpha: f64 },
    /// A port may hold up to this many bytes in all its data queues.
    StaticPerPort { bytes: u64 },
}

impl BufferRule {
    /// Would `queue` of `port` take `size` more bytes, with `used` of the switch's `buffer`
    /// bytes in use?
    #[inline]
    pub fn fits(&self, port: &Port, queue: usize, size: u64, used: u64, buffer: u64) -> bool {
        match *self {
            BufferRule::DynamicThreshold { alpha } => {
                let free = (buffer - used) as f64;
                (port.queues.queue_bytes(queue) + size) as f64 <= alpha * free
            }
            BufferRule::StaticPerPort { bytes } => port.backlog_bytes() + size <= bytes,
        }
    }

    /// The occupancy the rule limits: the queue's bytes (dynamic threshold) or the port's
    /// (static per port).
    #[inline]
    pub fn level(&self, port: &Port, queue: usize) -> u64 {
        match *self {
            BufferRule::DynamicThreshold { .. } => port.queues.queue_bytes(queue),
            BufferRule::StaticPerPort { .. } => port.backlog_bytes(),
        }
    }

    /// The limit on [`level`](Self::level) now (`Q` of the deflection paper's Eq. 1).
    #[inline]
    pub fn capacity(&self, used: u64, buffer: u64) -> u64 {
        match *self {
            BufferRule::DynamicThreshold { alpha } => (alpha * (buffer - used) as f64) as u64,
            BufferRule::StaticPerPort { bytes } => bytes,
        }
    }
}

/// Two distinct ports drawn uniformly from `candidates` (one if there is one, none if
/// there are none).
pub(crate) fn pick_two(rng: &mut RngStream, candidates: &[PortId]) -> (Option<PortId>, Option<PortId>) {
    match candidates.len() {
        0 => (None, None),
        1 => (Some(candidates[0]), None),
        n => {
            let i = pick_below(rng, n);
            let j = (i + 1 + pick_below(rng, n - 1)) % n;
            (Some(candidates[i]), Some(candidates[j]))
        }
    }
}

/// What admission decided for a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with ECN Congestion Experienced set.
    Mark,
    /// Send it out of this port instead (re-admitted there).
    Deflect(PortId),
    Drop(DropCause),
    /// Vertigo: the queue is full; take out higher-ranked packets to make room, or
    /// deflect this one.
    MakeRoom,
}

/// What happens to packets the buffer rule refuses (`[switch.deflection]`), with a
/// one-byte tag.
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum Deflection {
    /// Drop-tail.
    None,
    /// DIBS (Zarifis et al., EuroSys 2014).
    Dibs(Dibs),
    /// Simple Deflection (the deflection paper, §4.1).
    Simple(SimpleDeflection),
    /// Preemptive Deflection (the deflection paper, §3).
    Preemptive(Box<Preemptive>),
    /// Vertigo's Selective Deflection with SRPT queues.
    Vertigo(Vertigo),
    /// AIFO's rank-aware admission (no deflection).
    Aifo(Aifo),
}

/// The admission policy of every switch in a run.
#[derive(Clone, Debug)]
pub struct Admission {
    pub rule: BufferRule,
    pub deflection: Deflection,
}

/// Everything admission reads about the arriving packet and the switch.
pub struct Arrival<'a> {
    /// The switch (index).
    pub sw: usize,
    pub egress: PortId,
    pub queue: usize,
    pub size: u64,
    /// Shared buffer in use and its size.
    pub used: u64,
    pub buffer: u64,
    /// The packet's remaining hop limit (decremented here when a deflection policy keeps
    /// one).
    pub ttl: &'a mut u8,
    /// The packet's rank (0 unless the policy reads ranks).
    pub rank: u64,
    pub now: SimTime,
}

impl Admission {
    pub fn name(&self) -> &'static str {
        match &self.deflection {
            Deflection::None => "none",
            Deflection::Dibs(d) => d.name(),
            Deflection::Simple(_) => "simple",
            Deflection::Preemptive(_) => "preemptive",
            Deflection::Vertigo(_) => "vertigo",
            Deflection::Aifo(_) => "aifo",
        }
    }

    /// Whether the policy reads packet ranks (their extension fields).
    #[inline]
    pub fn reads_rank(&self) -> bool {
        matches!(self.deflection, Deflection::Preemptive(_) | Deflection::Vertigo(_) | Deflection::Aifo(_))
    }

    /// Decide for a lossy packet.
    #[inline]
    pub fn admit(&mut self, a: Arrival<'_>, ports: &[Port]) -> Verdict {
        let fits = self.rule.fits(&ports[a.egress.idx()], a.queue, a.size, a.used, a.buffer);
        match &mut self.deflection {
            Deflection::None if fits => Verdict::Enqueue,
            Deflection::None => Verdict::Drop(DropCause::EgressAdmission),
            Deflection::Dibs(d) => d.admit(&self.rule, a, fits, ports),
            policy => {
                // Every switch spends one hop of the packet's limit (as DIBS).
                *a.ttl = a.ttl.saturating_sub(1);
                if *a.ttl == 0 {
                    return Verdict::Drop(DropCause::HopLimit);
                }
                match policy {
                    Deflection::Simple(d) => d.admit(&self.rule, &a, fits, ports),
                    Deflection::Preemptive(d) => d.admit(&self.rule, &a, fits, ports),
                    Deflection::Vertigo(d) => d.admit(fits),
                    Deflection::Aifo(d) => d.admit(&self.rule, &a, fits, ports),
                    Deflection::None | Deflection::Dibs(_) => unreachable!("handled above"),
                }
            }
        }
    }

    /// Re-admission at the port a packet was deflected to: the buffer rule alone.
    #[inline]
    pub fn readmit(&self, port: &Port, queue: usize, size: u64, used: u64, buffer: u64) -> bool {
        self.rule.fits(port, queue, size, used, buffer)
    }
}
