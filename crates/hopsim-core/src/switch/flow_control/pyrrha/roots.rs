//! The congestion-root table of every switch (Pyrrha §4.1–§4.3): which roots downstream
//! the switch isolates traffic for, and, per root, the *children* — the upstream ports (of
//! switches or hosts) it told to stop that traffic, the leaves of the congestion tree as
//! seen from here; and, per egress port that nominated itself a root, the upstreams it
//! paused.
//!
//! **Choice** (the paper says an IQ "above K_pause sends PAUSE(root) further up", §4.4,
//! without saying how an upstream is resumed when one root has IQs on several egress ports
//! of a switch): the bytes of a root's IQs are counted per child, over all of the switch's
//! ports, and a child is paused when its count passes K_pause one-hop BDPs and resumed when
//! it falls below K_resume — a child is one PAUSE / RESUME state per root, as Pyrrha-NS3's
//! per-ingress counters keep it. A self-nominated root compares its output queue with the
//! thresholds, as the paper says.

use super::super::keymap::{pair, KeyMap};
use super::types::RootId;
use crate::ids::PortId;

/// An upstream port a root's traffic arrives from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Child {
    /// This switch's port facing the upstream (the port frames for it leave from).
    pub ingress: PortId,
    /// It is told to stop the root's traffic now.
    pub paused: bool,
    /// It was told to (or merged into the root's tree), so it holds an IQ for the root and
    /// will say when it unassigns it: a member of the tree. An upstream whose bytes are only
    /// counted is not.
    pub member: bool,
    /// Bytes from it in the root's IQs at this switch.
    pub bytes: u64,
}

/// A root this switch isolates traffic for.
#[derive(Clone, Debug, Default)]
pub struct RootEntry {
    /// Hops from this switch's egress ports to the root.
    pub hop: u8,
    pub children: Vec<Child>,
    /// Egress ports of this switch that know the root (hold IQs for it).
    pub ports: Vec<PortId>,
}

impl RootEntry {
    fn child(&mut self, ingress: PortId) -> &mut Child {
        match self.children.iter().position(|c| c.ingress == ingress) {
            Some(i) => &mut self.children[i],
            None => {
                self.children.push(Child { ingress, paused: false, member: false, bytes: 0 });
                self.children.last_mut().expect("just pushed")
            }
        }
    }
}

/// The root tables of all switches.
#[derive(Clone, Debug, Default)]
pub struct RootTable {
    /// (switch, root) → entry.
    entries: KeyMap<RootEntry>,
    /// Per port (global id): the upstreams it paused as a congestion root (empty: not a root).
    pub self_children: Vec<Vec<Child>>,
}

impl RootTable {
    pub fn new(ports: usize) -> RootTable {
        RootTable { entries: KeyMap::default(), self_children: vec![Vec::new(); ports] }
    }

    pub fn get(&self, sw: usize, root: RootId) -> Option<&RootEntry> {
        self.entries.get(&pair(sw as u32, root))
    }

    pub fn get_mut(&mut self, sw: usize, root: RootId) -> Option<&mut RootEntry> {
        self.entries.get_mut(&pair(sw as u32, root))
    }

    /// The entry of `root` at switch `sw`, created `hop` hops away if new.
    pub fn entry(&mut self, sw: usize, root: RootId, hop: u8) -> &mut RootEntry {
        self.entries.entry(pair(sw as u32, root)).or_insert_with(|| RootEntry { hop, ..Default::default() })
    }

    pub fn remove(&mut self, sw: usize, root: RootId) -> Option<RootEntry> {
        self.entries.remove(&pair(sw as u32, root))
    }

    /// `bytes` from `ingress` joined an IQ of `root`: true when the child must be paused now
    /// (its count passed `pause_at` and it was not paused).
    pub fn count(&mut self, sw: usize, root: RootId, ingress: PortId, bytes: u64, pause_at: u64) -> bool {
        let Some(e) = self.get_mut(sw, root) else { return false };
        let c = e.child(ingress);
        c.bytes += bytes;
        if c.bytes > pause_at && !c.paused {
            c.paused = true;
            c.member = true;
            return true;
        }
        false
    }

