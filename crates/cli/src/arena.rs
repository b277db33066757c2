//! The process allocator: a bump arena while the input is read and parsed, mimalloc
//! otherwise.
//!
//! Why: reading and parsing a million-statement kernel makes about two million allocations
//! that live until the process exits (the CLI never frees the parsed file), and faults in
//! about 350 MB one 4 KiB page at a time; page faults were a quarter of `syncopt insert`
//! outside the passes, malloc another tenth. Bumping a pointer through one region makes no
//! malloc calls, and lets a helper thread fault the pages in ahead of the parser.
//!
//! The arena is on only between [`begin`] and [`end`] (reading and parsing, one thread).
//! Memory from it is never reused: freeing it is a no-op (the passes do free parts of the
//! parsed kernel, e.g. a block's statement list they replace), and growing it copies, except
//! for the last allocation, which grows in place (the input text read from a pipe). When the
//! region is full, or could not be reserved, allocations go to mimalloc, so the
//! arena changes speed, never behaviour.

use std::alloc::{GlobalAlloc, Layout};

// The passes allocate and free many small short-lived vectors on two threads; glibc malloc
// spent 14% of a 1M-statement `insert` in its own code (chunk unlinking and consolidation),
// mimalloc about a third of that: 0.4-0.7 s less wall time (docs/PERFORMANCE.md).
use mimalloc::MiMalloc as Fallback;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub struct CliAlloc;

/// The reserved region `[START, END)`; both 0 until [`begin`] reserves it.
static START: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);
/// The first free byte of the region.
static NEXT: AtomicUsize = AtomicUsize::new(0);
static ON: AtomicBool = AtomicBool::new(false);

/// Address space to reserve: only touched pages cost memory. A 1M-statement kernel takes
/// about 350 MB; beyond the region, allocation goes on in mimalloc.
const RESERVE: usize = 16 << 30;

/// Turns the arena on (reserving its region the first time). `SYNCOPT_ARENA=0` leaves it
/// off; `SYNCOPT_ARENA=huge` asks for transparent huge pages. Huge pages are not the default:
/// on a VM whose balloon takes free memory back from the guest (the 2-core dev box), every
/// fresh huge page is faulted in from the host, and a first run spent 0.5-0.8 s in the kernel
/// zeroing them (4 KiB pages: 0.2 s); on a host without that, they took it to 0.06 s.
pub fn begin() {
    let mode = std::env::var_os("SYNCOPT_ARENA");
    if mode.as_deref() == Some("0".as_ref()) {
        return;
    }
    if START.load(Ordering::Relaxed) == 0 {
        let huge = mode.as_deref() == Some("huge".as_ref());
        // `SYNCOPT_PREFAULT=0`: no helper thread (for measurements).
        if std::env::var_os("SYNCOPT_PREFAULT").is_some_and(|v| v == "0") {
            HELPER.store(true, Ordering::Relaxed);
        }
        // Under strict overcommit accounting the whole reservation would be charged (the
        // kernel ignores MAP_NORESERVE there), taking 16 GiB of commit from every other
        // process: no arena then.
        let strict = std::fs::read_to_string("/proc/sys/vm/overcommit_memory")
            .is_ok_and(|m| strict_overcommit(&m));
        if let Some(start) = (!strict).then(|| os::reserve(RESERVE, huge)).flatten() {
            NEXT.store(start, Ordering::Relaxed);
            END.store(start + RESERVE, Ordering::Relaxed);
            START.store(start, Ordering::Release);
        }
    }
    ON.store(START.load(Ordering::Relaxed) != 0, Ordering::Release);
}

/// Whether `/proc/sys/vm/overcommit_memory` holds mode 2 (strict accounting).
fn strict_overcommit(mode: &str) -> bool {
    mode.trim() == "2"
}

/// Turns the arena off: later allocations go to mimalloc (what the arena handed
/// out stays valid).
pub fn end() {
    ON.store(false, Ordering::Release);
}

/// How far into the region (bytes from its start) the helper is to fault pages in.
static GOAL: AtomicUsize = AtomicUsize::new(0);
/// Whether the helper was started (or must not be: `SYNCOPT_PREFAULT=0`).
static HELPER: AtomicBool = AtomicBool::new(false);

