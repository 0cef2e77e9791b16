//! Transparent huge pages for the large arrays a packet-hop reads at random: the crate's
//! second `unsafe` code (the first is `prefetch`).
//!
//! At k = 32 the packet store, the ports and the flows span tens of megabytes, and a hop
//! touches a handful of lines scattered over them: with 4 KiB pages nearly every such
//! touch also misses the TLB, which cachegrind's model does not count. Most Linux
//! machines ship transparent huge pages in `madvise` mode (the kernel backs a range with
//! 2 MiB pages only where the process asked), so the arrays ask: `MADV_HUGEPAGE` on
//! memory not yet touched (later faults get huge pages), `MADV_COLLAPSE` (Linux ≥ 6.1)
//! on memory already written (the kernel copies it into huge pages now). Neither changes
//! what the memory holds, so results cannot depend on whether the kernel agreed; where it
//! does not (an older kernel, THP off, another OS) the calls fail quietly and the run is
//! as it was.

/// Smallest array worth asking for: one huge page's worth (smaller ones cannot hold an
/// aligned 2 MiB extent, the only part the kernel could back with a huge page).
pub const HUGE_PAGE: usize = 2 << 20;

/// What the range needs from the kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Advice {
    /// Not yet touched: back it with huge pages as it is first written.
    Future,
    /// Already written: collapse it into huge pages now (and keep it so).
    Now,
}

/// Ask for huge pages under the whole allocation of `v` (its capacity, written or not).
/// Worth it for arrays of several huge pages that a hop reaches at random; each call is a
/// system call or two, so not for arrays that grow often.
pub fn advise_vec<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    advise(v.as_ptr() as usize, bytes, Advice::Future);
    if !v.is_empty() {
        advise(v.as_ptr() as usize, v.len() * std::mem::size_of::<T>(), Advice::Now);
    }
}

/// Ask for huge pages under the process's heap (the `brk` area, where the allocator puts
/// the many mid-sized arrays of ports' queues, policies and flows): what glibc's own
/// `glibc.malloc.hugetlb=1` tunable does, which a library cannot set after start-up.
pub fn advise_heap() {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return };
    let Some((lo, hi)) = maps.lines().find(|l| l.ends_with("[heap]")).and_then(heap_range) else { return };
    advise(lo, hi - lo, Advice::Future);
    advise(lo, hi - lo, Advice::Now);
}

/// The address range of a `/proc/self/maps` line (`start-end perms ...`, hexadecimal).
fn heap_range(line: &str) -> Option<(usize, usize)> {
    let (lo, rest) = line.split_once('-')?;
    let hi = rest.split_whitespace().next()?;
    let (lo, hi) = (usize::from_str_radix(lo, 16).ok()?, usize::from_str_radix(hi, 16).ok()?);
    (lo < hi).then_some((lo, hi))
}

/// The pages wholly inside `[start, start + bytes)`, if they hold an aligned 2 MiB extent.
fn inner_pages(start: usize, bytes: usize) -> Option<(usize, usize)> {
    const PAGE: usize = 4096;
    let end = start.checked_add(bytes)?;
    let (lo, hi) = (start.checked_next_multiple_of(PAGE)?, end & !(PAGE - 1));
    let huge_lo = lo.checked_next_multiple_of(HUGE_PAGE)?;
    (huge_lo + HUGE_PAGE <= hi).then_some((lo, hi - lo))
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[allow(unsafe_code)]
fn advise(start: usize, bytes: usize, advice: Advice) {
    let Some((lo, len)) = inner_pages(start, bytes) else { return };
    let flag = match advice {
        Advice::Future => libc::MADV_HUGEPAGE,
        Advice::Now => libc::MADV_COLLAPSE,
    };
    // SAFETY: both advices change only how the kernel backs the pages, never what they
    // hold, and the range lies inside this process's own memory (an allocation, or the
    // heap as `/proc/self/maps` names it), rounded inward to whole 4 KiB pages (the x86-64
    // Linux page size). A refusal (EINVAL on kernels without the advice, EAGAIN when no
    // huge page is free) leaves the memory as it was.
    let _ = unsafe { libc::madvise(lo as *mut libc::c_void, len, flag) };
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn advise(start: usize, bytes: usize, _advice: Advice) {
    let _ = inner_pages(start, bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_pages_around_an_aligned_huge_page() {
        // Too small to hold an aligned 2 MiB extent.
        assert_eq!(inner_pages(HUGE_PAGE + 1, HUGE_PAGE + 4096), None);
        assert_eq!(inner_pages(0, HUGE_PAGE - 1), None);
        // Rounded inward to whole pages.
        assert_eq!(inner_pages(100, 3 * HUGE_PAGE), Some((4096, 3 * HUGE_PAGE - 4096)));
        assert_eq!(inner_pages(HUGE_PAGE, HUGE_PAGE), Some((HUGE_PAGE, HUGE_PAGE)));
        assert_eq!(inner_pages(usize::MAX - 10, 100), None);
    }

    #[test]
    fn reads_a_maps_line() {
        let line = "5583512f3000-5583537b3000 rw-p 00000000 00:00 0                          [heap]";
        assert_eq!(heap_range(line), Some((0x5583512f3000, 0x5583537b3000)));
        assert_eq!(heap_range("garbage"), None);
        assert_eq!(heap_range("20-10 rw-p"), None);
    }

    #[test]
    fn advising_keeps_the_contents() {
        let v: Vec<u64> = (0..1_000_000).collect();
        advise_vec(&v);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
    }
}
