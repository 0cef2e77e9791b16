//! Vertigo's switch (Abdous et al., "Burst-tolerant datacenter networks with Vertigo",
//! CoNEXT 2021), as the deflection paper evaluates it (its §2(c) and artifact): egress
//! queues scheduled shortest-remaining first (rank order), and Selective Deflection — a
//! packet arriving at a full queue makes room by taking out the queued packets with the
//! most remaining bytes, if they rank below it, and those are deflected; otherwise the
//! arriving packet is. A deflected packet goes to the less occupied of two random
//! switch-facing ports, where a full queue again gives up its highest ranks (dropped) for
//! it, or drops it if it ranks highest. The queue surgery is the switch's (`preempt`);
//! this policy decides, names the packets to take out and picks ports.

use rand::Rng;

use super::hooks::{
    check_hop_limit, pick_two, AdmBuild, AdmCx, Arrival, BufferRule, DeflectionPolicy, HopLimitSpec,
    SurgeryCx, Verdict,
};
use crate::engine::RngStream;
use crate::fabric::port::Port;
use crate::fabric::store::PacketRef;
use crate::ids::PortId;
use crate::metrics::DropCause;
use crate::scenario::error::ScenarioError;

/// Vertigo at every switch.
#[derive(Clone, Debug)]
pub struct Vertigo {
    candidates: Vec<Vec<PortId>>,
    rngs: Vec<RngStream>,
}

impl Vertigo {
    pub fn new(candidates: Vec<Vec<PortId>>, rngs: Vec<RngStream>) -> Vertigo {
        Vertigo { candidates, rngs }
    }

    /// Where switch `sw` deflects a packet: the less occupied of two random switch-facing
    /// ports (power of two choices; ties by a fair coin).
    fn choose_port(&mut self, sw: usize, queue: usize, rule: &BufferRule, ports: &[Port]) -> Option<PortId> {
        let rng = &mut self.rngs[sw];
        match pick_two(rng, &self.candidates[sw]) {
            (Some(a), Some(b)) => {
                let (qa, qb) = (rule.level(&ports[a.idx()], queue), rule.level(&ports[b.idx()], queue));
                Some(if qa < qb || (qa == qb && rng.gen_bool(0.5)) { a } else { b })
            }
            (a, _) => a,
        }
    }
}

impl DeflectionPolicy for Vertigo {
    const NAME: &'static str = "vertigo";
    /// Its choices read only the deciding switch's queues, its draws are per switch
    /// (`tests/parallel.rs`).
    const PARTITIONS: bool = true;
    type Spec = HopLimitSpec;
    const READS_RANK: bool = true;
    const RANK_ORDERED: bool = true;

    fn validate(spec: &HopLimitSpec) -> Result<(), ScenarioError> {
        check_hop_limit(spec.hop_limit)
    }

    fn hop_limit(spec: &HopLimitSpec) -> u8 {
        spec.hop_limit as u8
    }

    fn build(_spec: &HopLimitSpec, b: &mut AdmBuild) -> Self {
        Vertigo::new(b.switch_facing_ports(), b.switch_streams("vertigo"))
    }