    /// `bytes` from `ingress` left an IQ of `root`: true when the child must be resumed now
    /// (paused, and its count fell below `resume_at`).
    pub fn uncount(&mut self, sw: usize, root: RootId, ingress: PortId, bytes: u64, resume_at: u64) -> bool {
        let Some(e) = self.get_mut(sw, root) else { return false };
        let Some(c) = e.children.iter_mut().find(|c| c.ingress == ingress) else { return false };
        c.bytes = c.bytes.saturating_sub(bytes);
        if c.paused && c.bytes < resume_at {
            c.paused = false;
            return true;
        }
        false
    }

    /// Whether `root`'s tree has no member left beyond this switch (a leaf may unassign its
    /// IQs, §4.3): no child is paused, and every member is a host (hosts hold no IQs).
    pub fn is_leaf(&self, sw: usize, root: RootId, peer_host: &[bool]) -> bool {
        self.get(sw, root)
            .is_none_or(|e| e.children.iter().all(|c| !c.paused && (!c.member || peer_host[c.ingress.idx()])))
    }

    /// Register the upstream at `ingress` as a member of `root`'s tree, resumed (a MERGE
    /// brought it in).
    pub fn adopt(&mut self, sw: usize, root: RootId, hop: u8, ingress: PortId) {
        let c = self.entry(sw, root, hop).child(ingress);
        c.member = true;
    }

    /// The upstream at `ingress` unassigned its IQ for `root` (or its link failed): it is no
    /// longer a member, unless it is still paused (a PAUSE crossed its notice).
    pub fn remove_child(&mut self, sw: usize, root: RootId, ingress: PortId) {
        if let Some(e) = self.get_mut(sw, root) {
            for c in e.children.iter_mut().filter(|c| c.ingress == ingress && !c.paused) {
                c.member = false;
            }
            e.children.retain(|c| c.member || c.bytes > 0);
        }
    }

    /// Every (root, entry) of switch `sw`, by root id.
    pub fn of_switch(&self, sw: usize) -> Vec<RootId> {
        let mut roots: Vec<RootId> =
            self.entries.keys().filter(|k| (*k >> 32) as usize == sw).map(|k| *k as u32).collect();
        roots.sort_unstable();
        roots
    }

    /// Entries and self-root children held (0 once every tree dissolved).
    pub fn held(&self) -> usize {
        self.entries.len() + self.self_children.iter().filter(|c| !c.is_empty()).count()
    }

    /// Port `port` (a congestion root) paused the upstream at `ingress`: record it; true
    /// if it was not paused already (a PAUSE must go).
    pub fn root_pauses(&mut self, port: PortId, ingress: PortId) -> bool {
        let children = &mut self.self_children[port.idx()];
        match children.iter_mut().find(|c| c.ingress == ingress) {
            Some(c) if c.paused => false,
            Some(c) => {
                c.paused = true;
                true
            }
            None => {
                children.push(Child { ingress, paused: true, member: true, bytes: 0 });
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child is paused once its bytes pass the pause threshold and resumed once they fall
    /// below the resume threshold; a resumed host child leaves the tree a leaf, a switch
    /// child only once it unassigned its IQ.
    #[test]
    fn children_are_paused_and_resumed_by_their_bytes() {
        let mut t = RootTable::new(4);
        let peer_host = [true, false, false, false];
        t.entry(0, 9, 1);
        assert!(!t.count(0, 9, PortId(0), 30_000, 50_000));
        assert!(t.count(0, 9, PortId(0), 30_000, 50_000), "60 KB > 50 KB: pause");
        assert!(!t.count(0, 9, PortId(0), 1_000, 50_000), "already paused");
        assert!(!t.count(0, 9, PortId(1), 1_000, 50_000));
        assert!(!t.is_leaf(0, 9, &peer_host), "a paused child");
        assert!(!t.uncount(0, 9, PortId(0), 30_000, 25_000), "31 KB left: still paused");
        assert!(t.uncount(0, 9, PortId(0), 10_000, 25_000), "21 KB < 25 KB: resume");
        assert!(t.is_leaf(0, 9, &peer_host), "port 1's bytes were only counted: not a member");
        t.adopt(0, 9, 1, PortId(1));
        assert!(!t.is_leaf(0, 9, &peer_host), "a merged switch upstream is a member");
        t.remove_child(0, 9, PortId(1));
        assert!(t.is_leaf(0, 9, &peer_host), "only a resumed host member is left");
        assert!(t.root_pauses(PortId(3), PortId(1)));
        assert!(!t.root_pauses(PortId(3), PortId(1)));
        assert_eq!(t.held(), 2);
    }
}
