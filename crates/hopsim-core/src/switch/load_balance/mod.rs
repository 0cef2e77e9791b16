//! Load balancing: the seam where a switch chooses among the equal-cost egress ports
//! towards a packet's destination.
//!
//! Each mechanism is one file here behind [`LoadBalancerPolicy`] (in `hooks`) and one line
//! in the registration list below, which generates the [`LoadBalancer`] enum (static
//! dispatch, a one-byte tag), the [`LoadBalancerSpec`] a scenario's `[routing]` section
//! resolves to (`load_balancer = NAME` with `[routing.NAME]`), and the dispatch. ECMP's hook
//! is inlined into the event loop; every other balancer's is called out of line, so a run
//! that does not use it carries none of its code.

mod hooks;

pub mod conga;
pub mod drill;
pub mod ecmp;
pub mod hermes;
pub mod letflow;
pub mod proteus;

pub use hooks::{LbBuild, LbCx, LeafUplinks, LoadBalancerPolicy};

use crate::engine::PolicyTimerKind;
use crate::fabric::packet::Packet;
use crate::fabric::store::PacketRef;
use crate::fabric::timers::Timers;
use crate::fabric::Fabric;
use crate::ids::{NodeId, PortId};
use crate::scenario::error::ScenarioError;
use crate::scenario::tagged;

/// The context of a load balancer's hook, borrowed from the fabric's fields one by one.
macro_rules! lb_cx {
    ($fab:expr) => {
        LbCx {
            now: $fab.now,
            ports: &$fab.ports,
            routing: &$fab.routing,
            topo: &$fab.topo,
            headers: &mut $fab.headers,
            timers: Timers::new(&mut $fab.events, &mut $fab.timers, PolicyTimerKind::LoadBalance),
        }
    };
}