    /// A full queue makes room (the switch asks [`victims`](Self::victims)).
    fn admit(&mut self, _cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict {
        if !a.spend_hop() {
            return Verdict::Drop(DropCause::HopLimit);
        }
        if fits {
            Verdict::Enqueue
        } else {
            Verdict::MakeRoom
        }
    }

    /// The highest-ranked packets of `queue` whose removal lets the arrival fit, all ranked
    /// strictly above it; `None` if there are not enough.
    fn victims(
        &self,
        cx: &SurgeryCx,
        port: PortId,
        queue: usize,
        rank: u64,
        size: u64,
        used: u64,
        buffer: u64,
    ) -> Option<Vec<PacketRef>> {
        let cap = cx.rule.capacity(used, buffer);
        let p = &cx.ports[port.idx()];
        let level = cx.rule.level(p, queue);
        let list = p.queues.list(queue);
        let mut freed = 0;
        let mut victims = Vec::new();
        let mut at = p.queues.tail(queue);
        while level - freed + size > cap {
            let x = at?;
            if cx.headers.get(x.index(), cx.rank) <= rank {
                return None;
            }
            freed += cx.store.get(x).wire_bytes as u64;
            victims.push(x);
            at = cx.store.prev_of(list, x);
        }
        Some(victims)
    }

    fn deflection_port(&mut self, cx: &AdmCx, sw: usize, queue: usize) -> Option<PortId> {
        self.choose_port(sw, queue, cx.rule, cx.ports)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng_stream;
    use crate::fabric::headers::{HeaderLayout, Headers};
    use crate::fabric::packet::test_packet;
    use crate::fabric::queues::QueueOrder;
    use crate::fabric::store::PacketStore;
    use crate::ids::NodeId;
    use crate::time::{Delta, Rate, SimTime};

    /// One rank-ordered (SRPT) port holding packets of 1,048 B with the given ranks, the
    /// packets' rank field, and the rule: 4,192 B per port (four packets).
    struct Queue {
        ports: Vec<Port>,
        store: PacketStore,
        headers: Headers,
        rank: crate::fabric::headers::Field,
        refs: Vec<(u64, PacketRef)>,
    }

    const RULE: BufferRule = BufferRule::StaticPerPort { bytes: 4_192 };

    fn queue(ranks: &[u64]) -> Queue {
        let mut layout = HeaderLayout::default();
        let rank = layout.field("rank", 64);
        let mut headers = Headers::new(&layout);
        let mut store = PacketStore::new();
        let mut port = Port::new(NodeId(0), PortId(0), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default());
        port.queues.set_order(0, QueueOrder::Rank);
        let mut refs = Vec::new();
        for &r in ranks {
            let x = store.insert(test_packet(r));
            headers.reset(x.index());
            headers.set(x.index(), rank, r);
            port.queues.enqueue_with(&mut store, 0, x, |y| headers.get(y.index(), rank));
            refs.push((r, x));
        }
        Queue { ports: vec![port], store, headers, rank, refs }
    }

    impl Queue {
        /// The ranks of the packets Vertigo takes out for an arrival of `rank`, `size` B.
        fn victims(&self, rank: u64, size: u64) -> Option<Vec<u64>> {
            let cx = SurgeryCx {
                rule: &RULE,
                ports: &self.ports,
                store: &self.store,
                headers: &self.headers,
                rank: self.rank,
            };
            let v = Vertigo::new(vec![vec![]], vec![rng_stream(1, "t")]);
            let taken = v.victims(&cx, PortId(0), 0, rank, size, 0, 1 << 30)?;
            Some(
                taken
                    .iter()
                    .map(|x| self.refs.iter().find(|(_, r)| r == x).expect("a queued packet").0)
                    .collect(),
            )
        }
    }

    /// Vertigo (CoNEXT 2021) Selective Deflection, as the deflection paper §2(c) describes
    /// it: a full queue makes room by taking out the packets with the most remaining bytes
    /// (highest rank), as many as the arrival needs, only if each ranks strictly above it;
    /// otherwise nothing is taken and the arrival itself is deflected.
    #[test]
    fn victims_are_the_queued_packets_with_the_most_remaining_bytes() {
        let q = queue(&[30, 10, 40, 20]);
        assert_eq!(q.victims(25, 1048), Some(vec![40]), "one packet's room: the highest rank");
        assert_eq!(q.victims(25, 2000), Some(vec![40, 30]), "two packets' room: the two highest");
        assert_eq!(q.victims(35, 2000), None, "30 does not rank above 35: the arrival goes");
        assert_eq!(q.victims(40, 1048), None, "a tie does not evict");
        assert_eq!(q.victims(5, 5000), None, "not enough packets to make room");
        let room = queue(&[10, 20, 30]);
        assert_eq!(room.victims(50, 1048), Some(vec![]), "room already: nothing taken");
    }

    /// Vertigo's admission: a packet that fits is queued, one that does not asks the
    /// switch to make room (the surgery above); each switch hop spends one TTL.
    #[test]
    fn a_full_queue_asks_for_room() {
        let q = queue(&[10, 20, 30, 40]);
        let mut v = Vertigo::new(vec![vec![]], vec![rng_stream(1, "t")]);
        let cx = AdmCx { rule: &RULE, ports: &q.ports };
        let mut ttl = 3;
        let mut arrival = Arrival {
            sw: 0,
            egress: PortId(0),
            queue: 0,
            size: 1048,
            used: 0,
            buffer: 1 << 30,
            ttl: &mut ttl,
            rank: 5,
            now: SimTime::ZERO,
        };
        assert_eq!(v.admit(&cx, &mut arrival, true), Verdict::Enqueue);
        assert_eq!(v.admit(&cx, &mut arrival, false), Verdict::MakeRoom);
        assert_eq!(v.admit(&cx, &mut arrival, true), Verdict::Drop(DropCause::HopLimit), "TTL spent");
    }

    /// Vertigo's deflection: the less occupied of two switch-facing ports drawn at random
    /// (power of two choices). Ports holding 0, 1, 2 and 3 packets win 3, 2, 1 and 0 of
    /// the 6 pairs; equally occupied ones are chosen alike; one candidate is always taken,
    /// none gives no port.
    #[test]
    fn a_deflected_packet_goes_to_the_less_occupied_of_two_random_ports() {
        let mut store = PacketStore::new();
        let ports: Vec<Port> = (0..4u32)
            .map(|i| {
                let mut p =
                    Port::new(NodeId(0), PortId(i), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default());
                for _ in 0..i {
                    let r = store.insert(test_packet(0));
                    p.queues.enqueue(&mut store, 0, r);
                }
                p
            })
            .collect();
        let all: Vec<PortId> = (0..4).map(PortId).collect();
        let mut v = Vertigo::new(
            vec![all.clone(), vec![PortId(3)], vec![]],
            (0..3).map(|s| rng_stream(s, "t")).collect(),
        );
        let mut wins = [0u32; 4];
        for _ in 0..6_000 {
            wins[v.choose_port(0, 0, &RULE, &ports).expect("a port").idx()] += 1;
        }
        assert_eq!(wins[3], 0, "the most occupied never wins: {wins:?}");
        for (i, share) in [3.0, 2.0, 1.0].into_iter().enumerate() {
            let expect = 6_000.0 * share / 6.0;
            assert!((wins[i] as f64 - expect).abs() < 0.1 * expect, "{wins:?}");
        }
        let idle: Vec<Port> = (0..4u32)
            .map(|i| Port::new(NodeId(0), PortId(i), Rate::gbps(10), Delta::ZERO, 1, 1, Default::default()))
            .collect();
        let mut tie = [0u32; 4];
        for _ in 0..4_000 {
            tie[v.choose_port(0, 0, &RULE, &idle).expect("a port").idx()] += 1;
        }
        assert!(tie.iter().all(|c| (900..1100).contains(c)), "ties by a fair coin: {tie:?}");
        assert_eq!(v.choose_port(1, 0, &RULE, &ports), Some(PortId(3)), "the only candidate");
        assert_eq!(v.choose_port(2, 0, &RULE, &ports), None);
    }
}
