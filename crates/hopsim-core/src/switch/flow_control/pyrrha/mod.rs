//! Pyrrha: congestion-root-based flow control (Liu et al., "Pyrrha: Congestion-Root-Based
//! Flow Control to Eliminate Head-of-Line Blocking in Datacenter"), section by section:
//!
//! - **§4.1 root identification.** An egress port whose output queue (OQ) holds more than
//!   `K_pause` one-hop BDPs nominates itself a congestion root: each packet that then
//!   arrives for the OQ sends PAUSE(root = this port) to the upstream it came from (once
//!   per upstream); below `K_resume` one-hop BDPs it sends RESUME. A port that is a root
//!   and learns of a root further downstream (a PAUSE creating a new IQ there) was a false
//!   positive: it sends MERGE(old = itself, new) to the upstreams it paused, which move its
//!   IQs to soft-merging and pass the MERGE on.
//! - **§4.2 congested-flow identification.** A port that received PAUSE(root) knows the
//!   root and its distance; every packet for the port is matched, by its hash-aware onward
//!   path (`path`), against the roots the port knows, nearest first.
//! - **§4.3 congested-flow management.** Matched packets wait in isolation queues (IQs),
//!   hierarchical by distance (or single-tier with order marks, Appendix C; `iq`); an IQ
//!   holding more than `K_pause` of an upstream's bytes pauses that upstream for the root
//!   (`roots`), so the tree grows back to the sources. IQs are unassigned once empty, not
//!   paused and leaves of their tree, telling the port downstream (UNASSIGN), so trees
//!   dissolve from the leaves to the root.
//! - **§4.4** hosts stop exactly the flows crossing a paused root (`host`); **§4.5** at most
//!   `iq_limit` IQs per port, roots hashed onto them beyond; a PAUSE naming a port of the
//!   receiving switch itself is ignored (deadlock prevention); **Appendix A** a root whose
//!   link fails resumes its upstreams, and onward paths follow the rerouted tables.
//!
//! OQs are the port's `switch.queues` traffic classes, never paused; IQs are queues
//! allocated above them. In the hierarchical structure the port's scheduler sends from the
//! OQs only; the IQs have their own scheduler (`pump`): each time the port sends, every IQ
//! free to drain (resumed or soft-merging, not held) moves its head packet to its next
//! level — the IQ of the next root on its path, or the OQ — and it runs again at once while
//! the port would otherwise idle. An empty IQ free to drain is passed straight through. So
//! the levels drain at the port's rate, each in FIFO order, and a flow's packets stay in
//! order through root changes and soft-merging.

pub mod frame;
mod host;
mod iq;
pub(crate) mod path;
mod roots;
pub mod spec;
mod tree;
pub mod types;

pub use iq::IqState;
pub use tree::{IqUsageRecord, TreeRecord, TreeRole, TreeSnapshots};

use self::frame::{PyrrhaFrame, RootSignal};
use self::host::HostPauses;
use self::iq::{Assigned, PortIqs};
use self::path::walk_onward;
use self::roots::RootTable;
use self::spec::{IsolationQueues, PyrrhaSpec};
use self::types::RootId;
use super::hooks::{Arrival, FcBuild, FcCx, FlowControlPolicy, Hop, Outbox};
use crate::fabric::headers::{Field, HeaderLayout, Headers};
use crate::fabric::packet::Packet;
use crate::fabric::port::Port;
use crate::fabric::store::PacketRef;
use crate::host::FlowKey;
use crate::ids::{FlowId, PortId};
use crate::scenario::error::ScenarioError;
use crate::time::SimTime;
use crate::topology::routing::{routing_tuple, FiveTuple, Routing};
use crate::topology::Topology;

/// No root (`pyrrha.root` of a packet not isolated).
const NO_ROOT: RootId = u32::MAX;

/// `pyrrha.mark` bits: the packet waited in an IQ at the current port; its bytes are
/// counted for its upstream under `pyrrha.root` at the current switch.
const ISOLATED: u8 = 1;
const COUNTED: u8 = 2;

/// The header fields a Pyrrha packet carries: the congestion root it is matched to, the
/// level of the IQ it waits in (the root's distance), and its marks at the current hop.
#[derive(Clone, Copy, Debug)]
pub struct PyrrhaFields {
    root: Field,
    level: Field,
    mark: Field,
}

impl PyrrhaFields {
    pub fn register(layout: &mut HeaderLayout) -> PyrrhaFields {
        PyrrhaFields {
            root: layout.field("pyrrha.root", 32),
            level: layout.field("pyrrha.iq_level", 8),
            mark: layout.field("pyrrha.mark", 8),
        }
    }

    #[inline]
    fn root(&self, h: &Headers, slot: usize) -> RootId {
        h.get(slot, self.root) as RootId
    }
    #[inline]
    fn level(&self, h: &Headers, slot: usize) -> u8 {
        h.get(slot, self.level) as u8
    }
    #[inline]
    fn mark(&self, h: &Headers, slot: usize) -> u8 {
        h.get(slot, self.mark) as u8
    }
    /// Set root, level and mark at once.
    #[inline]
    fn place(&self, h: &mut Headers, slot: usize, root: RootId, level: u8, mark: u8) {
        h.set(slot, self.root, root as u64);
        h.set(slot, self.level, level as u64);
        h.set(slot, self.mark, mark as u64);
    }
    #[inline]
    fn set_mark(&self, h: &mut Headers, slot: usize, mark: u8) {
        h.set(slot, self.mark, mark as u64);
    }
}

/// How isolation queues are organised (§4.3, Appendix C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IqStructure {
    /// Levels by distance to the root, matched near to far (§4.3).
    Hierarchical,
    /// One IQ per set of roots crossed, order marks for in-order delivery (Appendix C).
    SingleTier,
}

/// Parameters of Pyrrha (`[switch.flow_control]` with `kind = "pyrrha"`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PyrrhaConfig {
    /// PAUSE above this many one-hop BDPs (§6 "Parameters": 2).
    pub k_pause: f64,
    /// RESUME below this many (§6: 1).
    pub k_resume: f64,
    /// Physical IQs per port at most (§6: 100).
    pub iq_limit: u32,
    /// False-positive roots merge into the real root (§4.1; off only for Fig 27/28).
    pub merge: bool,
    pub structure: IqStructure,
}

/// Counters of a Pyrrha run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PyrrhaStats {
    /// Ports that nominated themselves congestion roots (each time they started one).
    pub roots_nominated: u64,
    /// False-positive roots merged into a root downstream.
    pub merges: u64,
    /// IQs given a physical queue of their own, and roots (or sets) hashed onto a shared one.
    pub iqs_assigned: u64,
    pub iqs_hashed: u64,
    /// Packets moved from an IQ to its next level (hierarchical), and of those, out of a
    /// soft-merging IQ.
    pub iq_moves: u64,
    pub soft_merge_moves: u64,
    /// Order marks pushed (single tier).
    pub order_marks: u64,
    /// PAUSE frames naming a port of the receiving switch, ignored (§4.5).
    pub own_root_pauses_ignored: u64,
    /// Most physical IQs one port held at once.
    pub max_iqs_per_port: u64,
}

/// Per-port facts Pyrrha is built from.
pub struct PyrrhaPort {
    /// One-hop BDP: the port's rate × twice its propagation delay.
    pub hop_bdp: u64,
    /// The switch (index) the port belongs to; `None` for a host's NIC port.
    pub switch: Option<u32>,
    /// The port's peer is a host.
    pub peer_host: bool,
}

/// Pyrrha at every switch and host NIC.
#[derive(Clone, Debug)]
pub struct Pyrrha {
    cfg: PyrrhaConfig,
    /// OQs per port (the traffic classes); IQs are queues above them.
    classes: usize,
    /// The load balancer picks ports per packet: onward paths are known only in part.
    adaptive: bool,
    /// Per port: K_pause and K_resume one-hop BDPs, in bytes.
    pause_at: Vec<u64>,
    resume_at: Vec<u64>,
    /// Per port: its switch (`u32::MAX`: a host NIC port), and whether its peer is a host.
    switch_of: Vec<u32>,
    peer_host: Vec<bool>,
    /// Per switch: its first port.
    first_port: Vec<u32>,
    iqs: Vec<PortIqs>,
    roots: RootTable,
    hosts: HostPauses,
    outbox: Outbox<PyrrhaFrame>,
    pub stats: PyrrhaStats,
    /// Every change of a port's number of IQs.
    pub usage: Vec<IqUsageRecord>,
    fields: PyrrhaFields,
    /// `[output.congestion_trees]`: the instants asked and the snapshots taken.
    pub trees: Option<TreeSnapshots>,
}

