//! Large flat tables (L2P, P2L) allocated so the kernel may back them with transparent huge
//! pages: the mapping is accessed at random, and 4 KiB pages make nearly every lookup a TLB
//! miss. Only a hint (`madvise(MADV_HUGEPAGE)` on Linux); the contents are plain `Vec<u32>`.

/// A `Vec<u32>` of `len` copies of `value`, huge-page backed where the OS allows.
pub fn filled_u32(len: usize, value: u32) -> Vec<u32> {
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
