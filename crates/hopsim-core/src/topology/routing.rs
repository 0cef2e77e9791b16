//! Shortest-path routing with ECMP.
//!
//! For every switch and destination host the table holds the egress ports that lie on a
//! shortest path (hosts are never transit nodes). ECMP picks one of them by hashing the
//! flow's 5-tuple with a per-switch seed; `path_of` replays those choices so any component
//! can know a flow's whole deterministic path (Pyrrha's hash-aware matching needs this).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::Topology;
use crate::engine::stream_seed;
use crate::ids::{NodeId, PortId};
use crate::scenario::EcmpHash;

/// Equal-cost next hops per (switch, destination host).
///
/// Hosts are single-homed, so every shortest path to a host ends with its edge switch
/// and the link down to it: a switch's next hops towards a host are its next hops
/// towards that host's edge switch, except at the edge switch itself (the host's port).
/// The table is therefore indexed by (switch, destination edge switch), not by host —
/// 8× smaller on a k=16 fat-tree (128 edge switches for 1,024 hosts), so it stays in
/// cache (its host-indexed predecessor was a top miss source in the k=16 profile). Each
/// entry names one of its switch's distinct next-hop sets: a byte when no switch has more
/// than 256 of them (every fat-tree and leaf-spine up to 256 leaves), so the k=16 table is
/// 41 KB rather than the 164 KB of global 32-bit set ids (whose loads were the top stall of
/// ECMP selection in the k=16 profile).
///
/// Rows are stored once per distinct content: in a fat-tree every edge switch's row is the
/// same (all destinations but its own hosts go up), the aggregation switches of a pod share
/// one, and the core switches one, so a k=32 fat-tree stores 34 rows instead of 1,280
/// (17 KB instead of 655 KB, which missed the 1 MiB L2 beside the rest of the run's state).
/// A switch's entry for its own edge index (its own hosts) is never read (selection takes
/// the host's port first) and is stored as set 0, so that it does not keep rows apart.
///
/// Selection is a chain of dependent loads (destination → its edge switch → entry → set →
/// port), so the table keeps it short: the attachment is indexed by the destination's node
/// id (no host-index lookup first), and when every switch has at most 256 ports and every
/// set at most 31, each set is also stored as one 32-byte record of port numbers local to
/// its switch, so the set and its ports come in one load instead of two; switches whose
/// lists of such records are equal share one copy (a fat-tree needs a few dozen records in
/// all, which stay in L1).
#[derive(Clone, Debug)]
pub struct EcmpTable {
    edges: usize,
    /// Per node: its switch row, the global id of the row's first set, its first port and
    /// its hash seed (hosts: unused).
    rows: Vec<SwitchRow>,
    /// Per node (meaningful for hosts only): its edge switch, that switch's edge index and
    /// its port to the host.
    attach: Vec<HostAttach>,
    /// Set id local to the switch, indexed by `row * edges + edge index` (rows shared by
    /// the switches whose rows are equal).
    entries: LocalSetIds,
    /// `(start, len)` in `pool` of each distinct set, grouped by switch.
    sets: Vec<(u32, u32)>,
    pool: Vec<PortId>,
    /// The same sets as one-line records, when every set fits one (see above), stored once
    /// per distinct list of a switch's sets. Selection then starts from `SwitchRow::first_set`
    /// in this list; `pooled_first` keeps where each switch's sets start in `sets`.
    compact: Option<Vec<CompactSet>>,
    pooled_first: Vec<u32>,
}

/// A switch's row of the table, where its sets start (in `EcmpTable::compact` if there are
/// compact sets, else in `EcmpTable::sets`), its first port
/// (compact sets hold ports relative to it) and its ECMP hash seed (set by `Routing`), in
/// one 16-byte record so that selection loads it once.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
struct SwitchRow {
    row: u32,
    first_set: u32,
    first_port: u32,
    seed: u32,
}

/// Up to 31 egress ports of one switch, as offsets from its first port, in 32 bytes (a k=32
/// fat-tree's aggregation switches have 16 up-links).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C, align(32))]
struct CompactSet {
    len: u8,
    local: [u8; COMPACT_PORTS],
}

const COMPACT_PORTS: usize = 31;

/// Entries of the table: bytes when every switch has at most 256 distinct sets.
#[derive(Clone, Debug)]
enum LocalSetIds {
    Narrow(Vec<u8>),
    Wide(Vec<u32>),
}