/// Generates the family's enums and dispatch from the registration list.
macro_rules! load_balancer_registry {
    ($( $variant:ident => $policy:ty ),+ $(,)?) => {
        /// The load balancer of every switch in a run, with a one-byte tag.
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum LoadBalancer {
            $( $variant($policy), )+
        }

        /// `[routing] load_balancer = NAME` with its table `[routing.NAME]`.
        #[derive(Clone, Debug)]
        pub enum LoadBalancerSpec {
            $( $variant(<$policy as LoadBalancerPolicy>::Spec), )+
        }

        impl LoadBalancerSpec {
            /// Every kind's name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$( <$policy as LoadBalancerPolicy>::NAME ),+];

            /// The kind's name.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( LoadBalancerSpec::$variant(_) => <$policy as LoadBalancerPolicy>::NAME, )+
                }
            }

            /// Whether it sends one flow's packets over several paths (see
            /// [`LoadBalancerPolicy::REORDERS`]).
            pub fn reorders(&self) -> bool {
                match self {
                    $( LoadBalancerSpec::$variant(_) => <$policy as LoadBalancerPolicy>::REORDERS, )+
                }
            }

            /// Whether a parallel run may cut the network across it
            /// ([`LoadBalancerPolicy::PARTITIONS`]).
            pub fn partitions(&self) -> bool {
                match self {
                    $( LoadBalancerSpec::$variant(_) => <$policy as LoadBalancerPolicy>::PARTITIONS, )+
                }
            }

            /// Kind `kind` with its table (`None`: every field at its default); errors
            /// carry the table's inner path.
            pub fn with_table<E: serde::de::Error>(kind: &str, table: Option<serde_json::Value>) -> Result<Self, E> {
                $( if kind == <$policy as LoadBalancerPolicy>::NAME {
                    return match table {
                        Some(t) => tagged::inner(t).map(LoadBalancerSpec::$variant),
                        None => Ok(LoadBalancerSpec::$variant(Default::default())),
                    };
                } )+
                let expected = Self::KINDS.iter().map(|k| format!("\"{k}\"")).collect::<Vec<_>>().join(", ");
                Err(E::custom(format!("unknown load balancer \"{kind}\"; expected one of {expected}")))
            }

            /// The table as a JSON value (`None` for a table with no fields).
            pub fn table(&self) -> Option<serde_json::Value> {
                let value = match self {
                    $( LoadBalancerSpec::$variant(s) => serde_json::to_value(s).expect("a table serializes"), )+
                };
                value.as_object().is_some_and(|m| !m.is_empty()).then_some(value)
            }

            /// Every balancer's table (`[routing.NAME]`) as a JSON Schema, by name.
            pub fn table_schemas(g: &mut schemars::SchemaGenerator) -> Vec<(&'static str, schemars::Schema)> {
                vec![$( (
                    <$policy as LoadBalancerPolicy>::NAME,
                    g.subschema_for::<<$policy as LoadBalancerPolicy>::Spec>(),
                ), )+]
            }

            /// A one-line description for summaries.
            pub fn describe(&self) -> String {
                match self {
                    $( LoadBalancerSpec::$variant(s) => <$policy as LoadBalancerPolicy>::describe(s), )+
                }
            }

            /// Check the balancer's table.
            pub fn validate(&self) -> Result<(), ScenarioError> {
                match self {
                    $( LoadBalancerSpec::$variant(s) => <$policy as LoadBalancerPolicy>::validate(s), )+
                }
            }

            /// The balancer at every switch.
            pub fn build(&self, b: &mut LbBuild) -> LoadBalancer {
                match self {
                    $( LoadBalancerSpec::$variant(s) => LoadBalancer::$variant(<$policy as LoadBalancerPolicy>::build(s, b)), )+
                }
            }
        }

        impl LoadBalancer {
            /// The kind's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( LoadBalancer::$variant(_) => <$policy as LoadBalancerPolicy>::NAME, )+
                }
            }

            /// The egress port switch `node` (switch index `sw`) uses for `pkt` (slot `r`);
            /// `PortId::NONE` when link failures left no route. The inlined balancers are
            /// tested for here; every other one is reached through one out-of-line call, so
            /// the event loop's code does not grow with the registration list.
            #[inline(always)]
            pub fn select(&mut self, fab: &mut Fabric, node: NodeId, sw: usize, pkt: &Packet, r: PacketRef) -> PortId {
                match self {
                    $( LoadBalancer::$variant(p) if <$policy as LoadBalancerPolicy>::INLINE => {
                        <$policy as LoadBalancerPolicy>::select(p, &mut lb_cx!(fab), node, sw, pkt, r.index())
                    } )+
                    _ => self.select_out_of_line(fab, node, sw, r),
                }
            }

            /// The hook of a balancer that is not [`LoadBalancerPolicy::INLINE`], out of the
            /// event loop's line: scalars in, the packet read from its slot.
            #[cold]
            #[inline(never)]
            fn select_out_of_line(&mut self, fab: &mut Fabric, node: NodeId, sw: usize, r: PacketRef) -> PortId {
                let pkt = *fab.store.get(r);
                match self {
                    $( LoadBalancer::$variant(p) => {
                        <$policy as LoadBalancerPolicy>::select(p, &mut lb_cx!(fab), node, sw, &pkt, r.index())
                    } )+
                }
            }

            /// A timer of the balancer fired.
            #[inline(never)]
            pub fn on_timer(&mut self, fab: &mut Fabric, target: u32) {
                match self {
                    $( LoadBalancer::$variant(p) => <$policy as LoadBalancerPolicy>::on_timer(p, &mut lb_cx!(fab), target), )+
                }
            }

            /// What a run's description shows of the balancer (label, line).
            pub fn summary_line(&self) -> Option<(&'static str, String)> {
                match self {
                    $( LoadBalancer::$variant(p) => <$policy as LoadBalancerPolicy>::summary_line(p), )+
                }
            }

            /// The balancer's counters, by name.
            pub fn counters(&self) -> Vec<(&'static str, u64)> {
                match self {
                    $( LoadBalancer::$variant(p) => <$policy as LoadBalancerPolicy>::counters(p), )+
                }
            }

            /// Fold another partition's balancer (of the same kind: every partition of a
            /// run builds the same) into this one at the end of a parallel run.
            pub fn join_partition(&mut self, other: &LoadBalancer) {
                match (self, other) {
                    $( (LoadBalancer::$variant(p), LoadBalancer::$variant(o)) => {
                        <$policy as LoadBalancerPolicy>::join_partition(p, o)
                    } )+
                    #[allow(unreachable_patterns)]
                    _ => unreachable!("the partitions of a run build the same balancer"),
                }
            }
        }
    };
}

// The registration list: one line per mechanism (`Variant => Type`).
load_balancer_registry! {
    Ecmp => ecmp::Ecmp,
    Drill => drill::Drill,
    Letflow => letflow::Letflow,
    Proteus => proteus::Proteus,
    Conga => conga::Conga,
    Hermes => hermes::Hermes,
}

impl Default for LoadBalancerSpec {
    fn default() -> Self {
        LoadBalancerSpec::Ecmp(Default::default())
    }
}
