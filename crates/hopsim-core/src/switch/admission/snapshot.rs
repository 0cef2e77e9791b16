//! What a switch's ingress pipeline knows of its queues. On programmable switches queue
//! occupancy lives in the egress pipeline; the deflection paper's designs copy it to the
//! ingress pipeline with recirculating control packets (§4.1, Appendix D: about every
//! 1.7 µs). A [`Snapshot`] refreshes a switch's copy at most once per `interval` (zero:
//! always current): the first decision after each interval boundary reads the live
//! queues, later ones in the interval reuse that copy.

use super::hooks::{Arrival, BufferRule};
use crate::fabric::port::Port;
use crate::ids::PortId;
use crate::time::{Delta, SimTime};

/// Per switch, its ports' occupancy as of the last refresh.
#[derive(Clone, Debug)]
pub struct Snapshot {
    interval: Delta,
    /// Per switch: its first port id, the occupancy of each of its ports, and when the
    /// next refresh is due.
    first_port: Vec<u32>,
    levels: Vec<Vec<u64>>,
    due: Vec<SimTime>,
}

impl Snapshot {
    /// `ports_of`: per switch, its first port id and port count.
    pub fn new(interval: Delta, ports_of: &[(u32, u32)]) -> Snapshot {
        Snapshot {
            interval,
            first_port: ports_of.iter().map(|p| p.0).collect(),
            levels: ports_of.iter().map(|p| vec![0; p.1 as usize]).collect(),
            due: vec![SimTime::ZERO; ports_of.len()],
        }
    }

    pub fn is_live(&self) -> bool {
        self.interval == Delta::ZERO
    }

    /// Bring switch `sw`'s copy up to date if its interval has passed.
    pub fn refresh(&mut self, sw: usize, now: SimTime, rule: &BufferRule, queue: usize, ports: &[Port]) {
        if self.is_live() || now < self.due[sw] {
            return;
        }
        let first = self.first_port[sw] as usize;
        for (i, level) in self.levels[sw].iter_mut().enumerate() {
            *level = rule.level(&ports[first + i], queue);
        }
        let periods = now.0 / self.interval.0 + 1;
        self.due[sw] = SimTime(periods * self.interval.0);
    }

    /// Occupancy of `port` (of switch `sw`) as the ingress pipeline knows it.
    pub fn level(&self, sw: usize, port: PortId, queue: usize, rule: &BufferRule, ports: &[Port]) -> u64 {
        if self.is_live() {
            rule.level(&ports[port.idx()], queue)
        } else {
            self.levels[sw][port.idx() - self.first_port[sw] as usize]
        }
    }

    /// Whether `port` could take the arriving packet, as far as the ingress pipeline knows.
    pub fn fits(&self, a: &Arrival<'_>, port: PortId, rule: &BufferRule, ports: &[Port]) -> bool {
        self.level(a.sw, port, a.queue, rule, ports) + a.size <= rule.capacity(a.used, a.buffer)
    }
}