impl LocalSetIds {
    #[inline]
    fn get(&self, i: usize) -> u32 {
        match self {
            LocalSetIds::Narrow(v) => v[i] as u32,
            LocalSetIds::Wide(v) => v[i],
        }
    }
}

/// The order of each switch's equal-cost next hops (ECMP picks `hash mod n` in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextHopOrder {
    /// The switch's port order (its links in topology order).
    Ports,
    /// As the ns-3 RDMA simulator lists them (`third.cc`, `CalculateRoute`): by the order in
    /// which a breadth-first search from the destination discovers the next hops, one
    /// interface per neighbour. ns-3 visits each node's neighbours in the order of a map
    /// keyed by node *pointer*; in the builds measured (GCC, glibc, x86-64) later-created
    /// nodes sit at lower addresses, so the visit is in descending node id. Checked against
    /// the first packet's switch hops of all 405 flows of `ws30_1ms.txt` in an ns-3 packet
    /// trace (`docs/ns3.md`); ascending order matched 26 of them.
    Ns3,
}

/// ns-3's breadth-first discovery index of every node from `from` (see
/// [`NextHopOrder::Ns3`]; hosts are reached but not expanded; `u32::MAX`: unreached).
fn ns3_discovery_rank(topo: &Topology, from: NodeId, up: &[bool]) -> Vec<u32> {
    let mut rank = vec![u32::MAX; topo.node_count()];
    let mut queue = vec![from];
    rank[from.idx()] = 0;
    let mut next_rank = 1;
    let mut i = 0;
    while i < queue.len() {
        let now = queue[i];
        i += 1;
        let mut neighbours: Vec<NodeId> = topo
            .ports_of(now)
            .filter(|&p| up[p as usize])
            .map(|p| topo.ports[topo.ports[p as usize].peer.idx()].node)
            .collect();
        neighbours.sort_by(|a, b| b.cmp(a));
        neighbours.dedup();
        for next in neighbours {
            if rank[next.idx()] == u32::MAX {
                rank[next.idx()] = next_rank;
                next_rank += 1;
                if !topo.is_host(next) {
                    queue.push(next);
                }
            }
        }
    }
    rank
}

/// Where a host hangs off the fabric.
#[derive(Clone, Copy, Debug)]
struct HostAttach {
    edge: NodeId,
    edge_index: u32,
    port: PortId,
}

impl EcmpTable {
    pub fn build(topo: &Topology) -> EcmpTable {
        EcmpTable::build_over(topo, &vec![true; topo.ports.len()], NextHopOrder::Ports)
    }