impl Pyrrha {
    /// `ports`: every port's facts; `first_port`: per switch; `classes`: OQs per port;
    /// `adaptive`: a per-packet load balancer runs.
    pub fn new(
        cfg: PyrrhaConfig,
        ports: &[PyrrhaPort],
        first_port: Vec<u32>,
        classes: usize,
        adaptive: bool,
        fields: PyrrhaFields,
    ) -> Pyrrha {
        let scale = |k: f64| ports.iter().map(|p| (p.hop_bdp as f64 * k).ceil() as u64).collect();
        Pyrrha {
            cfg,
            classes,
            adaptive,
            pause_at: scale(cfg.k_pause),
            resume_at: scale(cfg.k_resume),
            switch_of: ports.iter().map(|p| p.switch.unwrap_or(u32::MAX)).collect(),
            peer_host: ports.iter().map(|p| p.peer_host).collect(),
            first_port,
            iqs: vec![PortIqs::default(); ports.len()],
            roots: RootTable::new(ports.len()),
            hosts: HostPauses::new(ports.len()),
            outbox: Outbox::new(),
            stats: PyrrhaStats::default(),
            usage: Vec::new(),
            fields,
            trees: None,
        }
    }

    #[inline]
    fn sw(&self, port: PortId) -> usize {
        self.switch_of[port.idx()] as usize
    }

    fn send(&mut self, out: PortId, signal: RootSignal, root: RootId, old_root: RootId, hop: u8) {
        self.outbox.push_back((out, PyrrhaFrame { signal, root, old_root, hop }));
    }

    /// The nearest root `port` knows on the onward path of `tuple` beyond distance `after`:
    /// (index in the port's known roots, distance).
    fn nearest(
        &self,
        routing: &Routing,
        topo: &Topology,
        port: PortId,
        tuple: FiveTuple,
        after: u8,
    ) -> Option<(usize, u8)> {
        let known = &self.iqs[port.idx()].known;
        let mut found = None;
        walk_onward(routing, topo, port, tuple, self.adaptive, |d, p| {
            if d <= after {
                return false;
            }
            if let Some(p) = p {
                if let Some(i) = known.iter().position(|k| k.root == p.0) {
                    found = Some((i, d));
                    return true;
                }
            }
            false
        });
        found
    }

    fn log_usage(&mut self, port: PortId, now: SimTime) {
        let iqs = self.iqs[port.idx()].in_use() as u32;
        self.stats.max_iqs_per_port = self.stats.max_iqs_per_port.max(iqs as u64);
        self.usage.push(IqUsageRecord { time: now, port, iqs });
    }

    fn assigned(&mut self, how: Assigned) {
        match how {
            Assigned::New(_) => self.stats.iqs_assigned += 1,
            Assigned::Shared(_) => self.stats.iqs_hashed += 1,
        }
    }

    // ---------------------------------------------------------------- arrival

    /// The queue of data packet `pkt` at `egress`: the IQ of the nearest root it crosses
    /// (hierarchical) or of the set of roots it crosses (single tier), else its OQ.
    fn classify_packet(&mut self, cx: &mut FcCx, egress: PortId, pkt: &Packet, slot: usize) -> usize {
        let oq = pkt.priority as usize;
        let f = self.fields;
        f.place(cx.headers, slot, NO_ROOT, 0, 0);
        if self.iqs[egress.idx()].known.is_empty() {
            return oq;
        }
        let tuple = routing_tuple(pkt);
        let port = &mut cx.ports[egress.idx()];
        match self.cfg.structure {
            IqStructure::Hierarchical => {
                let Some((i, d)) = self.next_level(port, cx.routing, cx.topo, egress, tuple, 0) else {
                    return oq;
                };
                let k = self.iqs[egress.idx()].known[i];
                f.place(cx.headers, slot, k.root, d, ISOLATED);
                k.queue as usize
            }
            IqStructure::SingleTier => {
                let known = &self.iqs[egress.idx()].known;
                let mut set: Vec<(RootId, u8)> = Vec::new();
                walk_onward(cx.routing, cx.topo, egress, tuple, self.adaptive, |d, p| {
                    if let Some(p) = p.filter(|p| known.iter().any(|k| k.root == p.0)) {
                        set.push((p.0, d));
                    }
                    false
                });
                if set.is_empty() {
                    return oq;
                }
                let roots: Vec<RootId> = set.iter().map(|s| s.0).collect();
                let iqs = &mut self.iqs[egress.idx()];
                let (queue, how) =
                    iqs.queue_for_set(port, cx.store, self.cfg.iq_limit as usize, self.classes, &roots);
                if let Some(how) = how {
                    let marks = self.iqs[egress.idx()]
                        .slots
                        .iter()
                        .find(|s| s.queue == queue)
                        .map_or(0, |s| s.order_blocks);
                    self.stats.order_marks += marks as u64;
                    self.assigned(how);
                    self.iqs[egress.idx()].refresh(port, cx.now);
                    if matches!(how, Assigned::New(_)) {
                        self.log_usage(egress, cx.now);
                    }
                }
                // Its bytes count for the nearest paused root it crosses (what holds it).
                let iqs = &self.iqs[egress.idx()];
                let (root, d) = set
                    .iter()
                    .copied()
                    .find(|(r, _)| iqs.state_of(*r) == Some(IqState::Paused))
                    .unwrap_or(set[0]);
                f.place(cx.headers, slot, root, d, ISOLATED);
                queue as usize
            }
        }
    }

    /// The packet joins `queue` of `egress` (arrived on `in_port`; the queue then holds
    /// `bytes_after`): an OQ past K_pause makes the port a root pausing that upstream; an IQ
    /// counts the packet for its upstream, pausing it past K_pause. Returns whether a
    /// frame waits.
    fn arrive(&mut self, headers: &mut Headers, hop: &Hop, bytes_after: u64) -> bool {
        if hop.queue < self.classes {
            return self.root_check(hop.egress, hop.in_port, bytes_after);
        }
        let f = self.fields;
        let root = f.root(headers, hop.slot);
        let mut mark = f.mark(headers, hop.slot);
        let frames = self.count(hop.egress, hop.in_port, root, hop.pkt.wire_bytes as u64, &mut mark);
        f.set_mark(headers, hop.slot, mark);
        frames
    }

    /// An OQ of `egress` holds `oq_bytes` after a packet from `in_port` joined it.
    fn root_check(&mut self, egress: PortId, in_port: PortId, oq_bytes: u64) -> bool {
        if oq_bytes <= self.pause_at[egress.idx()] {
            return false;
        }
        let first = self.roots.self_children[egress.idx()].is_empty();
        if !self.roots.root_pauses(egress, in_port) {
            return false;
        }
        if first {
            self.stats.roots_nominated += 1;
        }
        self.send(in_port, RootSignal::Pause, egress.0, NO_ROOT, 1);
        true
    }

    /// Count `bytes` from `in_port` in an IQ of `root` at `egress`'s switch (not for a
    /// soft-merging root, which controls nothing any more).
    fn count(&mut self, egress: PortId, in_port: PortId, root: RootId, bytes: u64, mark: &mut u8) -> bool {
        if !matches!(self.iqs[egress.idx()].state_of(root), Some(IqState::Paused | IqState::Resumed)) {
            return false;
        }
        let sw = self.sw(egress);
        *mark |= COUNTED;
        if self.roots.count(sw, root, in_port, bytes, self.pause_at[egress.idx()]) {
            let h = self.roots.get(sw, root).map_or(1, |e| e.hop);
            self.send(in_port, RootSignal::Pause, root, NO_ROOT, h.saturating_add(1));
            return true;
        }
        false
    }

