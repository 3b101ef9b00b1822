//! The event queue: events ordered by `(time, sequence number)`, so ties resolve in the
//! order they were scheduled and a run is a pure function of its inputs. It knows nothing of
//! what events mean.
//!
//! Two layouts, chosen by how many events are pending; the order of pops is the keys' order
//! in both, so the layout never changes a result.
//! - **Sorted** (at most `SORTED_LEN_MAX` pending, the usual case: about one event per die):
//!   `(time, event)` ascending by time, the first pushed of equal times first, in the middle
//!   of a buffer with room at both ends; `pop` takes the head, and `push` puts the new entry in
//!   from the nearer end, moving the entries between by one slot (an insertion step; no `seq`
//!   is kept, since push order is slot order). With ~40 pending this is a few moves and one or
//!   two mispredicted branches, where the heap took a sift of five levels, each a guess.
//! - **Heap** (more pending, e.g. a closed-loop tenant of high queue depth whose requests
//!   complete from the write buffer: one `Complete` per request, all due soon, which the sorted
//!   layout would move on every push): a binary min-heap on the key `(time, seq)`, compared as
//!   one `u128` (no branch). Keys are unique (`seq` counts pushes). Removing the minimum is
//!   deferred: `pop` hands out the root and leaves a hole there, which the next `push` fills
//!   (one sift, where a removal and an insertion would take two) or the next `pop` closes with
//!   the last entry. The hole moves down only while a child is due before the event filling
//!   it.
//!
//! The queue turns into a heap when a push finds `SORTED_LEN_MAX` pending (the sorted entries,
//! numbered in their order, are ascending by key: a valid heap) and back when a
//! pop leaves `SORTED_LEN_BACK` (a sort of that many), so a queue near one bound does not
//! switch on every event.

use super::time::SimTime;

/// Most events the sorted layout holds; one more makes the queue a heap.
const SORTED_LEN_MAX: usize = 64;
/// A heap left with this many pending events after a pop is sorted again.
const SORTED_LEN_BACK: usize = 16;
/// Slots of the sorted layout's buffer: room for `SORTED_LEN_MAX` entries to grow at either
/// end from the middle before they are moved back to it.
const SORTED_CAP: usize = 2 * SORTED_LEN_MAX + 2;

/// One pending event and its key.
#[derive(Clone, Copy, Debug)]
struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time.0 as u128) << 64 | self.seq as u128
    }
}

/// Pending events, popped in `(time, push order)` order.
#[derive(Clone, Debug)]
pub(crate) struct EventQueue<E: Copy> {
    /// The sorted layout (`!heap`): `sorted[head..tail]`, ascending by time, among equal times
    /// the first pushed first. 16 bytes an entry for the usual `E`: no `seq` is needed here.
    /// Empty until the first push (which fills its `SORTED_CAP` slots with copies of its
    /// event: `E` has no default), then never reallocated.
    sorted: Vec<(SimTime, E)>,
    head: usize,
    tail: usize,
    /// The heap layout (`heap`): a binary min-heap by key.
    entries: Vec<Entry<E>>,
    heap: bool,
    /// Heap layout only: the root was popped, `entries[0]` is stale until a push fills it or
    /// a pop closes it.
    hole: bool,
    /// Heap layout only: the next push's `seq`.
    seq: u64,
    len_max: usize,
}

impl<E: Copy> EventQueue<E> {
    /// `len_max` bounds the pending events (a bug guard, asserted).
    pub(crate) fn new(len_max: usize) -> Self {
        EventQueue {
            sorted: Vec::new(),
            head: 0,
            tail: 0,
            entries: Vec::new(),
            heap: false,
            hole: false,
            seq: 0,
            len_max,
        }
    }

