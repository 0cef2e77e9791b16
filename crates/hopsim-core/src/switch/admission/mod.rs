//! Admission and deflection: what a switch does with an arriving packet that no lossless
//! flow control vouched for — enqueue it, mark it, deflect it to another port, or drop it.
//!
//! Two parts make the policy. The **buffer rule** says whether an egress queue can take
//! the packet: a dynamic threshold on the shared buffer (Choudhury & Hahne) or a static
//! limit per port (`[switch.admission]`). The **deflection** policy says what happens to a
//! packet the rule refuses (drop-tail without one; DIBS sends it out of another port), and
//! may act on every packet (every deflecting switch spends one hop of the packet's limit).
//! A deflected packet is re-admitted at the port it is sent to, by the same buffer rule,
//! and counted per port and per flow.
//!
//! Each deflection mechanism is one file here behind [`DeflectionPolicy`] (in `hooks`)
//! and one line in the registration list below, which generates the [`Deflection`] enum,
//! the kind-tagged [`DeflectionSpec`] of `[switch.deflection]` and the dispatch.
//!
//! The whole switch also has its shared buffer ([`SharedBuffer`]): a packet that does not
//! fit in it is dropped before any policy is asked.

mod hooks;
mod snapshot;
mod window;

pub mod aifo;
pub mod dibs;
pub mod none;
pub mod preemptive;
pub mod simple;
pub mod vertigo;

pub use hooks::{
    AdmBuild, AdmCx, Arrival, BufferRule, DeflectionPolicy, HopLimitSpec, SharedBuffer, SurgeryCx, Verdict,
};
pub use snapshot::Snapshot;

use crate::fabric::port::Port;
use crate::fabric::store::PacketRef;
use crate::ids::PortId;
use crate::scenario::error::ScenarioError;
use crate::scenario::tagged;

/// Generates the family's enums and dispatch from the registration list.
macro_rules! deflection_registry {
    ($( $variant:ident => $policy:ty => $stored:ty ),+ $(,)?) => {
        /// What happens to packets the buffer rule refuses (`[switch.deflection]`), with a
        /// one-byte tag.
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub enum Deflection {
            $( $variant($stored), )+
        }

        /// `[switch.deflection]`: a mechanism's kind and its table.
        #[derive(Clone, Debug)]
        pub enum DeflectionSpec {
            $( $variant(<$policy as DeflectionPolicy>::Spec), )+
        }

        impl DeflectionSpec {
            /// Every kind's name, in registration order.
            pub const KINDS: &'static [&'static str] = &[$( <$policy as DeflectionPolicy>::NAME ),+];

            /// The kind's name.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( DeflectionSpec::$variant(_) => <$policy as DeflectionPolicy>::NAME, )+
                }
            }

            /// A one-line description for summaries.
            pub fn describe(&self) -> String {
                match self {
                    $( DeflectionSpec::$variant(s) => <$policy as DeflectionPolicy>::describe(s), )+
                }
            }

            /// Check the mechanism's table.
            pub fn validate(&self) -> Result<(), ScenarioError> {
                match self {
                    $( DeflectionSpec::$variant(s) => <$policy as DeflectionPolicy>::validate(s), )+
                }
            }

            /// The hop limit packets leave their hosts with.
            pub fn hop_limit(&self) -> u8 {
                match self {
                    $( DeflectionSpec::$variant(s) => <$policy as DeflectionPolicy>::hop_limit(s), )+
                }
            }

            /// Whether the mechanism reads packet ranks.
            pub fn reads_rank(&self) -> bool {
                match self {
                    $( DeflectionSpec::$variant(_) => <$policy as DeflectionPolicy>::READS_RANK, )+
                }
            }

            /// Whether every switch queue serves the lowest rank first.
            pub fn rank_ordered(&self) -> bool {
                match self {
                    $( DeflectionSpec::$variant(_) => <$policy as DeflectionPolicy>::RANK_ORDERED, )+
                }
            }

            /// Whether a parallel run may cut the network across it
            /// ([`DeflectionPolicy::PARTITIONS`]).
            pub fn partitions(&self) -> bool {
                match self {
                    $( DeflectionSpec::$variant(_) => <$policy as DeflectionPolicy>::PARTITIONS, )+
                }
            }

            /// The mechanism at every switch.
            pub fn build(&self, b: &mut AdmBuild) -> Deflection {
                match self {
                    $( DeflectionSpec::$variant(s) => Deflection::$variant(<$policy as DeflectionPolicy>::build(s, b).into()), )+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for DeflectionSpec {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let (kind, rest) = tagged::take_kind(d, DeflectionSpec::KINDS)?;
                $( if kind == <$policy as DeflectionPolicy>::NAME {
                    return tagged::inner(rest).map(DeflectionSpec::$variant);
                } )+
                unreachable!("take_kind checked the kind")
            }
        }

        impl schemars::JsonSchema for DeflectionSpec {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "DeflectionSpec".into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                tagged::kind_schema(
                    "Packet deflection (`[switch.deflection]`): `kind` and its parameters.",
                    vec![$( (
                        <$policy as DeflectionPolicy>::NAME,
                        <<$policy as DeflectionPolicy>::Spec as schemars::JsonSchema>::json_schema(g),
                    ), )+],
                )
            }
        }

        impl serde::Serialize for DeflectionSpec {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( DeflectionSpec::$variant(spec) => tagged::serialize_with_kind(self.kind(), spec, s), )+
                }
            }
        }

        impl Deflection {
            /// The kind's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( Deflection::$variant(_) => <$policy as DeflectionPolicy>::NAME, )+
                }
            }

            /// Whether the policy reads packet ranks (their header field).
            #[inline]
            pub fn reads_rank(&self) -> bool {
                match self {
                    $( Deflection::$variant(_) => <$policy as DeflectionPolicy>::READS_RANK, )+
                }
            }

            #[inline(always)]
            fn admit(&mut self, cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict {
                match self {
                    $( Deflection::$variant(p) if <$policy as DeflectionPolicy>::INLINE => {
                        <$policy as DeflectionPolicy>::admit(p, cx, a, fits)
                    } )+
                    _ => self.admit_out_of_line(cx, a, fits),
                }
            }

            /// The decision of a policy that is not [`DeflectionPolicy::INLINE`], out of the
            /// event loop's line (one call for all of them: the loop does not grow with the
            /// registration list).
            #[cold]
            #[inline(never)]
            fn admit_out_of_line(&mut self, cx: &AdmCx, a: &mut Arrival, fits: bool) -> Verdict {
                match self {
                    $( Deflection::$variant(p) => <$policy as DeflectionPolicy>::admit(p, cx, a, fits), )+
                }
            }

            /// The queued packets to take out for a packet that made room (see
            /// [`DeflectionPolicy::victims`]).
            #[allow(clippy::too_many_arguments)]
            pub fn victims(
                &self,
                cx: &SurgeryCx,
                port: PortId,
                queue: usize,
                rank: u64,
                size: u64,
                used: u64,
                buffer: u64,
            ) -> Option<Vec<PacketRef>> {
                match self {
                    $( Deflection::$variant(p) => {
                        <$policy as DeflectionPolicy>::victims(p, cx, port, queue, rank, size, used, buffer)
                    } )+
                }
            }

            /// Where switch `sw` deflects a packet taken out by surgery.
            pub fn deflection_port(&mut self, cx: &AdmCx, sw: usize, queue: usize) -> Option<PortId> {
                match self {
                    $( Deflection::$variant(p) => <$policy as DeflectionPolicy>::deflection_port(p, cx, sw, queue), )+
                }
            }
        }
    };
}