    /// The packet (counted under its root) leaves an IQ: uncount it, resuming its upstream
    /// below K_resume (and tidying the root's IQs at the switch, which may now be leaves).
    fn uncount(&mut self, cx: &mut FcCx, egress: PortId, in_port: PortId, bytes: u64, slot: usize) -> bool {
        let f = self.fields;
        let mark = f.mark(cx.headers, slot);
        if mark & COUNTED == 0 {
            return false;
        }
        f.set_mark(cx.headers, slot, mark & !COUNTED);
        let root = f.root(cx.headers, slot);
        let sw = self.sw(egress);
        if !self.roots.uncount(sw, root, in_port, bytes, self.resume_at[egress.idx()]) {
            return false;
        }
        self.send(in_port, RootSignal::Resume, root, NO_ROOT, 0);
        self.tidy_root(cx.ports, sw, root, cx.now);
        true
    }

    // ---------------------------------------------------------------- departure

    /// Data packet `pkt` left `queue` of `egress` (sent, or dropped with a failed link): an
    /// IQ uncounts it and may be unassigned; a root's OQ below K_resume resumes its upstreams.
    fn depart(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        let (egress, queue) = (hop.egress, hop.queue);
        let mut signal = self.uncount(cx, egress, hop.in_port, hop.pkt.wire_bytes as u64, hop.slot);
        if queue < self.classes {
            if !self.roots.self_children[egress.idx()].is_empty()
                && cx.ports[egress.idx()].queues.queue_bytes(queue) < self.resume_at[egress.idx()]
            {
                signal |= self.root_resumes(egress);
            }
            signal |= self.pump(cx, egress);
        } else {
            signal |= self.tidy(cx.ports, egress, cx.now);
        }
        signal
    }

    /// A root's OQ fell below K_resume: RESUME every upstream it paused (hosts, which keep
    /// no IQs, leave its tree at once).
    fn root_resumes(&mut self, egress: PortId) -> bool {
        let mut children = std::mem::take(&mut self.roots.self_children[egress.idx()]);
        let mut signal = false;
        for c in children.iter_mut().filter(|c| c.paused) {
            c.paused = false;
            self.outbox.push_back((
                c.ingress,
                PyrrhaFrame { signal: RootSignal::Resume, root: egress.0, old_root: NO_ROOT, hop: 1 },
            ));
            signal = true;
        }
        children.retain(|c| !self.peer_host[c.ingress.idx()]);
        self.roots.self_children[egress.idx()] = children;
        signal
    }

    /// Hierarchical: packet `r` (`pkt`), taken from the head of an IQ of `egress`, moves
    /// to its next level — the IQ of the next root on its path (straight through any that
    /// is empty and not held), or its OQ, which may make the port a root.
    fn pass_on(&mut self, cx: &mut FcCx, egress: PortId, r: PacketRef, pkt: &Packet) -> bool {
        let sw = self.sw(egress);
        let slot = r.index();
        let in_port = PortId(self.first_port[sw] + pkt.ingress as u32);
        let bytes = pkt.wire_bytes as u64;
        let mut signal = self.uncount(cx, egress, in_port, bytes, slot);
        self.stats.iq_moves += 1;
        let f = self.fields;
        let (root, level) = (f.root(cx.headers, slot), f.level(cx.headers, slot));
        if self.iqs[egress.idx()].state_of(root) == Some(IqState::Merging) {
            self.stats.soft_merge_moves += 1;
        }
        let next =
            self.next_level(&cx.ports[egress.idx()], cx.routing, cx.topo, egress, routing_tuple(pkt), level);
        let port = &mut cx.ports[egress.idx()];
        match next {
            Some((i, d)) => {
                let k = self.iqs[egress.idx()].known[i];
                port.queues.enqueue(cx.store, k.queue as usize, r);
                let mut mark = f.mark(cx.headers, slot);
                signal |= self.count(egress, in_port, k.root, bytes, &mut mark);
                f.place(cx.headers, slot, k.root, d, mark);
            }
            None => {
                let oq = pkt.priority as usize;
                port.queues.enqueue(cx.store, oq, r);
                let mark = f.mark(cx.headers, slot);
                f.place(cx.headers, slot, NO_ROOT, 0, mark);
                let oq_bytes = port.queues.queue_bytes(oq);
                signal |= self.root_check(egress, in_port, oq_bytes);
            }
        }
        signal
    }

    /// The IQ a packet of `tuple` enters next at `port` beyond distance `after`: the nearest
    /// root it crosses whose IQ is held (paused, or order-blocked) or not empty — an empty
    /// IQ free to drain is passed straight through, as its scheduler would at once.
    fn next_level(
        &self,
        egress: &Port,
        routing: &Routing,
        topo: &Topology,
        port: PortId,
        tuple: FiveTuple,
        mut after: u8,
    ) -> Option<(usize, u8)> {
        loop {
            let (i, d) = self.nearest(routing, topo, port, tuple, after)?;
            let iqs = &self.iqs[port.idx()];
            let q = iqs.known[i].queue;
            if iqs.queue_held(q) || egress.queues.queue_len(q as usize) > 0 {
                return Some((i, d));
            }
            after = d;
        }
    }

    /// Hierarchical: the isolation queues' schedulers run as fast as the port — each time
    /// `egress` sends a packet (or an IQ of it is let go), every IQ free to drain passes its
    /// head to its next level, round after round while the port would otherwise idle (a
    /// round may only move packets between levels), so an IQ free to drain never waits
    /// behind an idle port. Returns whether frames wait.
    fn pump(&mut self, cx: &mut FcCx, egress: PortId) -> bool {
        if self.cfg.structure != IqStructure::Hierarchical || cx.ports[egress.idx()].down {
            return false;
        }
        let mut signal = false;
        loop {
            let queues: Vec<u32> = {
                let iqs = &self.iqs[egress.idx()];
                iqs.slots.iter().map(|s| s.queue).filter(|q| !iqs.queue_held(*q)).collect()
            };
            let mut moved = false;
            for q in queues {
                let Some(r) = cx.ports[egress.idx()].queues.dequeue(cx.store, q as usize) else {
                    continue;
                };
                moved = true;
                let pkt = *cx.store.get(r);
                signal |= self.pass_on(cx, egress, r, &pkt);
            }
            // Every move raises a packet's level, so the rounds end.
            if !moved || cx.ports[egress.idx()].queues.next_queue().is_some() {
                break;
            }
        }
        signal | self.tidy(cx.ports, egress, cx.now)
    }

    // ---------------------------------------------------------------- unassigning

    /// Unassign every root at `egress` whose IQs are empty, not paused and leaves of their
    /// tree (soft-merging ones once empty), telling the port downstream (§4.3, Fig 6).
    fn tidy(&mut self, ports: &mut [Port], egress: PortId, now: SimTime) -> bool {
        let sw = self.sw(egress);
        let port = &mut ports[egress.idx()];
        let iqs = &self.iqs[egress.idx()];
        let done: Vec<(RootId, IqState)> = iqs
            .known
            .iter()
            .filter(|k| k.state != IqState::Paused && iqs.root_queues_empty(port, k.root))
            .filter(|k| k.state == IqState::Merging || self.roots.is_leaf(sw, k.root, &self.peer_host))
            .map(|k| (k.root, k.state))
            .collect();
        let mut signal = false;
        for (root, state) in done {
            if self.iqs[egress.idx()].remove_root(port, root, now) {
                self.log_usage(egress, now);
            }
            if state != IqState::Merging {
                self.send(egress, RootSignal::Unassign, root, NO_ROOT, 0);
                signal = true;
            }
            if let Some(e) = self.roots.get_mut(sw, root) {
                e.ports.retain(|p| *p != egress);
                if e.ports.is_empty() && self.roots.is_leaf(sw, root, &self.peer_host) {
                    self.roots.remove(sw, root);
                }
            }
        }
        signal
    }

    /// Tidy every port of switch `sw` that knows `root` (a child of it changed).
    fn tidy_root(&mut self, ports: &mut [Port], sw: usize, root: RootId, now: SimTime) -> bool {
        let at: Vec<PortId> = self.roots.get(sw, root).map_or(Vec::new(), |e| e.ports.clone());
        let mut signal = false;
        for p in at {
            signal |= self.tidy(ports, p, now);
        }
        if let Some(e) = self.roots.get(sw, root) {
            if e.ports.is_empty() && self.roots.is_leaf(sw, root, &self.peer_host) {
                self.roots.remove(sw, root);
            }
        }
        signal
    }

