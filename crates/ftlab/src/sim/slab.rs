//! A slab: a `Vec` of slots reused through a free list, indexed by `u32`. Storage for
//! in-flight requests and flash operations without per-item allocation once warm.

/// Slots of `T`, each either live or on the free list.
#[derive(Clone, Debug)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
    live: usize,
    live_max: usize,
}

impl<T> Slab<T> {
    /// `live_max` bounds the live items (a bug guard, asserted).
    pub fn new(live_max: usize) -> Self {
        Slab { items: Vec::new(), free: Vec::new(), live: 0, live_max }
    }

    pub fn insert(&mut self, item: T) -> u32 {
        self.live += 1;
        assert!(self.live <= self.live_max, "slab holds {} items, bound {}", self.live, self.live_max);
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = item;
                i
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Free slot `i`; its value stays until reused (callers must not use it).
    pub fn remove(&mut self, i: u32) {
        debug_assert!(!self.free.contains(&i), "double free of slot {i}");
        self.free.push(i);
        self.live -= 1;
    }

    pub fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }

    pub fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }

    pub fn live(&self) -> usize {
        self.live
    }
}
