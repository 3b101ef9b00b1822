//! Large flat tables (L2P, P2L) allocated so the kernel may back them with transparent huge
//! pages: the mapping is accessed at random, and 4 KiB pages make nearly every lookup a TLB
//! miss. Only a hint (`madvise(MADV_HUGEPAGE)` on Linux); the contents are plain `Vec<u32>`.
//! Also the cache prefetch hints over any table (`prefetch`, and `prefetch_whole` for entries
//! that may straddle two cache lines). Not the tables' contents or meaning (`ftl::mod`).

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

/// `prefetch`, and the cache line of the entry's last byte too where the entry straddles two
/// lines (an entry whose size is not a divisor of the line's, such as a block's state).
#[inline(always)]
pub(crate) fn prefetch_whole<T>(table: &[T], idx: usize) {
    if let Some(entry) = table.get(idx) {
        prefetch_entry(entry);
    }
}

/// Hint that `entry` will be read soon: the cache lines of its first and last bytes.
#[inline(always)]
fn prefetch_entry<T>(entry: &T) {
    prefetch_line(entry);
    let first = entry as *const T as usize;
    let last = first + std::mem::size_of::<T>().saturating_sub(1);
    if last / LINE_BYTES != first / LINE_BYTES {
        prefetch_ptr((entry as *const T).cast::<i8>().wrapping_add(last - first));
    }
}

/// The cache line size assumed by `prefetch_whole` (x86_64's; elsewhere only a hint anyway).
const LINE_BYTES: usize = 64;

#[inline(always)]
fn prefetch_line<T>(entry: &T) {
    prefetch_ptr((entry as *const T).cast::<i8>());
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_ptr(p: *const i8) {
    use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: PREFETCHT0 is a hint that never faults and writes nothing, whatever the address;
    // callers pass addresses inside live entries anyway. SSE (which provides it) is part of
    // the x86_64 baseline.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p) }
}

/// Other targets: no prefetch (correct, only slower).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn prefetch_ptr(_p: *const i8) {}