    /// The table over the links whose ports are `up` (both ends of a failed link are down),
    /// each set in `order`. A switch with no path to a host gets an empty set; a host whose
    /// link is down gets no attachment port (`PortId::NONE`).
    pub fn build_over(topo: &Topology, up: &[bool], order: NextHopOrder) -> EcmpTable {
        let n = topo.node_count();
        let mut switch_index = vec![u32::MAX; n];
        let mut switches = 0u32;
        for (node, slot) in switch_index.iter_mut().enumerate() {
            if !topo.is_host(NodeId(node as u32)) {
                *slot = switches;
                switches += 1;
            }
        }
        // Edge switches in order of first appearance among the hosts.
        let mut edge_index = vec![u32::MAX; n];
        let mut edge_nodes = Vec::new();
        let unattached = HostAttach { edge: NodeId(u32::MAX), edge_index: u32::MAX, port: PortId(u32::MAX) };
        let mut attach = vec![unattached; n];
        for &h in &topo.hosts {
            let nic = topo.host_port(h);
            let down = topo.ports[nic.idx()].peer;
            let edge = topo.ports[down.idx()].node;
            if edge_index[edge.idx()] == u32::MAX {
                edge_index[edge.idx()] = edge_nodes.len() as u32;
                edge_nodes.push(edge);
            }
            let port = if up[down.idx()] { down } else { PortId::NONE };
            attach[h.idx()] = HostAttach { edge, edge_index: edge_index[edge.idx()], port };
        }
        let edges = edge_nodes.len();
        // Next-hop sets of each switch towards each edge switch, numbered per switch in
        // order of first use (by edge switch) as they are found: only the distinct sets
        // are kept (a switch has few; storing every (switch, edge) list took 400 MB at
        // k = 48). A switch's own edge is never numbered: selection takes the host's port.
        let own_edge = |node: usize| edge_index[node];
        let mut distinct: Vec<SetMap<Vec<PortId>>> = vec![SetMap::default(); switches as usize];
        let mut ids = vec![0u32; switches as usize * edges];
        let switch_nodes: Vec<usize> = (0..n).filter(|&node| switch_index[node] != u32::MAX).collect();
        let mut candidates: Vec<PortId> = Vec::new();
        // Per switch: the set it got last and its id (none yet).
        let mut last_set: Vec<(Vec<PortId>, Option<u32>)> = vec![(Vec::new(), None); switches as usize];
        // Per port: the switch at its far end if the port is up (else `NO_PEER`), read
        // once per (switch, edge) pair and port: the scan below is most of the build.
        const NO_PEER: u32 = u32::MAX;
        let peer_switch: Vec<u32> = (0..topo.ports.len())
            .map(|p| {
                let peer = topo.ports[topo.ports[p].peer.idx()].node;
                if up[p] && !topo.is_host(peer) {
                    peer.0
                } else {
                    NO_PEER
                }
            })
            .collect();
        let mut dist = vec![u32::MAX; n];
        let mut frontier: Vec<u32> = Vec::new();
        for (ei, &edge) in edge_nodes.iter().enumerate() {
            // Hop distances of the switches from `edge` over up links between switches
            // (breadth-first; hosts never carry transit traffic).
            dist.fill(u32::MAX);
            dist[edge.idx()] = 0;
            frontier.clear();
            frontier.push(edge.0);
            let mut next = 0;
            while let Some(&u) = frontier.get(next) {
                next += 1;
                for p in topo.ports_of(NodeId(u)) {
                    let peer = peer_switch[p as usize];
                    if peer != NO_PEER && dist[peer as usize] == u32::MAX {
                        dist[peer as usize] = dist[u as usize] + 1;
                        frontier.push(peer);
                    }
                }
            }
            let rank = match order {
                NextHopOrder::Ports => Vec::new(),
                NextHopOrder::Ns3 => ns3_discovery_rank(topo, edge, up),
            };
            for &node in &switch_nodes {
                if own_edge(node) == ei as u32 {
                    continue;
                }
                let node_id = NodeId(node as u32);
                candidates.clear();
                if node_id != edge && dist[node] != u32::MAX {
                    for p in topo.ports_of(node_id) {
                        let peer = peer_switch[p as usize];
                        if peer != NO_PEER && dist[peer as usize].wrapping_add(1) == dist[node] {
                            candidates.push(PortId(p));
                        }
                    }
                    if order == NextHopOrder::Ns3 {
                        let peer_of = |p: &PortId| topo.ports[topo.ports[p.idx()].peer.idx()].node;
                        // One interface per neighbour (the last listed link), as ns-3 keeps them.
                        let mut last_per_peer: Vec<PortId> = Vec::new();
                        for &p in candidates.iter() {
                            match last_per_peer.iter_mut().find(|q| peer_of(q) == peer_of(&p)) {
                                Some(q) => *q = p,
                                None => last_per_peer.push(p),
                            }
                        }
                        last_per_peer.sort_by_key(|p| rank[peer_of(p).idx()]);
                        candidates.clone_from(&last_per_peer);
                    }
                }
                let index = switch_index[node] as usize;
                // Most edge switches in a row get the set the one before got (all of a
                // switch's up-links, towards every other pod): compared first, hashed only
                // when it differs.
                let (last, last_id) = &mut last_set[index];
                let id = match *last_id {
                    Some(id) if *last == candidates => id,
                    _ => {
                        let sets_here = &mut distinct[index];
                        let next = sets_here.len() as u32;
                        let id = match sets_here.get(candidates.as_slice()) {
                            Some(&id) => id,
                            None => {
                                sets_here.insert(candidates.clone(), next);
                                next
                            }
                        };
                        last.clone_from(&candidates);
                        *last_id = Some(id);
                        id
                    }
                };
                ids[index * edges + ei] = id;
            }
        }
        // Each switch's distinct sets into the shared pool, in switch order and, within a
        // switch, in order of first use; switches whose rows of local set ids are equal
        // share one stored row.
        let mut rows = vec![SwitchRow { row: u32::MAX, first_set: 0, first_port: 0, seed: 0 }; n];
        let mut local: Vec<u32> = Vec::new();
        let mut row_ids: SetMap<Vec<u32>> = SetMap::default();
        let mut sets = Vec::new();
        let mut pool = Vec::new();
        let mut most_sets = 0;
        for &node in &switch_nodes {
            let index = switch_index[node] as usize;
            let first_port = topo.ports_of(NodeId(node as u32)).start;
            let first_set = sets.len() as u32;
            let mut by_id: Vec<(u32, Vec<PortId>)> =
                std::mem::take(&mut distinct[index]).into_iter().map(|(set, id)| (id, set)).collect();
            by_id.sort_unstable_by_key(|(id, _)| *id);
            for (_, set) in &by_id {
                sets.push((pool.len() as u32, set.len() as u32));
                pool.extend_from_slice(set);
            }
            most_sets = most_sets.max(by_id.len());
            let row_of = ids[index * edges..(index + 1) * edges].to_vec();
            let next_row = row_ids.len() as u32;
            let row = *row_ids.entry(row_of).or_insert_with_key(|ids| {
                local.extend_from_slice(ids);
                next_row
            });
            rows[node] = SwitchRow { row, first_set, first_port, seed: 0 };
        }
        let entries = if most_sets <= 256 {
            LocalSetIds::Narrow(local.iter().map(|&id| id as u8).collect())
        } else {
            LocalSetIds::Wide(local)
        };
        let pooled_first: Vec<u32> = rows.iter().map(|r| r.first_set).collect();
        let compact = Self::compact_sets(topo, &rows, &sets, &pool).map(|(compact, first)| {
            for (row, first) in rows.iter_mut().zip(first) {
                row.first_set = first;
            }
            compact
        });
        EcmpTable { edges, rows, attach, entries, sets, pool, compact, pooled_first }
    }