/// Has a helper thread fault in the arena up to `bytes` from its start, ahead of this thread
/// filling it: the kernel zeroes every new page, and for a large parse that was as much time
/// as the parse itself. Called as input arrives (with a guess at what parsing it will take),
/// so that on a pipe the pages are faulted in while the writer is still producing. Does
/// nothing for small amounts, or where the kernel cannot populate pages.
pub fn prefault_to(bytes: usize) {
    const MIN: usize = 16 << 20;
    if !ON.load(Ordering::Relaxed) || !os::CAN_POPULATE {
        return;
    }
    GOAL.fetch_max(bytes, Ordering::Relaxed);
    if bytes < MIN || HELPER.swap(true, Ordering::Relaxed) {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("prefault".into())
        .spawn(helper);
    // The helper only saves time: without it, the pages fault in as they are written.
    drop(spawned);
}

fn helper() {
    const STEP: usize = 2 << 20;
    let start = START.load(Ordering::Acquire);
    let end = END.load(Ordering::Relaxed);
    let mut at = start;
    while ON.load(Ordering::Relaxed) {
        let goal = start.saturating_add(GOAL.load(Ordering::Relaxed)).min(end);
        // Pages below the bump pointer were written already; skip to it.
        at = at.max(NEXT.load(Ordering::Relaxed) & !(STEP - 1));
        if at >= goal {
            // Waiting for more input.
            std::thread::sleep(std::time::Duration::from_micros(200));
            continue;
        }
        let len = STEP.min(goal - at);
        if !os::populate(at, len) {
            return;
        }
        at += len;
    }
}

/// Bytes handed out by the arena so far.
pub fn used() -> usize {
    NEXT.load(Ordering::Relaxed) - START.load(Ordering::Relaxed)
}

#[inline]
fn in_region(p: *mut u8) -> bool {
    let a = p as usize;
    a >= START.load(Ordering::Relaxed) && a < END.load(Ordering::Relaxed)
}

/// Takes `layout` off the region, or `None` when it does not fit.
fn bump(layout: Layout) -> Option<*mut u8> {
    let end = END.load(Ordering::Relaxed);
    let mut cur = NEXT.load(Ordering::Relaxed);
    loop {
        let start = cur.checked_add(layout.align() - 1)? & !(layout.align() - 1);
        let next = start.checked_add(layout.size().max(1))?;
        if next > end {
            return None;
        }
        match NEXT.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(start as *mut u8),
            Err(now) => cur = now,
        }
    }
}

// SAFETY: every pointer handed out is either mimalloc's (and goes back to it) or
// a fresh, suitably aligned, never reused range of the reserved region (which is never
// unmapped, and whose anonymous pages read as zero until written).
unsafe impl GlobalAlloc for CliAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            if let Some(p) = bump(layout) {
                return p;
            }
        }
        Fallback.alloc(layout)
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            // Never handed out before, so still zero.
            if let Some(p) = bump(layout) {
                return p;
            }
        }
        Fallback.alloc_zeroed(layout)
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !in_region(ptr) {
            Fallback.dealloc(ptr, layout);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !in_region(ptr) {
            return Fallback.realloc(ptr, layout, new_size);
        }
        let old_end = ptr as usize + layout.size().max(1);
        if new_size <= layout.size() {
            // Shrinking keeps the block (its tail is not handed out again: it may hold
            // written bytes, and fresh arena memory must read as zero).
            return ptr;
        }
        if ON.load(Ordering::Relaxed) {
            // The last allocation grows in place.
            if let Some(new_end) = (ptr as usize).checked_add(new_size) {
                if new_end <= END.load(Ordering::Relaxed)
                    && NEXT
                        .compare_exchange(old_end, new_end, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                {
                    return ptr;
                }
            }
        }
        // SAFETY (of the layout): the caller guarantees `new_size`, rounded up to the
        // alignment, does not overflow isize.
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let new = self.alloc(new_layout);
        if !new.is_null() {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size());
        }
        new
    }
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod os {
    use std::ffi::c_void;

    extern "C" {
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: i32,
            flags: i32,
            fd: i32,
            off: i64,
        ) -> *mut c_void;
        fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
    }

    const PROT_READ: i32 = 1;
    const PROT_WRITE: i32 = 2;
    const MAP_PRIVATE: i32 = 0x02;
    const MAP_ANONYMOUS: i32 = 0x20;
    const MAP_NORESERVE: i32 = 0x4000;
    const MADV_HUGEPAGE: i32 = 14;
    const MADV_POPULATE_WRITE: i32 = 23;

    pub const CAN_POPULATE: bool = true;

    /// Faults in `[at, at + len)` of the region for writing, without changing its contents
    /// (the thread that owns the memory may be writing it). False when the kernel cannot.
    pub fn populate(at: usize, len: usize) -> bool {
        // SAFETY: MADV_POPULATE_WRITE only faults pages in; it never changes memory contents.
        unsafe { madvise(at as *mut c_void, len, MADV_POPULATE_WRITE) == 0 }
    }
    const HUGE: usize = 2 << 20;

    /// Reserves `len` bytes of address space (memory comes as pages are touched), with huge
    /// pages (one fault per 2 MiB) if `huge`. Returns a 2 MiB-aligned start.
    pub fn reserve(len: usize, huge: bool) -> Option<usize> {
        // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches
        // no existing memory; madvise only advises.
        unsafe {
            let p = mmap(
                std::ptr::null_mut(),
                len + HUGE,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                -1,
                0,
            );
            if p as isize == -1 || p.is_null() {
                return None;
            }
            let start = (p as usize + HUGE - 1) & !(HUGE - 1);
            // Failure (no THP in this kernel) only costs speed.
            if huge {
                madvise(start as *mut c_void, len, MADV_HUGEPAGE);
            }
            Some(start)
        }
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod os {
    /// No arena here: everything goes to mimalloc.
    pub fn reserve(_len: usize, _huge: bool) -> Option<usize> {
        None
    }

    pub const CAN_POPULATE: bool = false;

    pub fn populate(_at: usize, _len: usize) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn strict_overcommit_is_mode_two() {
        assert!(super::strict_overcommit("2\n"));
        assert!(!super::strict_overcommit("0\n"));
        assert!(!super::strict_overcommit("1"));
        assert!(!super::strict_overcommit(""));
    }
}