    // ---------------------------------------------------------------- frames

    /// A Pyrrha frame arrived on `port_id` (a host NIC's port when `is_host`). Returns
    /// whether the port may send something it held.
    fn frame(&mut self, cx: &mut FcCx, port_id: PortId, is_host: bool, frame: PyrrhaFrame) -> bool {
        let PyrrhaFrame { signal, root, old_root, hop } = frame;
        let now = cx.now;
        if is_host {
            match signal {
                RootSignal::Pause => self.hosts.pause(port_id, root),
                RootSignal::Resume => self.hosts.resume(port_id, root),
                RootSignal::Merge => {
                    self.hosts.resume(port_id, root);
                    self.hosts.resume(port_id, old_root);
                }
                RootSignal::Unassign => {}
            }
            return signal != RootSignal::Pause;
        }
        let sw = self.sw(port_id);
        match signal {
            RootSignal::Pause => self.on_pause(cx.ports, port_id, sw, root, hop, now),
            RootSignal::Resume => {
                if let Some(i) = self.iqs[port_id.idx()].find(root) {
                    let k = &mut self.iqs[port_id.idx()].known[i];
                    if k.state == IqState::Paused {
                        k.state = IqState::Resumed;
                    }
                }
                self.iqs[port_id.idx()].refresh(&mut cx.ports[port_id.idx()], now);
                self.pump(cx, port_id);
                self.tidy(cx.ports, port_id, now);
                true
            }
            RootSignal::Merge => {
                self.on_merge(cx.ports, port_id, sw, root, old_root, hop, now);
                self.pump(cx, port_id);
                true
            }
            RootSignal::Unassign => {
                // From an upstream: `port_id` is the ingress its traffic came over.
                if self.switch_of[root as usize] as usize == sw {
                    self.roots.self_children[root as usize].retain(|c| c.ingress != port_id || c.paused);
                    return false;
                }
                self.roots.remove_child(sw, root, port_id);
                self.tidy_root(cx.ports, sw, root, now);
                false
            }
        }
    }

    /// §4.5 deadlock rule: a frame naming a port of switch `sw` itself is ignored (counted).
    fn own_root(&mut self, root: RootId, sw: usize) -> bool {
        let own = self.switch_of[root as usize] as usize == sw;
        self.stats.own_root_pauses_ignored += own as u64;
        own
    }

    /// PAUSE(root) arrived on egress `port_id`: stop the root's IQ there (learning the root
    /// if new, with an IQ of its own or hashed); a port that was itself a root and learns of
    /// a new root downstream was a false positive and merges into it (§4.1).
    fn on_pause(
        &mut self,
        ports: &mut [Port],
        port_id: PortId,
        sw: usize,
        root: RootId,
        hop: u8,
        now: SimTime,
    ) -> bool {
        if self.own_root(root, sw) {
            return false;
        }
        let new = self.learn(ports, port_id, sw, root, hop, IqState::Paused, now);
        // A root new to the port: the port's own congestion was (in part) traffic bound for it.
        if new && self.cfg.merge && !self.roots.self_children[port_id.idx()].is_empty() {
            self.merge_into(port_id, sw, root, hop);
        }
        self.iqs[port_id.idx()].refresh(&mut ports[port_id.idx()], now);
        false
    }

    /// Port `port_id` (of switch `sw`) learns root `root`, `hop` hops away, in `state` (a
    /// known root only changes state). Returns whether the root was new to the port.
    #[allow(clippy::too_many_arguments)]
    fn learn(
        &mut self,
        ports: &mut [Port],
        port_id: PortId,
        sw: usize,
        root: RootId,
        hop: u8,
        state: IqState,
        now: SimTime,
    ) -> bool {
        let iqs = &mut self.iqs[port_id.idx()];
        if let Some(i) = iqs.find(root) {
            iqs.known[i].state = state;
            return false;
        }
        match self.cfg.structure {
            IqStructure::Hierarchical => {
                let port = &mut ports[port_id.idx()];
                let how = iqs.add_root(port, self.cfg.iq_limit as usize, root, hop, state);
                // Its scheduler is Pyrrha's pump, not the port's.
                port.queues.hold(how.queue() as usize, true);
                self.assigned(how);
                if matches!(how, Assigned::New(_)) {
                    self.log_usage(port_id, now);
                }
            }
            IqStructure::SingleTier => iqs.add_root_untiered(root, hop, state),
        }
        let e = self.roots.entry(sw, root, hop);
        if !e.ports.contains(&port_id) {
            e.ports.push(port_id);
        }
        true
    }

    /// Root `old` (a port of switch `sw`) learned of root `root` `hop` hops further: MERGE
    /// its upstreams into `root`'s tree.
    fn merge_into(&mut self, old: PortId, sw: usize, root: RootId, hop: u8) {
        self.stats.merges += 1;
        let children = std::mem::take(&mut self.roots.self_children[old.idx()]);
        let up_hop = hop.saturating_add(1);
        for c in children {
            self.send(c.ingress, RootSignal::Merge, root, old.0, up_hop);
            if !self.peer_host[c.ingress.idx()] {
                self.roots.adopt(sw, root, hop, c.ingress);
            }
        }
    }

    /// MERGE(root, old_root) arrived on egress `port_id`: learn `root` (resumed), move
    /// `old_root`'s IQ to soft-merging, and pass the MERGE on to `old_root`'s children,
    /// which become `root`'s.
    #[allow(clippy::too_many_arguments)]
    fn on_merge(
        &mut self,
        ports: &mut [Port],
        port_id: PortId,
        sw: usize,
        root: RootId,
        old: RootId,
        hop: u8,
        now: SimTime,
    ) -> bool {
        if self.own_root(root, sw) {
            return false;
        }
        self.learn(ports, port_id, sw, root, hop, IqState::Resumed, now);
        if let Some(i) = self.iqs[port_id.idx()].find(old) {
            self.iqs[port_id.idx()].known[i].state = IqState::Merging;
        }
        let root_hop = self.roots.get(sw, root).map_or(hop, |e| e.hop);
        if let Some(e) = self.roots.get_mut(sw, old) {
            let children = std::mem::take(&mut e.children);
            for c in children.iter().filter(|c| c.member) {
                let host = self.peer_host[c.ingress.idx()];
                if host && !c.paused {
                    continue;
                }
                self.send(c.ingress, RootSignal::Merge, root, old, root_hop.saturating_add(1));
                if !host {
                    self.roots.adopt(sw, root, root_hop, c.ingress);
                }
            }
        }
        let resumed = self.iqs[port_id.idx()].refresh(&mut ports[port_id.idx()], now);
        self.tidy(ports, port_id, now);
        resumed
    }

    /// An order mark named `id` (the IQ it holds) reached the head of its queue at `port_id`.
    fn marker(&mut self, port_id: PortId, port: &mut Port, id: u64, now: SimTime) -> bool {
        self.iqs[port_id.idx()].mark_passed(id as u32);
        self.iqs[port_id.idx()].refresh(port, now)
    }

    // ---------------------------------------------------------------- hosts, failures

    /// May the NIC on `nic` send a packet of `tuple` (no paused root on its path)?
    pub fn nic_may_send_tuple(
        &self,
        nic: PortId,
        tuple: FiveTuple,
        routing: &Routing,
        topo: &Topology,
    ) -> bool {
        self.hosts.may_send(nic, tuple, routing, topo, self.adaptive)
    }

    /// The link of `port_id` failed (its queues already drained): a root there resumes its
    /// upstreams (Appendix A); its IQs go; the upstream behind it is no child any more.
    fn link_down(&mut self, ports: &mut [Port], port_id: PortId, is_host: bool, now: SimTime) {
        if is_host {
            self.hosts.clear(port_id);
            return;
        }
        let sw = self.sw(port_id);
        let children = std::mem::take(&mut self.roots.self_children[port_id.idx()]);
        for c in children.iter().filter(|c| c.paused) {
            self.send(c.ingress, RootSignal::Resume, port_id.0, NO_ROOT, 1);
        }
        let known: Vec<RootId> = self.iqs[port_id.idx()].known.iter().map(|k| k.root).collect();
        for root in &known {
            if self.iqs[port_id.idx()].remove_root(&mut ports[port_id.idx()], *root, now) {
                self.log_usage(port_id, now);
            }
            if let Some(e) = self.roots.get_mut(sw, *root) {
                e.ports.retain(|p| *p != port_id);
            }
        }
        let first = self.first_port[sw] as usize;
        let end = (first..self.switch_of.len())
            .find(|p| self.switch_of[*p] as usize != sw)
            .unwrap_or(self.switch_of.len());
        for p in first..end {
            self.roots.self_children[p].retain(|c| c.ingress != port_id);
        }
        for root in self.roots.of_switch(sw) {
            if let Some(e) = self.roots.get_mut(sw, root) {
                e.children.retain(|c| c.ingress != port_id);
            }
            self.tidy_root(ports, sw, root, now);
        }
    }

