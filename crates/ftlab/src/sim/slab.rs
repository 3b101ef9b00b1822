//! A slab: a `Vec` of slots reused through a free list, indexed by `u32`. Storage for
//! in-flight requests and flash operations without per-item allocation once warm.

/// Slots of `T`, each either live or on the free list.
#[derive(Clone, Debug)]
pub(crate) struct Slab<T> {
    items: Vec<T>,
    /// Whether each slot is live.
    in_use: Vec<bool>,
    free: Vec<u32>,
    live: usize,
    live_max: usize,
}

impl<T> Slab<T> {
    /// `live_max` bounds the live items (a bug guard, asserted).
    pub(crate) fn new(live_max: usize) -> Self {
        Slab { items: Vec::new(), in_use: Vec::new(), free: Vec::new(), live: 0, live_max }
    }

    pub(crate) fn insert(&mut self, item: T) -> u32 {
        self.live += 1;
        assert!(self.live <= self.live_max, "slab holds {} items, bound {}", self.live, self.live_max);
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = item;
                self.in_use[i as usize] = true;
                i
            }
            None => {
                self.items.push(item);
                self.in_use.push(true);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Free slot `i`; its value stays until reused (callers must not use it).
    pub(crate) fn remove(&mut self, i: u32) {
        assert!(self.in_use[i as usize], "double free of slot {i}");
        self.in_use[i as usize] = false;
        self.free.push(i);
        self.live -= 1;
    }

    pub(crate) fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }

    pub(crate) fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }

    pub(crate) fn live(&self) -> usize {
        self.live
    }

    /// Indices of the live slots, in index order (allocates: for the end of a run).
    pub(crate) fn live_indices(&self) -> Vec<u32> {
        (0..self.items.len() as u32).filter(|&i| self.in_use[i as usize]).collect()
    }
}
