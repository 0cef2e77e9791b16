//! Drop-tail: a lossy packet its queue cannot take is dropped (`[switch.deflection] kind =
//! "none"`, the default).

use super::hooks::{drop_tail, AdmBuild, AdmCx, Arrival, DeflectionPolicy, Verdict};
use crate::scenario::tagged::NoFields;

/// No deflection.
#[derive(Clone, Copy, Debug, Default)]
pub struct DropTail;

impl DeflectionPolicy for DropTail {
    const NAME: &'static str = "none";
    type Spec = NoFields;
    const INLINE: bool = true;
    const PARTITIONS: bool = true;

    fn build(_spec: &NoFields, _b: &mut AdmBuild) -> Self {
        DropTail
    }

    #[inline(always)]
    fn admit(&mut self, _cx: &AdmCx, _a: &mut Arrival, fits: bool) -> Verdict {
        drop_tail(fits)
    }
}