    // ---------------------------------------------------------------- views

    /// Queue length a departing packet reports in INT (HPCC, §6.2.2): an isolated packet
    /// the whole port's backlog (OQs and IQs, as the authors' simulator does), any other
    /// packet its OQs only, so uncongested flows do not slow down for isolated traffic.
    fn int_bytes(&self, port: &Port, mark: u8) -> u64 {
        if mark & ISOLATED != 0 {
            return port.queues.backlog_bytes;
        }
        (0..self.classes.min(port.queues.len())).map(|q| port.queues.queue_bytes(q)).sum()
    }

    /// The congestion trees now: roots, ports with IQs, hosts told to stop.
    pub fn snapshot(&self, now: SimTime, ports: &[Port]) -> Vec<TreeRecord> {
        let mut out = Vec::new();
        for (p, children) in self.roots.self_children.iter().enumerate() {
            if children.is_empty() {
                continue;
            }
            let oq_bytes =
                (0..self.classes.min(ports[p].queues.len())).map(|q| ports[p].queues.queue_bytes(q)).sum();
            out.push(TreeRecord {
                time: now,
                root: PortId(p as u32),
                port: PortId(p as u32),
                role: TreeRole::Root,
                state: "root",
                hop: 0,
                bytes: oq_bytes,
                paused_children: children.iter().filter(|c| c.paused).count() as u32,
            });
        }
        for (p, iqs) in self.iqs.iter().enumerate() {
            let sw = self.switch_of[p];
            let mut known = iqs.known.clone();
            known.sort_by_key(|k| k.root);
            for k in known {
                let bytes = iqs
                    .slots
                    .iter()
                    .filter(|s| s.roots.contains(&k.root))
                    .map(|s| ports[p].queues.queue_bytes(s.queue as usize))
                    .sum();
                let paused_children = self
                    .roots
                    .get(sw as usize, k.root)
                    .map_or(0, |e| e.children.iter().filter(|c| c.paused).count() as u32);
                out.push(TreeRecord {
                    time: now,
                    root: PortId(k.root),
                    port: PortId(p as u32),
                    role: TreeRole::Isolation,
                    state: k.state.name(),
                    hop: k.hop,
                    bytes,
                    paused_children,
                });
            }
        }
        for (nic, roots) in self.hosts.paused_hosts() {
            for r in roots {
                out.push(TreeRecord {
                    time: now,
                    root: PortId(*r),
                    port: nic,
                    role: TreeRole::Host,
                    state: "paused",
                    hop: 0,
                    bytes: 0,
                    paused_children: 0,
                });
            }
        }
        out
    }

    /// Root entries, self-roots, known roots and host pauses still held (0 once every tree
    /// dissolved).
    pub fn held(&self) -> usize {
        self.roots.held()
            + self.iqs.iter().map(|i| i.known.len()).sum::<usize>()
            + self.hosts.paused_hosts().count()
    }

    /// Physical IQs in use now, over all ports.
    pub fn iqs_in_use(&self) -> usize {
        self.iqs.iter().map(|i| i.in_use()).sum()
    }
}

/// The timer of the congestion-tree snapshots (`[output.congestion_trees]`).
const SNAPSHOT_TIMER: u32 = 0;

impl Pyrrha {
    /// Set the timer of the next congestion-tree snapshot, if one is due.
    fn schedule_snapshot(&mut self, cx: &mut FcCx) {
        let Some(t) = &self.trees else { return };
        let next = [t.at.last().copied(), t.next_periodic].into_iter().flatten().min();
        if let Some(at) = next {
            cx.timers.set(SNAPSHOT_TIMER, at.max(cx.now));
        }
    }

    /// Record the congestion trees now; periodic snapshots go on while flows remain or
    /// packets are in the network.
    #[cold]
    #[inline(never)]
    fn take_snapshot(&mut self, cx: &mut FcCx) {
        let now = cx.now;
        let running = cx.flows_unfinished > 0 || cx.store.live() > 0;
        let records = self.snapshot(now, cx.ports);
        let Some(t) = &mut self.trees else { return };
        t.records.extend(records);
        while t.at.last().is_some_and(|a| *a <= now) {
            t.at.pop();
        }
        if let (Some(next), Some(interval)) = (t.next_periodic, t.interval) {
            if next <= now {
                t.next_periodic = running.then_some(next + interval);
            }
        }
        self.schedule_snapshot(cx);
    }

    /// `[output.congestion_trees]` records, in time order.
    pub fn tree_records(&self) -> &[TreeRecord] {
        self.trees.as_ref().map_or(&[], |t| &t.records)
    }
}

impl FlowControlPolicy for Pyrrha {
    const NAME: &'static str = "pyrrha";
    type Spec = PyrrhaSpec;
    type Frame = PyrrhaFrame;
    /// Isolation queues and root state per switch port, frames by value, counts joined in
    /// `join_partition` (`tests/parallel.rs`).
    const PARTITIONS: bool = true;

    fn validate(spec: &PyrrhaSpec) -> Result<(), ScenarioError> {
        spec.validate()
    }

    fn build(spec: &PyrrhaSpec, b: &mut FcBuild) -> Self {
        let cfg = PyrrhaConfig {
            k_pause: spec.k_pause,
            k_resume: spec.k_resume,
            iq_limit: spec.iq_limit,
            merge: spec.merge,
            structure: match spec.isolation_queues {
                IsolationQueues::Hierarchical => IqStructure::Hierarchical,
                IsolationQueues::SingleTier => IqStructure::SingleTier,
            },
        };
        let mut switch_of = vec![None; b.topo.ports.len()];
        for (s, n) in b.switches.iter().enumerate() {
            for port in b.topo.ports_of(*n) {
                switch_of[port as usize] = Some(s as u32);
            }
        }
        let ports: Vec<PyrrhaPort> = (0..b.topo.ports.len())
            .map(|i| PyrrhaPort { hop_bdp: b.hop_bdp(i), switch: switch_of[i], peer_host: b.peer_host(i) })
            .collect();
        let first_port = b.switches.iter().map(|n| b.topo.ports_of(*n).start).collect();
        let fields = PyrrhaFields::register(b.headers);
        let mut p = Pyrrha::new(cfg, &ports, first_port, b.classes, b.adaptive_routing, fields);
        p.trees = b.output.congestion_trees.as_ref().map(|t| {
            let mut at: Vec<SimTime> = t.at.iter().map(|d| SimTime(d.0 .0)).collect();
            at.sort_unstable_by(|a, b| b.cmp(a));
            at.dedup();
            TreeSnapshots {
                at,
                interval: t.interval.map(|i| i.0),
                next_periodic: t.interval.map(|_| SimTime::ZERO),
                records: Vec::new(),
            }
        });
        p
    }

    fn outbox(&mut self) -> &mut Outbox<PyrrhaFrame> {
        &mut self.outbox
    }

    #[inline(never)]
    fn classify(&mut self, cx: &mut FcCx, _sw: usize, egress: PortId, pkt: &Packet, slot: usize) -> usize {
        self.classify_packet(cx, egress, pkt, slot)
    }

    #[inline(never)]
    fn on_arrival(&mut self, cx: &mut FcCx, hop: &Hop, queue_bytes: u64) -> Arrival {
        Arrival::admitted(self.arrive(cx.headers, hop, queue_bytes + hop.pkt.wire_bytes as u64))
    }

    #[inline(never)]
    fn on_dequeue(&mut self, cx: &mut FcCx, hop: &Hop) -> bool {
        self.depart(cx, hop)
    }

