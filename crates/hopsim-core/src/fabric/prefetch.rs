//! Cache prefetch hints (one of the crate's four audited `unsafe` places, `lib.rs`).
//!
//! The event loop knows which packet and port the next event will touch before it runs
//! the current one; at k=16 those are often no longer in any cache (the working set is
//! larger than L3), so starting their loads early hides part of the miss. A prefetch has
//! no architectural effect and cannot fault, whatever the address.

/// Start loading the cache lines holding `value` (its first and last byte).
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = value as *const T as *const i8;
        let last = first.wrapping_add(std::mem::size_of::<T>().max(1) - 1);
        // SAFETY: `_mm_prefetch` only hints the cache; it reads nothing architecturally
        // and never faults, and SSE is part of the x86_64 baseline.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