// The registration list: one line per mechanism (`Variant => Type => stored as`).
deflection_registry! {
    None => none::DropTail => none::DropTail,
    Dibs => dibs::Dibs => dibs::Dibs,
    DibsNaive => dibs::DibsNaive => dibs::DibsNaive,
    Simple => simple::SimpleDeflection => simple::SimpleDeflection,
    Preemptive => preemptive::Preemptive => Box<preemptive::Preemptive>,
    Vertigo => vertigo::Vertigo => vertigo::Vertigo,
    Aifo => aifo::Aifo => aifo::Aifo,
}

impl Default for DeflectionSpec {
    fn default() -> Self {
        DeflectionSpec::None(Default::default())
    }
}

impl DeflectionSpec {
    /// No deflection (drop-tail).
    pub fn is_none(&self) -> bool {
        matches!(self, DeflectionSpec::None(_))
    }
}

/// The admission policy of every switch in a run.
#[derive(Clone, Debug)]
pub struct Admission {
    pub rule: BufferRule,
    pub deflection: Deflection,
}

impl Admission {
    pub fn name(&self) -> &'static str {
        self.deflection.name()
    }

    /// Whether the policy reads packet ranks (their header field).
    #[inline]
    pub fn reads_rank(&self) -> bool {
        self.deflection.reads_rank()
    }

    /// Decide for a lossy packet.
    #[inline]
    pub fn admit(&mut self, mut a: Arrival<'_>, ports: &[Port]) -> Verdict {
        let fits = self.rule.fits(&ports[a.egress.idx()], a.queue, a.size, a.used, a.buffer);
        let cx = AdmCx { rule: &self.rule, ports };
        self.deflection.admit(&cx, &mut a, fits)
    }

    /// Re-admission at the port a packet was deflected to: the buffer rule alone.
    #[inline]
    pub fn readmit(&self, port: &Port, queue: usize, size: u64, used: u64, buffer: u64) -> bool {
        self.rule.fits(port, queue, size, used, buffer)
    }
}
