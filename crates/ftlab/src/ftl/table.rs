//! Large flat tables (L2P, P2L) allocated so the kernel may back them with transparent huge
//! pages: the mapping is accessed at random, and 4 KiB pages make nearly every lookup a TLB
//! miss. Only a hint (`madvise(MADV_HUGEPAGE)` on Linux). The mapping tables are `UnitTable`s:
//! each entry a `u32` value or `NONE`, stored plus one so that `NONE` is 0 and a new table is
//! zeroed memory the kernel hands out untouched (pages are backed when first written, not when
//! built: a 1 TiB device's tables cost nothing until used). Also the cache prefetch hints over
//! any table (`prefetch`, and `prefetch_whole` for entries that may straddle two cache lines).
//! Not the tables' contents or meaning (`ftl::mod`).

use super::NONE;

/// A table of `u32` entries, each a value below `NONE` or `NONE` (nothing), built all `NONE`.
/// Stored as value + 1 (wrapping: `NONE` is 0), so building it is a zeroed allocation (the
/// allocator's `calloc`, fresh pages the kernel zero-fills on first write) rather than a pass
/// writing a sentinel over every page. The accessors add and subtract the one; callers see
/// only values and `NONE`.
#[derive(Clone, Debug)]
pub(crate) struct UnitTable {
    cells: Vec<u32>,
}

impl UnitTable {
    /// `len` entries, all `NONE`, huge-page backed where the OS allows.
    pub(crate) fn nothing(len: usize) -> UnitTable {
        let mut cells: Vec<u32> = vec![0; len];
        advise_huge(cells.as_mut_ptr() as usize, len * 4);
        UnitTable { cells }
    }

    /// Entry `idx` (panics out of range, as indexing does).
    #[inline(always)]
    pub(crate) fn get(&self, idx: usize) -> u32 {
        self.cells[idx].wrapping_sub(1)
    }

    /// Entry `idx`, or `None` out of range.
    #[inline(always)]
    pub(crate) fn try_get(&self, idx: usize) -> Option<u32> {
        self.cells.get(idx).map(|&c| c.wrapping_sub(1))
    }

    /// Set entry `idx` to `value` (`NONE`: nothing).
    #[inline(always)]
    pub(crate) fn set(&mut self, idx: usize, value: u32) {
        self.cells[idx] = value.wrapping_add(1);
    }

    /// Set entry `idx` to `value` and return what it held.
    #[inline(always)]
    pub(crate) fn replace(&mut self, idx: usize, value: u32) -> u32 {
        std::mem::replace(&mut self.cells[idx], value.wrapping_add(1)).wrapping_sub(1)
    }

    /// Whether entry `idx` holds nothing.
    #[inline(always)]
    pub(crate) fn is_none(&self, idx: usize) -> bool {
        self.cells[idx] == NONE.wrapping_add(1)
    }

    /// The entries from `first` on, `n` of them, that hold a value.
    pub(crate) fn count_some(&self, first: usize, n: usize) -> usize {
        self.cells[first..first + n].iter().filter(|&&c| c != NONE.wrapping_add(1)).count()
    }

    /// Every entry in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.cells.iter().map(|&c| c.wrapping_sub(1))
    }

    /// `prefetch` of entry `idx`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, idx: usize) {
        prefetch(&self.cells, idx);
    }
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