    #[inline(never)]
    fn on_frame(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, frame: PyrrhaFrame) -> bool {
        self.frame(cx, port, is_host, frame)
    }

    #[inline(never)]
    fn nic_may_send(
        &self,
        nic: PortId,
        _port: &Port,
        flow: &FlowKey,
        routing: &Routing,
        topo: &Topology,
    ) -> bool {
        self.nic_may_send_tuple(nic, flow.tuple, routing, topo)
    }

    fn on_marker(&mut self, cx: &mut FcCx, port: PortId, id: u64) -> bool {
        self.marker(port, &mut cx.ports[port.idx()], id, cx.now)
    }

    fn on_link_down(&mut self, cx: &mut FcCx, port: PortId, is_host: bool, _host_flows: &[FlowId]) {
        self.link_down(cx.ports, port, is_host, cx.now);
    }

    fn on_start(&mut self, cx: &mut FcCx) {
        self.schedule_snapshot(cx);
    }

    fn on_timer(&mut self, cx: &mut FcCx, target: u32) {
        debug_assert_eq!(target, SNAPSHOT_TIMER);
        self.take_snapshot(cx);
    }

    #[inline(never)]
    fn int_queue_bytes(&self, port: &Port, slot: usize, headers: &Headers) -> u64 {
        self.int_bytes(port, self.fields.mark(headers, slot))
    }

    fn held(&self) -> Option<usize> {
        Some(Pyrrha::held(self))
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = self.stats;
        vec![
            ("pyrrha_roots_nominated", s.roots_nominated),
            ("pyrrha_merges", s.merges),
            ("pyrrha_iqs_assigned", s.iqs_assigned),
            ("pyrrha_iqs_hashed", s.iqs_hashed),
            ("pyrrha_iq_moves", s.iq_moves),
            ("pyrrha_soft_merge_moves", s.soft_merge_moves),
            ("pyrrha_order_marks", s.order_marks),
            ("pyrrha_own_root_pauses_ignored", s.own_root_pauses_ignored),
            ("pyrrha_max_iqs_per_port", s.max_iqs_per_port),
        ]
    }

    fn summary_line(&self, sent: &dyn Fn(&str) -> u64) -> Option<(&'static str, String)> {
        use crate::scenario::limits::count as thousands;
        let (pauses, merge_frames) = (sent("pyrrha_pause"), sent("pyrrha_merge"));
        let s = self.stats;
        // A merge (a false-positive root joining the root downstream) sends one MERGE
        // frame to each of its upstreams: frames and merges are different counts. Printed
        // when zero too: a mechanism that ran and never paused says so.
        let line = format!(
            "{} PAUSE frames, {} MERGE frames sent for {} root merges, {} roots nominated, \
             at most {} isolation queues on a port",
            thousands(pauses),
            thousands(merge_frames),
            thousands(s.merges),
            thousands(s.roots_nominated),
            thousands(s.max_iqs_per_port)
        );
        Some(("Pyrrha", line))
    }

    /// Counts summed (each happened in one partition), the per-port peak the largest.
    fn join_partition(&mut self, other: &Self) {
        let (s, o) = (&mut self.stats, &other.stats);
        s.roots_nominated += o.roots_nominated;
        s.merges += o.merges;
        s.iqs_assigned += o.iqs_assigned;
        s.iqs_hashed += o.iqs_hashed;
        s.iq_moves += o.iq_moves;
        s.soft_merge_moves += o.soft_merge_moves;
        s.order_marks += o.order_marks;
        s.own_root_pauses_ignored += o.own_root_pauses_ignored;
        s.max_iqs_per_port = s.max_iqs_per_port.max(o.max_iqs_per_port);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{EventQueue, PolicyTimerKind};
    use crate::fabric::packet::test_packet;
    use crate::fabric::store::PacketStore;
    use crate::fabric::timers::{PolicyTimers, Timers};
    use crate::ids::NodeId;
    use crate::scenario::EcmpHash;
    use crate::time::{Delta, Rate};
    use crate::topology::builders::leaf_spine;

    // Leaf-spine, one spine, three leaves of two hosts, 100 Gb/s and 1 µs everywhere: hosts
    // 0–5 (host h's NIC is port h), leaves 6–8 (switches 0–2), spine 9 (switch 3). One-hop
    // BDP 25,000 B: K_pause 50,000 B, K_resume 25,000 B.
    /// Leaf 6's port facing host 0, and its uplink.
    const LEAF0_FROM_H0: PortId = PortId(6);
    const LEAF0_UP: PortId = PortId(8);
    /// Leaf 8's port down to host 4, and the one facing host 5.
    const LEAF2_TO_H4: PortId = PortId(12);
    const LEAF2_FROM_H5: PortId = PortId(13);
    /// The spine's ports facing leaves 6, 7 and 8.
    const SPINE_FROM_LEAF0: PortId = PortId(15);
    const SPINE_FROM_LEAF1: PortId = PortId(16);
    const SPINE_TO_LEAF2: PortId = PortId(17);

    /// Pyrrha on the leaf-spine above, its hooks driven by hand.
    struct Net {
        topo: Topology,
        routing: Routing,
        ports: Vec<Port>,
        store: PacketStore,
        headers: Headers,
        events: EventQueue,
        timers: PolicyTimers,
        py: Pyrrha,
    }

    fn config() -> PyrrhaConfig {
        PyrrhaConfig {
            k_pause: 2.0,
            k_resume: 1.0,
            iq_limit: 100,
            merge: true,
            structure: IqStructure::Hierarchical,
        }
    }

    fn net(cfg: PyrrhaConfig) -> Net {
        let link = (Rate::gbps(100), Delta::from_us(1));
        let topo = leaf_spine(1, 3, 2, 1, link, link);
        let switches: Vec<NodeId> = (6..10).map(NodeId).collect();
        let switch_of = |p: usize| switches.iter().position(|n| topo.ports_of(*n).contains(&(p as u32)));
        let facts: Vec<PyrrhaPort> = (0..topo.ports.len())
            .map(|p| PyrrhaPort {
                hop_bdp: 25_000,
                switch: switch_of(p).map(|s| s as u32),
                peer_host: topo.is_host(topo.ports[topo.ports[p].peer.idx()].node),
            })
            .collect();
        assert_eq!(topo.ports[SPINE_TO_LEAF2.idx()].node, NodeId(9));
        assert_eq!(topo.ports[topo.ports[LEAF2_TO_H4.idx()].peer.idx()].node, NodeId(4));
        let first_port = switches.iter().map(|n| topo.ports_of(*n).start).collect();
        let mut layout = HeaderLayout::default();
        let fields = PyrrhaFields::register(&mut layout);
        let ports =
            topo.ports.iter().map(|s| Port::new(s.node, s.peer, s.rate, s.delay, 1, 1, Default::default()));
        Net {
            routing: Routing::new(&topo, EcmpHash::Mix, 1),
            ports: ports.collect(),
            store: PacketStore::new(),
            headers: Headers::new(&layout),
            events: EventQueue::new(),
            timers: PolicyTimers::new(topo.ports.len()),
            py: Pyrrha::new(cfg, &facts, first_port, 1, false, fields),
            topo,
        }
    }

    /// The hooks' context, borrowed from the net's fields.
    macro_rules! cx {
        ($n:expr) => {
            FcCx {
                now: SimTime::ZERO,
                ports: &mut $n.ports,
                store: &mut $n.store,
                headers: &mut $n.headers,
                routing: &$n.routing,
                topo: &$n.topo,
                timers: Timers::new(&mut $n.events, &mut $n.timers, PolicyTimerKind::FlowControl),
                flows_unfinished: 1,
            }
        };
    }

    /// A data packet from host `src` to host `dst`.
    fn packet(src: u32, dst: u32) -> Packet {
        Packet { src: NodeId(src), dst: NodeId(dst), sport: 10_000, dport: 100, ..test_packet(0) }
    }

    fn frame(signal: RootSignal, root: PortId, old_root: RootId, hop: u8) -> PyrrhaFrame {
        PyrrhaFrame { signal, root: root.0, old_root, hop }
    }

    impl Net {
        /// `pkt` arrives on `in_port` and is queued: returns its egress and queue.
        fn arrive(&mut self, in_port: PortId, pkt: Packet) -> (PortId, usize) {
            let node = self.topo.ports[in_port.idx()].node;
            let sw = node.0 as usize - 6;
            let egress = self.routing.select(node, routing_tuple(&pkt));
            let r = self.store.insert(pkt);
            self.headers.reset(r.index());
            let local_in = in_port.0 - self.topo.ports_of(node).start;
            let mut cx = cx!(self);
            let queue = self.py.classify(&mut cx, sw, egress, &pkt, r.index());
            let queue_bytes = cx.ports[egress.idx()].queues.queue_bytes(queue);
            let hop =
                Hop { sw, in_port, local_in, egress, queue, pkt: &pkt, slot: r.index(), buffer: 1 << 30 };
            self.py.on_arrival(&mut cx, &hop, queue_bytes);
            self.store.get_mut(r).ingress = local_in as u16;
            self.ports[egress.idx()].queues.enqueue(&mut self.store, queue, r);
            (egress, queue)
        }

        /// `port` sends the packet its scheduler picks (from its OQs): `None` if it cannot.
        fn send(&mut self, port: PortId) -> Option<Packet> {
            let queue = self.ports[port.idx()].queues.next_queue()?;
            let r = self.ports[port.idx()].queues.dequeue(&mut self.store, queue).expect("eligible");
            self.ports[port.idx()].queues.served(queue);
            let pkt = *self.store.get(r);
            let node = self.topo.ports[port.idx()].node;
            let sw = node.0 as usize - 6;
            let in_port = PortId(self.topo.ports_of(node).start + pkt.ingress as u32);
            let hop = Hop {
                sw,
                in_port,
                local_in: pkt.ingress as u32,
                egress: port,
                queue,
                pkt: &pkt,
                slot: r.index(),
                buffer: 1 << 30,
            };
            let mut cx = cx!(self);
            self.py.on_dequeue(&mut cx, &hop);
            self.store.remove(r);
            Some(pkt)
        }

        fn receive(&mut self, port: PortId, is_host: bool, f: PyrrhaFrame) -> bool {
            let mut cx = cx!(self);
            self.py.on_frame(&mut cx, port, is_host, f)
        }

        /// The frames the hooks asked to send since the last call.
        fn frames(&mut self) -> Vec<(PortId, PyrrhaFrame)> {
            self.py.outbox.drain(..).collect()
        }

        /// The spine's port to leaf 8 nominates itself a root: 48 packets for host 4 from
        /// leaf 6 (50,304 B > K_pause) and one from leaf 7 each pause their upstream.
        fn spine_root(&mut self) {
            for _ in 0..48 {
                self.arrive(SPINE_FROM_LEAF0, packet(0, 4));
            }
            self.arrive(SPINE_FROM_LEAF1, packet(2, 4));
            let pause = frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 1);
            assert_eq!(self.frames(), [(SPINE_FROM_LEAF0, pause), (SPINE_FROM_LEAF1, pause)]);
        }
    }