    /// Every set as a `CompactSet`, each switch's list stored once per distinct content
    /// (a fat-tree's edge switches share one, as do its aggregation and its core
    /// switches), with where each node's list starts; `None` if some switch has more than
    /// 256 ports or some set more than 31.
    fn compact_sets(
        topo: &Topology,
        rows: &[SwitchRow],
        sets: &[(u32, u32)],
        pool: &[PortId],
    ) -> Option<(Vec<CompactSet>, Vec<u32>)> {
        // Switches in node order, as `build` numbered their sets: a switch's sets end where
        // the next switch's begin.
        let switches: Vec<usize> = (0..rows.len()).filter(|&n| rows[n].row != u32::MAX).collect();
        let mut out = Vec::new();
        let mut first = vec![0u32; rows.len()];
        let mut lists: SetMap<Vec<CompactSet>> = SetMap::default();
        for (k, &node) in switches.iter().enumerate() {
            if topo.ports_of(NodeId(node as u32)).len() > 256 {
                return None;
            }
            let r = rows[node];
            let end = switches.get(k + 1).map_or(sets.len(), |&next| rows[next].first_set as usize);
            let mut list = Vec::with_capacity(end - r.first_set as usize);
            for &(start, len) in &sets[r.first_set as usize..end] {
                if len as usize > COMPACT_PORTS {
                    return None;
                }
                let mut set = CompactSet { len: len as u8, local: [0; COMPACT_PORTS] };
                for (slot, p) in set.local.iter_mut().zip(&pool[start as usize..(start + len) as usize]) {
                    *slot = (p.0 - r.first_port) as u8;
                }
                list.push(set);
            }
            let at = out.len() as u32;
            first[node] = *lists.entry(list).or_insert_with_key(|list| {
                out.extend_from_slice(list);
                at
            });
        }
        Some((out, first))
    }

    /// Bytes allocated by the table.
    pub fn allocated_bytes(&self) -> u64 {
        use std::mem::size_of;
        let entries = match &self.entries {
            LocalSetIds::Narrow(v) => v.capacity(),
            LocalSetIds::Wide(v) => v.capacity() * 4,
        };
        (self.rows.capacity() * size_of::<SwitchRow>()
            + self.attach.capacity() * size_of::<HostAttach>()
            + entries
            + self.sets.capacity() * 8
            + self.pool.capacity() * size_of::<PortId>()
            + self.compact.as_ref().map_or(0, |c| c.capacity() * size_of::<CompactSet>())
            + self.pooled_first.capacity() * 4) as u64
    }

    /// Egress ports of switch `node` on shortest paths to host `dst` (empty when link
    /// failures cut it off).
    pub fn next_hops(&self, node: NodeId, dst: NodeId) -> &[PortId] {
        let at = &self.attach[dst.idx()];
        if at.edge == node {
            return if at.port == PortId::NONE { &[] } else { std::slice::from_ref(&at.port) };
        }
        let r = self.rows[node.idx()];
        let id = self.pooled_first[node.idx()]
            + self.entries.get(r.row as usize * self.edges + at.edge_index as usize);
        let (start, len) = self.sets[id as usize];
        &self.pool[start as usize..(start + len) as usize]
    }