    pub(crate) fn push(&mut self, at: SimTime, event: E) {
        if !self.heap && self.tail - self.head == SORTED_LEN_MAX {
            self.become_heap();
        }
        if self.heap {
            let e = Entry { time: at, seq: self.seq, event };
            self.seq += 1;
            self.push_heap(e);
        } else {
            self.push_sorted(at, event);
        }
        assert!(
            self.len() <= self.len_max,
            "event queue holds {} events, bound {}",
            self.len(),
            self.len_max
        );
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<(SimTime, E)> {
        if !self.heap {
            if self.head == self.tail {
                return None;
            }
            self.head += 1;
            return Some(self.sorted[self.head - 1]);
        }
        let popped = self.pop_heap();
        if self.len() <= SORTED_LEN_BACK {
            self.become_sorted();
        }
        popped
    }

    /// The time of the next event `pop` would hand out, if any (a heap's deferred removal
    /// is done first, as the next `pop` would do it: the order of pops is unchanged).
    pub(crate) fn peek_time(&mut self) -> Option<SimTime> {
        if !self.heap {
            return (self.head < self.tail).then(|| self.sorted[self.head].0);
        }
        if self.hole {
            self.hole = false;
            let last = self.entries.pop().expect("a hole is in a non-empty heap");
            if !self.entries.is_empty() {
                self.sift_from_root(last);
            }
        }
        self.entries.first().map(|e| e.time)
    }

    pub(crate) fn len(&self) -> usize {
        if self.heap {
            self.entries.len() - self.hole as usize
        } else {
            self.tail - self.head
        }
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sorted layout: the new event goes after every entry due at or before its time (pushed
    /// before it, so popped before it) and before every entry due after it. It is put in from
    /// the nearer end: an event due before the middle entry moves the earlier entries one slot
    /// towards the head, any other moves the later ones towards the tail. A program's
    /// completion (due a tPROG ahead, after most pending events) then moves a few entries where
    /// one end alone moved nearly all of them, and a transfer's (due soon) a few as well.
    #[inline]
    fn push_sorted(&mut self, at: SimTime, event: E) {
        if self.head == 0 || self.tail == SORTED_CAP {
            self.recenter((at, event));
        }
        let (h, t) = (self.head, self.tail);
        let v = &mut self.sorted[..];
        if h < t && at < v[(h + t) / 2].0 {
            let mut j = h;
            while v[j].0 <= at {
                v[j - 1] = v[j];
                j += 1;
            }
            v[j - 1] = (at, event);
            self.head = h - 1;
        } else {
            let mut j = t;
            while j > h && v[j - 1].0 > at {
                v[j] = v[j - 1];
                j -= 1;
            }
            v[j] = (at, event);
            self.tail = t + 1;
        }
    }

    /// Move the sorted entries to the middle of the buffer (allocated on the first push, with
    /// `filler` in every slot), so both ends have room.
    #[cold]
    fn recenter(&mut self, filler: (SimTime, E)) {
        if self.sorted.is_empty() {
            self.sorted = vec![filler; SORTED_CAP];
        }
        let n = self.tail - self.head;
        assert!(n <= SORTED_LEN_MAX, "{n} sorted entries, bound {SORTED_LEN_MAX}");
        let head = (SORTED_CAP - n) / 2;
        self.sorted.copy_within(self.head..self.tail, head);
        (self.head, self.tail) = (head, head + n);
    }

    fn push_heap(&mut self, e: Entry<E>) {
        if self.hole {
            self.hole = false;
            self.sift_from_root(e);
        } else {
            self.entries.push(e);
            self.sift_up(self.entries.len() - 1, e);
        }
    }

    fn pop_heap(&mut self) -> Option<(SimTime, E)> {
        if self.hole {
            self.hole = false;
            let last = self.entries.pop().expect("a hole is in a non-empty heap");
            if !self.entries.is_empty() {
                self.sift_from_root(last);
            }
        }
        let root = self.entries.first()?;
        self.hole = true;
        Some((root.time, root.event))
    }

    /// Sorted layout to heap: the entries in pop order, numbered in that order (so ties keep
    /// their push order, and every later push numbers after them), are ascending by key, which
    /// is a valid heap.
    fn become_heap(&mut self) {
        debug_assert!(self.entries.is_empty() && !self.hole);
        let pending = self.sorted[self.head..self.tail].iter().enumerate();
        self.entries.extend(pending.map(|(i, &(time, event))| Entry { time, seq: i as u64, event }));
        self.tail = self.head;
        self.seq = self.entries.len() as u64;
        self.heap = true;
    }

    /// Heap layout to sorted: the hole closed (the root, handed out, is dropped), then the
    /// entries in descending key order.
    fn become_sorted(&mut self) {
        if self.hole {
            self.hole = false;
            self.entries.swap_remove(0);
        }
        self.entries.sort_unstable_by_key(|e| e.key());
        let n = self.entries.len();
        assert!(n <= SORTED_LEN_MAX && !self.sorted.is_empty(), "the heap came from the sorted layout");
        self.head = (SORTED_CAP - n) / 2;
        self.tail = self.head + n;
        for (slot, e) in self.sorted[self.head..self.tail].iter_mut().zip(self.entries.drain(..)) {
            *slot = (e.time, e.event);
        }
        self.heap = false;
    }

    /// Put `e` in the root's place: move the hole down along the smaller children while one
    /// is due before `e` (keys are unique: no ties).
    #[inline]
    fn sift_from_root(&mut self, e: Entry<E>) {
        let h = &mut self.entries[..];
        let n = h.len();
        let k = e.key();
        let mut pos = 0;
        let mut child = 1;
        while child + 1 < n {
            child += (h[child + 1].key() < h[child].key()) as usize;
            if k < h[child].key() {
                h[pos] = e;
                return;
            }
            h[pos] = h[child];
            pos = child;
            child = 2 * pos + 1;
        }
        if child + 1 == n && h[child].key() < k {
            h[pos] = h[child];
            pos = child;
        }
        h[pos] = e;
    }

    /// Put `e` at `pos` (a hole or its own slot), moving it up past larger parents.
    #[inline]
    fn sift_up(&mut self, mut pos: usize, e: Entry<E>) {
        let k = e.key();
        while pos > 0 {
            let parent = (pos - 1) / 2;
            if self.entries[parent].key() <= k {
                break;
            }
            self.entries[pos] = self.entries[parent];
            pos = parent;
        }
        self.entries[pos] = e;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use rand::Rng;
    use std::collections::BTreeSet;

    /// Random interleavings of pushes and pops (many ties in time) pop in `(time, push
    /// order)` order, as a sorted set of the same keys does, and `len` counts what is pending.
    /// The push probability of each 500-operation stretch comes from `push_probability`;
    /// returns how many times the queue changed layout.
    fn check(seed: u64, push_probability: impl Fn(usize) -> f64) -> u32 {
        let mut r = rng(seed, 0);
        let mut q = EventQueue::new(10_000);
        let mut reference = BTreeSet::new();
        let (mut pushed, mut now, mut switches) = (0u64, 0u64, 0u32);
        for step in 0..5_000 {
            let was_heap = q.heap;
            if reference.is_empty() || r.random_bool(push_probability(step / 500)) {
                let at = now + r.random_range(0..4u64) * 10;
                q.push(SimTime(at), pushed);
                reference.insert((at, pushed));
                pushed += 1;
            } else {
                let (at, id) = reference.pop_first().expect("not empty");
                assert_eq!(q.pop(), Some((SimTime(at), id)));
                now = at;
            }
            switches += (q.heap != was_heap) as u32;
            assert_eq!(q.len(), reference.len());
            assert_eq!(q.is_empty(), reference.is_empty());
            assert!(q.heap || q.len() <= SORTED_LEN_MAX, "{} sorted entries", q.len());
        }
        while let Some((at, id)) = reference.pop_first() {
            assert_eq!(q.pop(), Some((SimTime(at), id)));
        }
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
        switches
    }

    #[test]
    fn pops_in_time_then_push_order_in_both_layouts() {
        for seed in 0..20u64 {
            // Growing to hundreds pending: sorted, then a heap for good.
            assert_eq!(check(seed, |_| 0.55), 1);
            // Stretches that fill past SORTED_LEN_MAX and drain below SORTED_LEN_BACK.
            let switches = check(seed, |stretch| if stretch % 2 == 0 { 0.6 } else { 0.3 });
            assert!(switches >= 4, "seed {seed}: {switches} layout changes");
            // Hovering near one event pending: the sorted layout throughout.
            assert_eq!(check(seed, |_| 0.45), 0);
        }
    }
}
