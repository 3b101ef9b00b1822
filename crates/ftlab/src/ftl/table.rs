//! Large flat tables (L2P, P2L) allocated so the kernel may back them with transparent huge
//! pages: the mapping is accessed at random, and 4 KiB pages make nearly every lookup a TLB
//! miss. Only a hint (`madvise(MADV_HUGEPAGE)` on Linux); the contents are plain `Vec<u32>`.

/// A `Vec<u32>` of `len` copies of `value`, huge-page backed where the OS allows.
pub(crate) fn filled_u32(len: usize, value: u32) -> Vec<u32> {
    let mut v: Vec<u32> = Vec::with_capacity(len);
    advise_huge(v.as_mut_ptr() as usize, len * 4);
    v.resize(len, value);
    v
}

#[cfg(target_os = "linux")]
fn advise_huge(addr: usize, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < 4 * HUGE {
        return;
    }
    let start = addr.next_multiple_of(HUGE);
    let end = (addr + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: the range lies inside an allocation we own and have not touched; MADV_HUGEPAGE
        // only changes how the kernel backs it, never its contents. Failure is harmless.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_addr: usize, _bytes: usize) {}

/// Hint that (the start of) `table[idx]` will be read soon, so its cache line is fetched while other work
/// goes on (the L2P and P2L are far larger than the caches). Only a hint: it never changes
/// what any load returns, and an index out of range is ignored.
#[inline(always)]
pub(crate) fn prefetch<T>(table: &[T], idx: usize) {
    if let Some(entry) = table.get(idx) {
        prefetch_line(entry);
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_line<T>(entry: &T) {
    use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: PREFETCHT0 is a hint that never faults and writes nothing; the pointer comes from
    // a live reference anyway. SSE (which provides it) is part of the x86_64 baseline.
    unsafe { _mm_prefetch::<_MM_HINT_T0>((entry as *const T).cast::<i8>()) }
}

/// Other targets: no prefetch (correct, only slower).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn prefetch_line<T>(_entry: &T) {}