    /// Rows of set ids stored (switches with equal rows share one).
    #[cfg(test)]
    fn entries_rows(&self) -> usize {
        match &self.entries {
            LocalSetIds::Narrow(v) => v.len() / self.edges,
            LocalSetIds::Wide(v) => v.len() / self.edges,
        }
    }

    /// Switch `node`'s row record and the global id of its set towards the edge switch of
    /// `at` (the row also gives selection its first port and hash seed).
    #[inline]
    fn set_of(&self, node: NodeId, at: &HostAttach) -> (SwitchRow, usize) {
        let r = self.rows[node.idx()];
        let id = r.first_set + self.entries.get(r.row as usize * self.edges + at.edge_index as usize);
        (r, id as usize)
    }
}

/// The fields of a packet that ECMP hashes (the UDP/IP 5-tuple; protocol is always UDP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FiveTuple {
    pub src: NodeId,
    pub dst: NodeId,
    pub sport: u16,
    pub dport: u16,
}

/// The 5-tuple of a packet as the switches hash it.
#[inline]
pub fn routing_tuple(p: &crate::fabric::packet::Packet) -> FiveTuple {
    FiveTuple { src: p.src, dst: p.dst, sport: p.sport, dport: p.dport }
}

/// Ids of distinct next-hop sets (and rows of them) while a table is built, hashed by a
/// multiplicative hasher over whole words: the standard library's SipHash was a third of
/// a k = 32 fat-tree's build (655 k sets hashed), and a fixed hasher keeps builds
/// reproducible in memory layout.
type SetMap<K> = HashMap<K, u32, BuildHasherDefault<SetHasher>>;

#[derive(Default)]
struct SetHasher(u64);

impl SetHasher {
    #[inline]
    fn add(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
}

impl Hasher for SetHasher {
    fn finish(&self) -> u64 {
        mix64(self.0)
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.add(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64);
    }
}

/// Routing state: the ECMP table (which also holds the per-switch hash seeds) and the hash.
#[derive(Clone, Debug)]
pub struct Routing {
    pub table: EcmpTable,
    hash: EcmpHash,
}

impl Routing {
    pub fn new(topo: &Topology, hash: EcmpHash, seed: u64) -> Routing {
        let up = vec![true; topo.ports.len()];
        let mut table = EcmpTable::build_over(topo, &up, Self::order_of(hash));
        for (n, row) in table.rows.iter_mut().enumerate() {
            row.seed = match hash {
                // ns-3 seeds each switch's hash with its node id (`SwitchNode` constructor).
                EcmpHash::Ns3 => n as u32,
                EcmpHash::Mix | EcmpHash::Crc32 => stream_seed(seed, &format!("ecmp/switch/{n}")) as u32,
            };
        }
        Routing { table, hash }
    }

    fn order_of(hash: EcmpHash) -> NextHopOrder {
        match hash {
            EcmpHash::Ns3 => NextHopOrder::Ns3,
            EcmpHash::Mix | EcmpHash::Crc32 => NextHopOrder::Ports,
        }
    }

    /// Recompute the shortest paths over the links whose ports are `up` (after a link
    /// failed or came back); each switch keeps its hash seed.
    pub fn reroute(&mut self, topo: &Topology, up: &[bool]) {
        let mut table = EcmpTable::build_over(topo, up, Self::order_of(self.hash));
        for (row, old) in table.rows.iter_mut().zip(&self.table.rows) {
            row.seed = old.seed;
        }
        self.table = table;
    }

    /// The egress port switch `node` uses for a packet of `tuple` (heading to host `tuple.dst`).
    #[inline]
    pub fn select(&self, node: NodeId, tuple: FiveTuple) -> PortId {
        let t = &self.table;
        let at = &t.attach[tuple.dst.idx()];
        if at.edge == node {
            return at.port;
        }
        let (row, id) = t.set_of(node, at);
        if let Some(compact) = &t.compact {
            let set = &compact[id];
            let i = match set.len {
                1 => 0,
                0 => return PortId::NONE, // cut off by failed links
                n => self.pick(row.seed, tuple, n as u64),
            };
            return PortId(row.first_port + set.local[i] as u32);
        }
        let (start, len) = t.sets[id];
        let i = match len {
            1 => 0,
            0 => return PortId::NONE,
            n => self.pick(row.seed, tuple, n as u64),
        };
        t.pool[start as usize + i]
    }