    /// §4.1 root identification: an output queue past K_pause makes its port a congestion
    /// root, which sends PAUSE(itself, hop 1) to each upstream it receives from, once; below
    /// K_resume it sends them RESUME. A host upstream then leaves its tree, a switch
    /// upstream stays a member until it unassigns its IQ.
    #[test]
    fn an_output_queue_past_k_pause_nominates_its_port_a_root() {
        let mut n = net(config());
        for k in 1..=47 {
            n.arrive(SPINE_FROM_LEAF0, packet(0, 4));
            assert!(n.frames().is_empty(), "{k} packets: {} B, not above K_pause", k * 1048);
        }
        n.arrive(SPINE_FROM_LEAF0, packet(0, 4));
        let pause = frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 1);
        assert_eq!(n.frames(), [(SPINE_FROM_LEAF0, pause)], "the 48th packet: 50,304 B");
        n.arrive(SPINE_FROM_LEAF0, packet(0, 4));
        assert!(n.frames().is_empty(), "that upstream is paused already");
        n.arrive(SPINE_FROM_LEAF1, packet(2, 4));
        assert_eq!(n.frames(), [(SPINE_FROM_LEAF1, pause)], "another upstream");
        assert_eq!(n.py.stats.roots_nominated, 1, "one root, two upstreams");
        // 50 packets queued: RESUME goes when 23 are left (24,104 B < K_resume).
        for left in (23..50).rev() {
            n.send(SPINE_TO_LEAF2).expect("the OQ sends");
            let frames = n.frames();
            if left > 23 {
                assert!(frames.is_empty(), "{left} left");
            } else {
                let resume = frame(RootSignal::Resume, SPINE_TO_LEAF2, NO_ROOT, 1);
                assert_eq!(frames, [(SPINE_FROM_LEAF0, resume), (SPINE_FROM_LEAF1, resume)]);
            }
        }
        let members = &n.py.roots.self_children[SPINE_TO_LEAF2.idx()];
        assert_eq!(
            members.iter().map(|c| (c.ingress, c.paused)).collect::<Vec<_>>(),
            [(SPINE_FROM_LEAF0, false), (SPINE_FROM_LEAF1, false)]
        );
        // UNASSIGN from leaf 6 takes it out of the tree.
        n.receive(SPINE_FROM_LEAF0, false, frame(RootSignal::Unassign, SPINE_TO_LEAF2, NO_ROOT, 0));
        assert_eq!(n.py.roots.self_children[SPINE_TO_LEAF2.idx()].len(), 1);
        // A root paused by a host: the host leaves its tree once resumed.
        for _ in 0..48 {
            n.arrive(LEAF2_FROM_H5, packet(5, 4));
        }
        let root = frame(RootSignal::Pause, LEAF2_TO_H4, NO_ROOT, 1);
        assert_eq!(n.frames(), [(LEAF2_FROM_H5, root)]);
        while n.send(LEAF2_TO_H4).is_some() {}
        let resume = frame(RootSignal::Resume, LEAF2_TO_H4, NO_ROOT, 1);
        assert_eq!(n.frames(), [(LEAF2_FROM_H5, resume)]);
        assert!(n.py.roots.self_children[LEAF2_TO_H4.idx()].is_empty());
        assert_eq!(n.py.stats.roots_nominated, 2);
    }

    /// §4.2–§4.4: PAUSE(root) at a port gives the root an IQ there, paused; exactly the
    /// packets whose onward path crosses the root wait in it, the others pass; an IQ holding
    /// more than K_pause of an upstream's bytes pauses that upstream (hop + 1), which stops
    /// only the flows crossing the root. RESUME lets the IQ drain into the OQ; below
    /// K_resume the upstream is resumed; the empty IQ is unassigned (UNASSIGN downstream).
    #[test]
    fn a_paused_root_isolates_exactly_the_flows_that_cross_it() {
        let mut n = net(config());
        assert!(!n.receive(LEAF0_UP, false, frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 1)));
        assert_eq!(n.py.iqs[LEAF0_UP.idx()].state_of(SPINE_TO_LEAF2.0), Some(IqState::Paused));
        assert_eq!(n.py.stats.iqs_assigned, 1);
        let (_, iq) = n.arrive(LEAF0_FROM_H0, packet(0, 4));
        let (_, oq) = n.arrive(LEAF0_FROM_H0, packet(0, 2));
        assert_eq!((iq, oq), (1, 0), "to host 4 (through the spine's port 17): the IQ; to host 2: the OQ");
        assert!(n.ports[LEAF0_UP.idx()].queues.is_paused(iq));
        assert_eq!(n.send(LEAF0_UP).map(|p| p.dst), Some(NodeId(2)));
        assert_eq!(n.send(LEAF0_UP), None, "the isolated packet waits");
        for _ in 1..47 {
            n.arrive(LEAF0_FROM_H0, packet(0, 4));
        }
        assert!(n.frames().is_empty(), "47 packets of host 0 in the IQ: 49,256 B");
        n.arrive(LEAF0_FROM_H0, packet(0, 4));
        let pause = frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 2);
        assert_eq!(n.frames(), [(LEAF0_FROM_H0, pause)], "host 0 is told, two hops from the root");
        // The NIC stops the flows crossing the root, not the others.
        assert!(!n.receive(PortId(0), true, pause));
        let may_send = |n: &Net, dst: u32| {
            n.py.nic_may_send_tuple(PortId(0), routing_tuple(&packet(0, dst)), &n.routing, &n.topo)
        };
        assert!(!may_send(&n, 4) && may_send(&n, 2));
        // RESUME: the IQ drains through the OQ, moving one packet on at once and one more
        // per departure.
        assert!(n.receive(LEAF0_UP, false, frame(RootSignal::Resume, SPINE_TO_LEAF2, NO_ROOT, 0)));
        let mut sent = 0;
        let mut frames = Vec::new();
        while let Some(p) = n.send(LEAF0_UP) {
            assert_eq!(p.dst, NodeId(4));
            sent += 1;
            frames.extend(n.frames().into_iter().map(|f| (sent, f)));
        }
        // Host 0's upstream is resumed after the 25th move (23 counted: 24,104 B < K_resume);
        // the 48th move empties the IQ, which is unassigned at once.
        assert_eq!(
            frames,
            [
                (24, (LEAF0_FROM_H0, frame(RootSignal::Resume, SPINE_TO_LEAF2, NO_ROOT, 0))),
                (47, (LEAF0_UP, frame(RootSignal::Unassign, SPINE_TO_LEAF2, NO_ROOT, 0))),
            ]
        );
        assert_eq!(sent, 48);
        assert_eq!(n.py.stats.iq_moves, 48);
        assert_eq!(n.py.iqs[LEAF0_UP.idx()].in_use(), 0);
        assert!(n.py.held() > 0, "host 0 has not heard the RESUME yet");
        n.receive(PortId(0), true, frame(RootSignal::Resume, SPINE_TO_LEAF2, NO_ROOT, 0));
        assert!(may_send(&n, 4));
        assert_eq!(n.py.held(), 0, "the tree dissolved");
    }

    /// §4.1 MERGE: a port that is a root and learns (by PAUSE) of a new root downstream was a
    /// false positive: it sends MERGE(new, old = itself) to the upstreams it paused, which
    /// join the new root's tree; with merging off it stays a root.
    #[test]
    fn a_root_that_learns_of_a_root_downstream_merges_into_it() {
        for merge in [true, false] {
            let mut n = net(PyrrhaConfig { merge, ..config() });
            n.spine_root();
            n.receive(SPINE_TO_LEAF2, false, frame(RootSignal::Pause, LEAF2_TO_H4, NO_ROOT, 1));
            let frames = n.frames();
            let children = &n.py.roots.self_children[SPINE_TO_LEAF2.idx()];
            if merge {
                let m = frame(RootSignal::Merge, LEAF2_TO_H4, SPINE_TO_LEAF2.0, 2);
                assert_eq!(frames, [(SPINE_FROM_LEAF0, m), (SPINE_FROM_LEAF1, m)]);
                assert_eq!(n.py.stats.merges, 1);
                assert!(children.is_empty(), "no longer a root");
                let tree = n.py.roots.get(3, LEAF2_TO_H4.0).expect("the real root's entry");
                let members: Vec<PortId> =
                    tree.children.iter().filter(|c| c.member).map(|c| c.ingress).collect();
                assert_eq!(
                    members,
                    [SPINE_FROM_LEAF0, SPINE_FROM_LEAF1],
                    "its upstreams joined the real tree"
                );
            } else {
                assert!(frames.is_empty());
                assert_eq!((n.py.stats.merges, children.len()), (0, 2), "still a root");
            }
            // Either way the real root is known there, paused, and new packets for it wait.
            assert_eq!(n.py.iqs[SPINE_TO_LEAF2.idx()].state_of(LEAF2_TO_H4.0), Some(IqState::Paused));
            let (_, q) = n.arrive(SPINE_FROM_LEAF0, packet(0, 4));
            assert!(q >= 1, "into the real root's IQ");
        }
    }

    /// §4.1, §4.3 soft-merging: MERGE(new, old) at a port with an IQ for the old root moves
    /// it to soft-merging: not held any more, it drains in order to its next level (here the
    /// OQ) while packets arriving behind it still queue behind it; once empty it is dropped
    /// without UNASSIGN. The host upstream, never paused, is not told.
    #[test]
    fn merging_releases_the_false_roots_iq_in_order() {
        let mut n = net(config());
        n.receive(LEAF0_UP, false, frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 1));
        for seq in 0..10 {
            n.arrive(LEAF0_FROM_H0, Packet { seq, ..packet(0, 4) });
        }
        assert_eq!(n.send(LEAF0_UP), None, "paused");
        n.receive(LEAF0_UP, false, frame(RootSignal::Merge, LEAF2_TO_H4, SPINE_TO_LEAF2.0, 2));
        assert_eq!(n.py.iqs[LEAF0_UP.idx()].state_of(SPINE_TO_LEAF2.0), Some(IqState::Merging));
        let (_, q) = n.arrive(LEAF0_FROM_H0, Packet { seq: 10, ..packet(0, 4) });
        assert_eq!(q, 1, "behind the merging IQ's packets");
        let mut seqs = Vec::new();
        while let Some(p) = n.send(LEAF0_UP) {
            seqs.push(p.seq);
        }
        assert_eq!(seqs, (0..11).collect::<Vec<_>>(), "in order");
        assert_eq!(n.py.stats.soft_merge_moves, 11);
        assert_eq!(n.py.iqs[LEAF0_UP.idx()].state_of(SPINE_TO_LEAF2.0), None, "dropped once empty");
        let frames = n.frames();
        assert!(
            frames.iter().all(|(to, f)| *to == LEAF0_UP && f.root != SPINE_TO_LEAF2.0),
            "nothing to the host, no UNASSIGN of the merged root: {frames:?}"
        );
    }

    /// §4.5 deadlock prevention: a PAUSE naming a port of the receiving switch itself is
    /// ignored (and counted).
    #[test]
    fn a_pause_naming_a_port_of_the_switch_itself_is_ignored() {
        let mut n = net(config());
        n.receive(SPINE_FROM_LEAF0, false, frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 1));
        assert_eq!(n.py.stats.own_root_pauses_ignored, 1);
        assert!(n.py.iqs[SPINE_FROM_LEAF0.idx()].known.is_empty());
        assert_eq!(n.py.held(), 0);
    }

    /// §4.5: with the IQ limit reached, a new root is hashed onto an IQ in use (counted),
    /// which then holds while either root is paused.
    #[test]
    fn roots_beyond_the_iq_limit_are_hashed_onto_an_iq_in_use() {
        let mut n = net(PyrrhaConfig { iq_limit: 1, ..config() });
        n.receive(LEAF0_UP, false, frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 1));
        n.receive(LEAF0_UP, false, frame(RootSignal::Pause, SPINE_FROM_LEAF1, NO_ROOT, 1));
        let s = n.py.stats;
        assert_eq!((s.iqs_assigned, s.iqs_hashed, s.max_iqs_per_port), (1, 1, 1));
        let iqs = &n.py.iqs[LEAF0_UP.idx()];
        assert_eq!(iqs.known[0].queue, iqs.known[1].queue, "one shared queue");
        n.receive(LEAF0_UP, false, frame(RootSignal::Resume, SPINE_TO_LEAF2, NO_ROOT, 0));
        assert!(n.ports[LEAF0_UP.idx()].queues.is_paused(1), "held while the other root is paused");
        n.receive(LEAF0_UP, false, frame(RootSignal::Resume, SPINE_FROM_LEAF1, NO_ROOT, 0));
        assert!(!n.ports[LEAF0_UP.idx()].queues.is_paused(1));
    }

    /// §4.4: a MERGE reaching a host lifts its pause of both the old and the new root.
    #[test]
    fn a_merge_at_a_host_lifts_both_roots() {
        let mut n = net(config());
        n.receive(PortId(0), true, frame(RootSignal::Pause, SPINE_TO_LEAF2, NO_ROOT, 2));
        n.receive(PortId(0), true, frame(RootSignal::Pause, LEAF2_TO_H4, NO_ROOT, 3));
        assert_eq!(n.py.held(), 1, "one NIC with paused roots");
        assert!(n.receive(PortId(0), true, frame(RootSignal::Merge, LEAF2_TO_H4, SPINE_TO_LEAF2.0, 3)));
        assert!(n.py.nic_may_send_tuple(PortId(0), routing_tuple(&packet(0, 4)), &n.routing, &n.topo));
        assert_eq!(n.py.held(), 0);
    }
}