    /// ECMP's choice among `n` > 1 equal-cost ports: the 5-tuple's hash (with the switch's
    /// `seed`) modulo `n`.
    #[inline]
    fn pick(&self, seed: u32, tuple: FiveTuple, n: u64) -> usize {
        let h = self.hash_of(seed, tuple);
        // h mod n; a mask when n is a power of two (every fat-tree), sparing a division.
        (if n.is_power_of_two() { h & (n - 1) } else { h % n }) as usize
    }

    /// The default hash inline behind one compare; the others out of line, so that adding
    /// a hash costs the default nothing.
    #[inline(always)]
    fn hash_of(&self, seed: u32, t: FiveTuple) -> u64 {
        if self.hash == EcmpHash::Mix {
            let a = ((t.src.0 as u64) << 32) | t.dst.0 as u64;
            let b = ((t.sport as u64) << 16) | t.dport as u64 | (17u64 << 32);
            mix64(mix64(a ^ seed as u64) ^ b)
        } else {
            self.hash_other(seed, t)
        }
    }

    #[inline(never)]
    fn hash_other(&self, seed: u32, t: FiveTuple) -> u64 {
        match self.hash {
            EcmpHash::Crc32 => {
                let mut bytes = [0u8; 17];
                bytes[0..4].copy_from_slice(&t.src.0.to_be_bytes());
                bytes[4..8].copy_from_slice(&t.dst.0.to_be_bytes());
                bytes[8..10].copy_from_slice(&t.sport.to_be_bytes());
                bytes[10..12].copy_from_slice(&t.dport.to_be_bytes());
                bytes[12] = 17;
                bytes[13..17].copy_from_slice(&seed.to_be_bytes());
                // CRC is affine in its input, so appending a seed alone would make every
                // switch pick the same way (hash polarization); like switch ASICs, each
                // switch also uses its own selection of the output bits.
                crc32(&bytes).rotate_right(seed & 31) as u64
            }
            EcmpHash::Ns3 => ns3_ecmp_hash(seed, t) as u64,
            EcmpHash::Mix => unreachable!("the inline path takes Mix"),
        }
    }

    /// The egress ports a packet of `tuple` crosses from its source host to its
    /// destination (first the source's NIC port, last the destination ToR's port).
    pub fn path_of(&self, topo: &Topology, tuple: FiveTuple) -> Vec<PortId> {
        let mut path = vec![topo.host_port(tuple.src)];
        let mut node = topo.ports[topo.ports[path[0].idx()].peer.idx()].node;
        while node != tuple.dst {
            let p = self.select(node, tuple);
            if p == PortId::NONE {
                break; // cut off by a failed link
            }
            path.push(p);
            node = topo.ports[topo.ports[p.idx()].peer.idx()].node;
            assert!(path.len() <= topo.node_count(), "routing loop towards node {}", tuple.dst.0);
        }
        path
    }
}

/// The IPv4 address the ns-3 RDMA simulator gives node `id` (`third.cc`,
/// `node_id_to_ip`): 11.0.0.1 plus the id's high byte in the third octet and its low byte in
/// the second-to-last.
pub fn ns3_node_ip(id: NodeId) -> u32 {
    0x0b00_0001 + (id.0 / 256) * 0x0001_0000 + (id.0 % 256) * 0x0000_0100
}

/// The ns-3 RDMA simulator's ECMP hash (`SwitchNode::EcmpHash`, MurmurHash3's 32-bit form)
/// of the 12 bytes (source IP, destination IP, source port | destination port << 16), read
/// as three little-endian words, with the switch's `seed`.
pub fn ns3_ecmp_hash(seed: u32, t: FiveTuple) -> u32 {
    let words = [ns3_node_ip(t.src), ns3_node_ip(t.dst), t.sport as u32 | (t.dport as u32) << 16];
    let mut h = seed;
    for word in words {
        let k = word.wrapping_mul(0xcc9e_2d51).rotate_left(15).wrapping_mul(0x1b87_3593);
        h ^= k;
        h = h.rotate_left(13);
        h = h.wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    h ^= 12;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// SplitMix64 finaliser: a fast, well-mixing 64-bit permutation.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const fn crc32_table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

static CRC32_TABLE: [u32; 256] = crc32_table();

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320).
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for b in bytes {
        c = CRC32_TABLE[((c ^ *b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Delta, Rate};
    use crate::topology::builders::fat_tree;

    /// Every next hop of `table` at switch `node` towards host `dst` lies on a shortest path.
    fn assert_shortest(t: &Topology, table: &EcmpTable) {
        for &dst in &t.hosts {
            let dist = t.hop_distances(dst);
            for node in (0..t.node_count() as u32).map(NodeId).filter(|n| !t.is_host(*n)) {
                let hops = table.next_hops(node, dst);
                assert!(!hops.is_empty());
                for p in hops {
                    let peer = t.ports[t.ports[p.idx()].peer.idx()].node;
                    assert_eq!(dist[peer.idx()] + 1, dist[node.idx()], "node {} to host {}", node.0, dst.0);
                }
            }
        }
    }

    #[test]
    fn table_ids_are_bytes_up_to_256_sets_per_switch_and_words_beyond() {
        use crate::topology::builders::leaf_spine;
        let (rate, delay) = (Rate::gbps(100), Delta::from_us(1));
        let small = fat_tree(8, rate, rate, delay);
        let table = EcmpTable::build(&small);
        assert!(matches!(table.entries, LocalSetIds::Narrow(_)));
        assert!(table.compact.is_some());
        assert_shortest(&small, &table);
        // A spine of 300 leaves has 300 one-port sets: ids no longer fit a byte, and its
        // 300 ports no longer fit a compact set's byte offsets.
        let wide = leaf_spine(2, 300, 1, 1, (rate, delay), (rate, delay));
        let table = EcmpTable::build(&wide);
        assert!(matches!(table.entries, LocalSetIds::Wide(_)));
        assert!(table.compact.is_none());
        assert_shortest(&wide, &table);
    }

    /// Selection through the compact sets picks exactly the port the pooled sets give.
    #[test]
    fn compact_sets_select_as_pooled_sets_do() {
        use crate::topology::builders::leaf_spine;
        let (rate, delay) = (Rate::gbps(100), Delta::from_us(1));
        for t in [fat_tree(8, rate, rate, delay), leaf_spine(3, 6, 4, 1, (rate, delay), (rate, delay))] {
            for hash in [EcmpHash::Mix, EcmpHash::Crc32] {
                let compact = Routing::new(&t, hash, 7);
                assert!(compact.table.compact.is_some());
                let mut pooled = compact.clone();
                pooled.table.compact = None;
                for (row, &first) in pooled.table.rows.iter_mut().zip(&pooled.table.pooled_first) {
                    row.first_set = first;
                }
                let mut spread = std::collections::BTreeSet::new();
                for &dst in &t.hosts {
                    for node in (0..t.node_count() as u32).map(NodeId).filter(|n| !t.is_host(*n)) {
                        for sport in 0..16 {
                            let tuple = FiveTuple { src: t.hosts[0], dst, sport, dport: 4791 };
                            let p = compact.select(node, tuple);
                            assert_eq!(p, pooled.select(node, tuple));
                            assert!(compact.table.next_hops(node, dst).contains(&p));
                            spread.insert(p);
                        }
                    }
                }
                assert!(spread.len() > t.hosts.len(), "up-links are used as well as host ports");
            }
        }
    }

    /// `SwitchNode::EcmpHash` as ns-3 itself computes it: a probe program linked against
    /// the HPCC repository's ns-3.18 build (this machine, 2026-11; `docs/ns3.md`) hashed
    /// these 12-byte keys (source IP, destination IP, sport | dport << 16; IPs from node ids
    /// as `third.cc` gives them) with these seeds.
    #[test]
    fn ns3_hash_equals_ns3s() {
        let cases: [(u32, u32, u16, u16, u32, u32); 6] = [
            (0, 1, 10000, 100, 320, 3_940_792_700),
            (91, 176, 10000, 100, 325, 3_199_749_252),
            (147, 157, 10003, 100, 329, 1_723_166_109),
            (300, 5, 10001, 100, 375, 1_253_059_383),
            (260, 261, 65535, 100, 0, 2_366_023_233),
            (1, 2, 10000, 200, 7, 3_434_403_505),
        ];
        for (src, dst, sport, dport, seed, want) in cases {
            let tuple = FiveTuple { src: NodeId(src), dst: NodeId(dst), sport, dport };
            assert_eq!(ns3_ecmp_hash(seed, tuple), want, "{src} -> {dst} port {sport} seed {seed}");
        }
        assert_eq!(ns3_node_ip(NodeId(0)), 0x0b00_0001);
        assert_eq!(ns3_node_ip(NodeId(300)), 0x0b01_2c01);
    }

    /// ns-3's next-hop lists follow its breadth-first search from the destination, which
    /// visits neighbours in descending node id (`NextHopOrder::Ns3`); a switch picks entry
    /// `hash mod n`, seeded by its node id.
    #[test]
    fn ns3_next_hops_descend_and_ecmp_indexes_them_with_ns3s_hash() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let r = Routing::new(&t, EcmpHash::Ns3, 99);
        let peer = |p: &PortId| t.ports[t.ports[p.idx()].peer.idx()].node;
        let mut multi = 0;
        for &dst in &t.hosts {
            for node in (0..t.node_count() as u32).map(NodeId).filter(|n| !t.is_host(*n)) {
                let hops: Vec<NodeId> = r.table.next_hops(node, dst).iter().map(peer).collect();
                assert!(hops.windows(2).all(|w| w[0] > w[1]), "node {} to {}: {hops:?}", node.0, dst.0);
                multi += (hops.len() > 1) as usize;
            }
        }
        assert!(multi > 0);
        let (src, dst) = (t.hosts[0], *t.hosts.last().unwrap());
        let edge = peer(&t.host_port(src));
        let hops = r.table.next_hops(edge, dst).to_vec();
        for sport in 10000..10016 {
            let tuple = FiveTuple { src, dst, sport, dport: 100 };
            let want = hops[ns3_ecmp_hash(edge.0, tuple) as usize % hops.len()];
            assert_eq!(r.path_of(&t, tuple)[1], want);
        }
    }

    #[test]
    fn fat_tree_switches_share_rows_and_keep_every_shortest_next_hop() {
        let t = fat_tree(8, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let table = EcmpTable::build(&t);
        assert!(matches!(table.entries, LocalSetIds::Narrow(_)));
        // One row for the edge switches, one per pod's aggregation switches, one for the cores.
        assert_eq!(table.entries_rows(), 8 + 2);
        // Compact sets: the edge switches' one (up), the aggregation switches' two lists of
        // five (pod 0 meets its own edges first, the other pods meet pod 0's first), the
        // cores' one list of eight (one port per pod).
        assert_eq!(table.compact.as_ref().map(|c| c.len()), Some(1 + 2 * 5 + 8));
        for &dst in &t.hosts {
            let dist = t.hop_distances(dst);
            for node in (0..t.node_count() as u32).map(NodeId).filter(|n| !t.is_host(*n)) {
                let all: Vec<PortId> = t
                    .ports_of(node)
                    .map(PortId)
                    .filter(|p| dist[t.ports[t.ports[p.idx()].peer.idx()].node.idx()] + 1 == dist[node.idx()])
                    .collect();
                assert_eq!(table.next_hops(node, dst), all.as_slice(), "node {} to host {}", node.0, dst.0);
            }
        }
    }

    #[test]
    fn k32_fat_tree_sets_are_compact() {
        // 16 up-links per aggregation switch fit a compact set.
        let t = fat_tree(32, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        let table = EcmpTable::build(&t);
        assert!(table.compact.is_some());
        assert_eq!(table.entries_rows(), 32 + 2);
    }

    #[test]
    fn crc32_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn fat_tree_paths_are_shortest_and_spread() {
        let t = fat_tree(4, Rate::gbps(100), Rate::gbps(100), Delta::from_us(1));
        for hash in [EcmpHash::Mix, EcmpHash::Crc32] {
            let r = Routing::new(&t, hash, 1);
            let mut cores = std::collections::BTreeSet::new();
            for sport in 0..64 {
                let tuple = FiveTuple { src: NodeId(0), dst: NodeId(15), sport, dport: 100 };
                let path = r.path_of(&t, tuple);
                // host -> edge -> agg -> core -> agg -> edge -> host: 6 egress ports
                assert_eq!(path.len(), 6);
                assert_eq!(path, r.path_of(&t, tuple), "deterministic");
                cores.insert(t.ports[t.ports[path[2].idx()].peer.idx()].node);
            }
            assert_eq!(cores.len(), 4, "ECMP reaches every core");
            // same-edge pair: host -> edge -> host
            let tuple = FiveTuple { src: NodeId(0), dst: NodeId(1), sport: 1, dport: 100 };
            assert_eq!(r.path_of(&t, tuple).len(), 2);
        }
    }
}
